"""The agent's own CPU per Spark action, two versions of the agent interleaved (A B A B ...).

    python bench/capture_agent_ab.py --before /path/to/other/checkout/src [--rounds 4] [--workload wide] [--quick]

Each round runs the workload's ``spark.headwater.debug.stats`` run (what ``bench/capture_overhead.py`` runs once
per workload: a fresh Python + JVM under ``headwater run``, events over HTTP to a real ``headwater serve``) first
with the agent from ``--before`` (put first on ``PYTHONPATH``), then with this checkout's ``src``. The workload
scripts, the server and the inputs are this checkout's for both. Prints, per round and as medians over the rounds,
the Python CPU per action (``time.thread_time``: listener + worker + send) and the JVM listener thread's CPU, with
the load average at each run; writes every figure to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from _server import running_server
from capture_overhead import agent_stats, prepare, sizes, uptime


def per_action(rows: dict[str, list[dict[str, float]]]) -> dict[str, float]:
    """Milliseconds per Spark action: the listener's callbacks count the actions."""
    actions = max(len(rows["listener"]), 1)
    ms = {part: sum(r["cpu"] for r in rows[part]) * 1000 / actions for part in ("listener", "worker", "send")}
    ms["total"] = ms["listener"] + ms["worker"] + ms["send"]
    ms["jvm"] = sum(r.get("jvm_cpu", 0.0) for r in rows["listener"]) * 1000 / actions
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the other agent's src directory (A)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--workload", choices=["hr", "tpch", "wide"], default="wide")
    parser.add_argument("--quick", action="store_true", help="the quick inputs of capture_overhead.py")
    parser.add_argument("--data-dir", type=Path, default=BENCH / "results" / "data")
    parser.add_argument("--out", type=Path, default=BENCH / "results" / "capture_agent_ab.json")
    args = parser.parse_args()
    sources = {"before": args.before.resolve(), "after": (ROOT / "src").resolve()}
    cfg = sizes(args.quick)
    args.data_dir.mkdir(parents=True, exist_ok=True)
    data = prepare(args.workload, args.data_dir, cfg)
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    base_path = os.environ.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory(prefix="hw-agent-ab-") as tmpdir:
        tmp = Path(tmpdir)
        with running_server(f"sqlite:///{tmp}/bench.db") as url:
            for r in range(args.rounds):
                for label, src in sources.items():
                    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), base_path) if p)
                    load = uptime()
                    work = tmp / f"{label}{r}"
                    work.mkdir()
                    stats = agent_stats(args.workload, data, work, url, cfg, memory=False)
                    figures = per_action(stats["rows"])
                    runs[label].append({**figures, "uptime": load})
                    print(
                        f"round {r + 1} {label:6s}: listener {figures['listener']:5.1f} + worker "
                        f"{figures['worker']:5.1f} + send {figures['send']:5.1f} = {figures['total']:5.1f} ms "
                        f"Python, JVM listener thread {figures['jvm']:4.0f} ms  ({load})",
                        flush=True,
                    )
    os.environ["PYTHONPATH"] = base_path
    medians = {
        label: {k: statistics.median(run[k] for run in rows) for k in ("listener", "worker", "send", "total", "jvm")}
        for label, rows in runs.items()
    }
    for label, m in medians.items():
        ranges = [run["total"] for run in runs[label]]
        print(
            f"median {label:6s}: listener {m['listener']:5.1f} + worker {m['worker']:5.1f} + send {m['send']:5.1f} "
            f"= {m['total']:5.1f} ms ({min(ranges):.1f}-{max(ranges):.1f}); JVM listener thread {m['jvm']:.0f} ms"
        )
    result = {"workload": args.workload, "quick": args.quick, "sources": {k: str(v) for k, v in sources.items()}}
    result.update({"runs": runs, "medians": medians, "uptime_after": uptime()})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
