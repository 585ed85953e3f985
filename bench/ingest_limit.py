"""Headwater's ingest rates as a share of the machine's raw durable-append limit.

    python bench/ingest_limit.py [--events 4000] [--batch 500] [--rounds 3] [--before SRC]

Two shapes of events, ~24 kB each (bench/spark_events.py: what the OpenLineage Spark integration sends):

- **realistic**: one Spark application per client with 8 jobs run again and again (daily runs), each run a
  START and a COMPLETE, as producers send them: a job's schema, column-lineage, symlinks, SQL and job-type
  facets, the application's parent and engine facets are the same byte for byte across its runs;
- **unique**: the same events made to share nothing of substance: every event's column names (schemas and
  column lineage), dataset names, parent run and engine facet carry a token of its own (only the ~150-byte
  ``jobType`` facet repeats).

Per shape, measurements of the same events, interleaved round by round so machine drift hits all of them:

- **raw**: the physical limit of a durable append on this machine — the events' bytes inserted with
  Python's sqlite3 into a fresh SQLite file in WAL mode with ``synchronous=FULL``, a SHA-256 id each,
  one transaction (and so one fsync) per batch of ``--batch``: what no ingest path can beat;
- **ack**: a real ``headwater serve`` on a fresh SQLite store, one client posting the same batches to
  ``POST /api/v1/lineage/batch`` — events per second until the last 2xx (durable, validated);
- **graph**: the same run until a graph read answers (it waits until the projector derived them all).

``--before SRC``: the same server measurements also for the code in SRC (a ``src`` folder of another
checkout: the server runs with it first on PYTHONPATH), in the same rounds, the order of the two codes
alternating from round to round.

Also the server's CPU per event from the first post until graph-ready (``cpu µs/ev``: its process and its live
children, the parse worker, from /proc): on a loaded machine the rates follow the load, this much less.

Prints the medians and the ratios ack/raw and graph/raw; the issue's targets are ack ≥ 60 % and
graph ≥ 40 % of raw. Writes bench/results/ingest_limit.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server import started_server
from ingest import load, measure
from spark_events import Pipeline

RESULTS = Path(__file__).resolve().parent / "results"


def raw_append(path: Path, events: list[bytes], batch: int) -> float:
    """Events per second for the plainest durable append: WAL + synchronous=FULL, one commit per batch."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE, raw TEXT)")
    t0 = time.perf_counter()
    for i in range(0, len(events), batch):
        rows = [(hashlib.sha256(e).hexdigest(), e.decode()) for e in events[i : i + batch]]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO events (id, raw) VALUES (?, ?)", rows)
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - t0
    conn.close()
    return len(events) / elapsed


def cpu_seconds(pid: int) -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) used so far by process ``pid`` (named ``server``) and by each of its live
    children, by pid, with their process names (``hw-projector``, ``hw-parse``: the names the server gives them), from
    /proc (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    total: dict[int, tuple[str, float]] = {}
    todo = [pid]
    while todo:
        at = todo.pop()
        try:
            stat = Path(f"/proc/{at}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            name = "server" if at == pid else stat[stat.index("(") + 1 : stat.rindex(")")]
            total[at] = (name, (int(fields[11]) + int(fields[12])) / tick)  # utime, stime
            for task in Path(f"/proc/{at}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def settled(pid: int, timeout: float = 20.0) -> dict[int, tuple[str, float]]:
    """:func:`cpu_seconds` once the server's processes are idle (its parse worker and projector process start in
    the background: their imports are not the events' cost)."""
    deadline = time.monotonic() + timeout
    last = cpu_seconds(pid)
    quiet = 0  # one-second looks in a row in which no process came or went and they used < 10 ms of CPU
    while time.monotonic() < deadline and quiet < 2:
        time.sleep(1.0)
        now = cpu_seconds(pid)
        used = sum(v for _, v in now.values()) - sum(v for _, v in last.values())
        quiet = quiet + 1 if now.keys() == last.keys() and used < 0.01 else 0
        last = now
    return last


def cpu_between(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]], events: int
) -> dict[str, float]:
    """CPU µs per event of each process (by its name at the end) between two :func:`cpu_seconds`, and ``all``."""
    used: dict[str, float] = {}
    for at, (name, seconds) in after.items():
        used[name] = used.get(name, 0.0) + seconds - before.get(at, (name, 0.0))[1]
    return {"all": sum(used.values()) / events * 1e6} | {k: v / events * 1e6 for k, v in sorted(used.items())}


def shaped_events(tag: str, n: int, shape: str) -> list[bytes]:  # tag: letters and digits, no hex-only tag
    """``n`` events of one Spark application (8 jobs, START/COMPLETE pairs), each as compact JSON text;
    ``unique``: with a token of each event's own in its column and dataset names, parent run and engine facet."""
    texts = [json.dumps(e, separators=(",", ":")) for e in Pipeline(tag).events(n)]
    if shape == "unique":
        texts = [_own(text, tag, f"u{i}") for i, text in enumerate(texts)]
    return [t.encode() for t in texts]


def _own(text: str, tag: str, token: str) -> str:
    event = json.loads(text)
    facets = event["run"]["facets"]
    if "parent" in facets:
        facets["parent"]["run"]["runId"] = str(
            uuid.uuid5(uuid.NAMESPACE_URL, f"{facets['parent']['run']['runId']}/{token}")
        )
    if "processing_engine" in facets:
        facets["processing_engine"]["openlineageAdapterVersion"] = f"1.24.2+{token}"
    if "spark_properties" in facets:
        facets["spark_properties"]["properties"]["spark.app.name"] += f"-{token}"
    text = json.dumps(event, separators=(",", ":"))
    for prefix in ('"a_', '"b_', '"o_'):  # column names: schemas, column lineage (keys and fields)
        text = text.replace(prefix, f"{prefix[:2]}{token}_")
    return text.replace(tag, f"{tag}{token}")  # dataset, job and application names, namespaces, SQL


Code = tuple[str | None, dict[str, str]]  # a src folder (None: this checkout's) and the server's environment


def one_round(tag: str, n: int, batch: int, tmp: Path, shape: str, codes: dict[str, Code]) -> dict[str, float]:
    events = shaped_events(f"{tag}{shape[0]}", n, shape)
    bodies = [b"[" + b",".join(events[i : i + batch]) + b"]" for i in range(0, len(events), batch)]
    out = {"raw": raw_append(tmp / f"{tag}-{shape}-raw.db", events, batch)}
    for name, (src, settings) in codes.items():
        env = dict(settings)
        if src is not None:
            env["PYTHONPATH"] = src + os.pathsep + os.environ.get("PYTHONPATH", "")
        with started_server(f"sqlite:///{tmp / f'{tag}-{shape}-{name}.db'}", extra_env=env) as server:
            cpu = settled(server.pid)
            served = measure(server.url, [bodies], len(events), batch)
            used = cpu_between(cpu, cpu_seconds(server.pid), len(events))
        out[f"{name} ack"], out[f"{name} graph"] = served["ack"], served["graph"]
        # the server's CPU until graph-ready (not a rate): all its processes, then each
        out[f"{name} cpu µs/ev"] = used.pop("all")
        out |= {f"{name} cpu µs/ev {process}": v for process, v in used.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shapes", default="realistic,unique")
    parser.add_argument("--before", default=None, help="src folder of the code to compare with (e.g. main's)")
    parser.add_argument(
        "--projectors", default="thread,process", help="the projector settings to run this checkout's code with"
    )
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    rounds: dict[str, list[dict[str, float]]] = {shape: [] for shape in shapes}
    loads: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            codes: dict[str, Code] = {
                f"after {where}": (None, {"HEADWATER_PROJECTOR": where}) for where in args.projectors.split(",")
            }
            if args.before:
                ordered = list(codes.items()) + [("before", (args.before, {}))]
                codes = dict(ordered[::-1] if r % 2 else ordered)  # the order of the codes alternates per round
            for shape in shapes:
                result = one_round(f"r{r}", args.events, args.batch, Path(tmp), shape, codes)
                rounds[shape].append(result)
                shown = ", ".join(
                    f"{k} {v:,.0f}"
                    if "µs/ev" in k
                    else f"{k} {v:,.0f} ev/s" + ("" if k == "raw" else f" ({v / result['raw']:.0%})")
                    for k, v in result.items()
                )
                loads.append(load())
                print(f"round {r + 1} {shape}: {shown}  load {loads[-1]}", flush=True)
    summary: dict[str, Any] = {}
    for shape, results in rounds.items():
        keys = list(results[0])
        summary[shape] = {
            "median_events_per_s": {k: statistics.median(r[k] for r in results) for k in keys},
            "median_of_raw": {
                k: statistics.median(r[k] / r["raw"] for r in results) for k in keys if k != "raw" and "µs/ev" not in k
            },
            "rounds": results,
        }
    out = {
        "events": args.events,
        "batch": args.batch,
        "shapes": summary,
        "targets": {"ack_of_raw": 0.6, "graph_of_raw": 0.4},
        "load_per_round": loads,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    print(
        json.dumps(
            {k: v for k, v in out.items() if k != "shapes"}
            | {
                s: {"median_events_per_s": v["median_events_per_s"], "median_of_raw": v["median_of_raw"]}
                for s, v in summary.items()
            },
            indent=2,
        )
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ingest_limit.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
