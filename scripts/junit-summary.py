"""Add up JUnit XML reports from every runner in scripts/test into one closing line."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def main(paths: list[str]) -> int:
    passed = failed = skipped = 0
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as exc:
            print(f"{path}: unreadable report ({exc})")
            failed += 1
            continue
        suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
        tests = sum(int(suite.get("tests", 0)) for suite in suites)
        f = sum(int(suite.get("failures", 0)) + int(suite.get("errors", 0)) for suite in suites)
        s = sum(int(suite.get("skipped", 0)) for suite in suites)
        print(f"{path}: {tests - f - s} passed, {f} failed, {s} skipped ({len(suites)} suites)")
        passed += tests - f - s
        failed += f
        skipped += s
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
