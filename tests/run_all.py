#!/usr/bin/python3
"""Run every test (pytest drives the C unit tests too) and end with the totals line
`N passed, N failed, N skipped` that CI reads."""
import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

REPO = pathlib.Path(__file__).resolve().parent.parent


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build").resolve()
    results = build / "test-results.xml"
    env = dict(os.environ, SCOREP_WRAPGEN_BUILD=str(build))
    code = subprocess.call([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                            f"--junitxml={results}", *sys.argv[2:]], cwd=REPO, env=env)
    passed = failed = skipped = 0
    if results.exists():
        for suite in ET.parse(results).getroot().iter("testsuite"):
            total = int(suite.get("tests", 0))
            bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skip = int(suite.get("skipped", 0))
            passed += total - bad - skip
            failed += bad
            skipped += skip
    if code not in (0, 1) and failed == 0:
        failed = 1   # pytest itself failed (usage error, collection crash, no tests)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if code == 0 and failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
