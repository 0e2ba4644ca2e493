"""conformance/surface.json (the surface manifest): every Python name it lists exists on the
``leasekit`` module, and every ``not_exposed`` entry gives a reason."""

from __future__ import annotations

import json
from typing import Any, List

import leasekit as lk
from conftest import REPO


def _names(value: Any) -> List[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return list(value)
    assert isinstance(value, dict) and str(value.get("not_exposed", "")).strip(), value
    return []


def _resolve(path: str) -> Any:
    obj: Any = lk
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def test_every_python_name_in_the_manifest_exists() -> None:
    doc = json.loads((REPO / "conformance" / "surface.json").read_text(encoding="utf-8"))
    missing = []
    checked = 0
    for entry in doc["entries"]:
        for name in _names(entry.get("python", {"not_exposed": "absent"})):
            checked += 1
            try:
                _resolve(name)
            except AttributeError:
                missing.append(f"{entry['concept']}: {name}")
    assert checked > 50
    assert not missing, missing


def test_a_wrong_name_is_caught() -> None:
    try:
        _resolve("Governor.no_such_method")
    except AttributeError:
        return
    raise AssertionError("a missing name resolved")
