"""The projector's CPU per realistic event, in one process, this code against another's, interleaved.

    python bench/derive_cpu.py [--events 2000] [--rounds 3] [--before SRC]

The events are bench/ingest_limit.py's *realistic* shape (one Spark application, 8 jobs run again and again,
each run a START and a COMPLETE sharing their facets). Each measurement runs in a fresh child process on a fresh
SQLite store: the events are accepted as the server accepts a batch body (``ParsePool.prepare`` in the process,
so the projector is handed the parsed events, and the facets the door parsed are shared values) and appended in
batches of 500; after each batch the projector derives them in its own steps of 200 (``Store.derive_step``).
Measured: the process's CPU time (``time.process_time``) of the derivation only — observing the events, storing
the observations and deriving runs, jobs and datasets — per event. The server's collector settings
(``gc.freeze`` and ``gc.set_threshold(50_000, 50, 100)``, as ``headwater serve``) apply.

``--before SRC``: also the code in SRC (a ``src`` folder of another checkout, first on the child's PYTHONPATH),
in the same rounds, the order of the two alternating. Prints each run and the medians, with the load average.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(events: int) -> None:
    """One measurement, in this process: prints a JSON line ``{"events", "cpu_us_per_event"}``."""
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    sys.path.insert(0, str(HERE))
    from headwater.api.parse_pool import Job, ParsePool
    from headwater.ingest.accept import Policy
    from headwater.settings import load_settings
    from headwater.spec import EventValidator
    from headwater.store import Store
    from ingest_limit import shaped_events

    texts = shaped_events("derivecpu", events, "realistic")
    policy = Policy.from_settings(load_settings({}, environ={}))
    pool = ParsePool(0, EventValidator())
    done, cpu = 0, 0.0
    with tempfile.TemporaryDirectory() as tmp, Store.open(f"sqlite:///{tmp}/derive.db", background=False) as store:
        for start in range(0, len(texts), 500):
            body = (b"[" + b",".join(texts[start : start + 500]) + b"]").decode()
            store.append_prepared([r.prepared for r in pool.prepare(Job(body, True, policy))])
            began = time.process_time()
            while step := store.derive_step(200):
                done += step
            cpu += time.process_time() - began
    print(json.dumps({"events": done, "cpu_us_per_event": cpu / done * 1e6}))


def measure(src: str | None, events: int) -> float:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--events", str(events)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1])["cpu_us_per_event"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", help="the src folder of the code to compare with")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.events)
        return
    codes: dict[str, str | None] = {"after": None}
    if args.before:
        codes = {"before": args.before, "after": None}
    found: dict[str, list[float]] = {name: [] for name in codes}
    for rnd in range(args.rounds):
        order = list(codes) if rnd % 2 == 0 else list(reversed(codes))
        for name in order:
            load = os.getloadavg()[0]
            us = measure(codes[name], args.events)
            found[name].append(us)
            print(f"round {rnd + 1} {name:<6} {us:6.0f} µs CPU per event (load {load:.1f})", flush=True)
    for name, values in found.items():
        print(
            f"{name:<6} median {statistics.median(values):.0f} µs per event ({', '.join(f'{v:.0f}' for v in values)})"
        )


if __name__ == "__main__":
    main()
