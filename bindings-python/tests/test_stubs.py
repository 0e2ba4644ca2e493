"""The type stubs (leasekit/__init__.pyi) must list exactly the runtime surface, with the same
parameter names, and every public runtime item must have a docstring."""

from __future__ import annotations

import ast
import inspect
import pathlib
from typing import Dict, List, Set

import pytest

import leasekit

STUB = pathlib.Path(leasekit.__file__).with_name("__init__.pyi")
DUNDERS_CHECKED = {"__init__", "__call__", "__iter__", "__enter__", "__exit__", "__contains__", "__eq__"}


def _stub() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"))


def _is_alias(node: ast.stmt) -> bool:
    return isinstance(node, ast.AnnAssign) and ast.unparse(node.annotation) == "TypeAlias"


def _stub_names() -> Set[str]:
    names: Set[str] = set()
    for node in _stub().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and not _is_alias(node):
            names.add(ast.unparse(node.target))
        elif isinstance(node, ast.ImportFrom):  # explicit re-exports: `from .m import X as X`
            names.update(a.name for a in node.names if a.asname == a.name)
    return names


def _stub_defs() -> Dict[str, ast.stmt]:
    return {n.name: n for n in _stub().body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _params(fn: ast.FunctionDef) -> List[str]:
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return [n for n in names if n not in ("self", "cls")]


def test_stub_lists_exactly_the_public_names() -> None:
    assert _stub_names() == set(leasekit.__all__) | {"__version__", "__all__"}


def test_py_typed_marker_is_installed() -> None:
    assert STUB.with_name("py.typed").exists()


@pytest.mark.parametrize("name", sorted(n for n, d in _stub_defs().items() if isinstance(d, ast.FunctionDef)))
def test_function_signature_matches(name: str) -> None:
    fn = _stub_defs()[name]
    assert isinstance(fn, ast.FunctionDef)
    runtime = getattr(leasekit, name)
    assert runtime.__doc__, f"{name} has no docstring"
    sig = inspect.signature(runtime)
    assert list(sig.parameters) == _params(fn)


@pytest.mark.parametrize("name", sorted(n for n, d in _stub_defs().items() if isinstance(d, ast.ClassDef)))
def test_class_members_match(name: str) -> None:
    cls_node = _stub_defs()[name]
    assert isinstance(cls_node, ast.ClassDef)
    runtime = getattr(leasekit, name)
    assert runtime.__doc__, f"{name} has no docstring"
    stub_members = {n.name: n for n in cls_node.body if isinstance(n, ast.FunctionDef)}
    for member, node in stub_members.items():
        assert hasattr(runtime, member), f"{name}.{member} is in the stub but not at runtime"
        if member.startswith("__"):
            continue
        attr = getattr(runtime, member)
        assert attr.__doc__, f"{name}.{member} has no docstring"
        if callable(attr) and not isinstance(inspect.getattr_static(runtime, member), property):
            try:
                sig = inspect.signature(attr)
            except (TypeError, ValueError):  # pragma: no cover - descriptor without signature
                continue
            runtime_params = [p for p in sig.parameters if p not in ("self", "cls", "$self")]
            assert runtime_params == _params(node), f"{name}.{member} parameters differ"
    if issubclass(runtime, BaseException):
        return
    public = {m for m in dir(runtime) if not m.startswith("_")}
    assert public <= set(stub_members), f"{name}: runtime members missing from the stub: {public - set(stub_members)}"
    if "__init__" in stub_members and runtime.__text_signature__:
        sig = inspect.signature(runtime)
        assert list(sig.parameters) == _params(stub_members["__init__"])
