#!/usr/bin/env python3
"""Fails when a POM lacks a field Maven Central requires (coordinates, name, description, url,
licenses with name and url, developers, scm with connection, developerConnection and url), or
when the sources and javadoc jars are not beside it.

    python3 scripts/check-pom.py dist/maven/dev/leasekit/leasekit/V/leasekit-V.pom
"""

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

NS = {"m": "http://maven.apache.org/POM/4.0.0"}
REQUIRED = [
    "m:groupId", "m:artifactId", "m:version", "m:name", "m:description", "m:url",
    "m:licenses/m:license/m:name", "m:licenses/m:license/m:url",
    "m:developers/m:developer/m:name",
    "m:scm/m:connection", "m:scm/m:developerConnection", "m:scm/m:url",
]


def main(path: str) -> int:
    pom = Path(path)
    root = ET.parse(pom).getroot()
    missing = [f.replace("m:", "") for f in REQUIRED if not (root.findtext(f, namespaces=NS) or "").strip()]
    stem = pom.name[: -len(".pom")]
    for suffix in (".jar", "-sources.jar", "-javadoc.jar"):
        if not (pom.parent / (stem + suffix)).is_file():
            missing.append(stem + suffix)
    for m in missing:
        print(f"{pom}: missing {m}")
    if not missing:
        print(f"{pom.name}: every field Maven Central requires, jar, sources and javadoc present")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
