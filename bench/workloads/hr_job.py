"""Run one HR pipeline script (``examples/hr_pipeline/*.py``) unchanged, timed by the probe.

python hr_job.py <script.py> --data <csv dir> --warehouse <dir>
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import probe


def main() -> None:
    script = Path(sys.argv[1]).resolve()
    probe.install()
    sys.path.insert(0, str(script.parent))  # the scripts import hr_schemas from their folder
    sys.argv = [str(script), *sys.argv[2:]]
    runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main()
