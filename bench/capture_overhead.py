"""What lineage capture costs a PySpark job: the same workloads untracked and tracked, one process per run.

    python bench/capture_overhead.py [--quick] [--rounds 5] [--workload hr|tpch|wide|stream|all]

Workloads (inputs generated once into ``--data-dir``, reused by later invocations):

- ``hr``    the HR pipeline (examples/hr_pipeline, both jobs, unchanged) over 1M+ attendance rows;
- ``tpch``  20 SQL queries (joins, aggregations, windows, CTEs, subqueries) over TPC-H-like Parquet
            tables, each query's result written as Parquet (one action with output lineage per query);
- ``wide``  500 columns, 200 ``withColumn`` steps, written once;
- ``stream`` a Structured Streaming query: a folder of JSON files read one file per micro-batch (fixed
            batches: ``maxFilesPerTrigger=1``, ``availableNow``) → filter + projection → Parquet with a
            checkpoint; tracked, it is one streaming job (START, RUNNING per progress interval, COMPLETE).

Every run is a fresh process (a fresh JVM, as users run jobs): untracked = ``python script.py``,
tracked = ``headwater run --url <server> -- python script.py``, sending to a real ``headwater serve``
(SQLite store). Runs alternate untracked/tracked (A B A B ...); the figures are medians with their
min–max. The script measures itself (``bench/workloads/probe.py``): the job's work (session ready →
``spark.stop()``), session start-up, ``spark.stop()`` (where the agent flushes), CPU and peak memory of
the Python driver and of the JVM; the harness measures the process wall time. One more tracked run per
workload with ``spark.headwater.debug.stats`` records the agent's own CPU per Spark action (listener
callback, worker, sending) and the JVM CPU of the listener thread; a last one with tracemalloc its peak
Python heap (not for ``stream``: its agent work is per progress event, not per Spark action). Prints a table; writes bench/results/capture_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from _server import running_server
from workloads.report import render_table, summarise

WORKLOADS = ("hr", "tpch", "wide", "stream")
PY = sys.executable


def sizes(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "hr_employees": 5_000,
            "hr_days": 20,
            "tpch_scale": 0.01,
            "tpch_queries": 6,
            "wide_rows": 200,
            "wide_columns": 500,
            "wide_steps": 200,
            "stream_files": 4,
            "stream_rows": 20_000,
        }
    return {
        "hr_employees": 50_000,
        "hr_days": 21,
        "tpch_scale": 0.05,
        "tpch_queries": 20,
        "wide_rows": 2_000,
        "wide_columns": 500,
        "wide_steps": 200,
    }


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


# -- inputs -------------------------------------------------------------------------------------


def prepare(kind: str, data_dir: Path, cfg: dict[str, Any]) -> Path:
    """Generate the workload's input unless a previous invocation already did (keyed by its size)."""
    if kind == "hr":
        out = data_dir / f"hr-{cfg['hr_employees']}x{cfg['hr_days']}"
        if not (out / "done").exists():
            from headwater.demo.data import generate

            print(f"generating HR data ({cfg['hr_employees']} employees x {cfg['hr_days']} days) in {out}", flush=True)
            data = generate(out, employees=cfg["hr_employees"], days=cfg["hr_days"])
            (out / "done").write_text(json.dumps({n: f.rows for n, f in data.files.items()}))
        return out
    if kind == "stream":
        out = data_dir / f"stream-{cfg['stream_files']}x{cfg['stream_rows']}"
        if not (out / "done").exists():
            print(f"generating {cfg['stream_files']} JSON files of {cfg['stream_rows']} rows in {out}", flush=True)
            write_stream_input(out, cfg["stream_files"], cfg["stream_rows"])
        return out
    if kind == "tpch":
        out = data_dir / f"tpch-sf{cfg['tpch_scale']}"
        args = ["tpch", str(out), "--scale", str(cfg["tpch_scale"])]
    else:
        out = data_dir / f"wide-{cfg['wide_columns']}x{cfg['wide_rows']}"
        args = ["wide", str(out), "--rows", str(cfg["wide_rows"]), "--columns", str(cfg["wide_columns"])]
    if not (out / "counts.json").exists():
        print(f"generating {kind} input in {out}", flush=True)
        subprocess.run(
            [PY, str(BENCH / "workloads" / "generate.py"), *args],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return out


def write_stream_input(out: Path, files: int, rows: int) -> None:
    """``files`` JSON-lines files of ``rows`` rows each (one micro-batch each); a few rows per file are filtered
    out by the job (amount <= 0)."""
    (out / "input").mkdir(parents=True, exist_ok=True)
    regions = ("north", "south", "east", "west")
    for f in range(files):
        with open(out / "input" / f"part-{f:03d}.json", "w", encoding="utf-8") as fh:
            for i in range(rows):
                n = f * rows + i
                row = {"id": n, "name": f"name{n % 997}", "amount": (n % 1000) - 5.5, "region": regions[n % 4]}
                fh.write(json.dumps(row) + "\n")
    (out / "done").write_text(json.dumps({"files": files, "rows": rows}))


def commands(kind: str, data: Path, work: Path, cfg: dict[str, Any]) -> list[list[str]]:
    """The script invocations of one run of a workload (HR: job 1 then job 2)."""
    w = BENCH / "workloads"
    if kind == "hr":
        hr = ROOT / "examples" / "hr_pipeline"
        return [
            [str(w / "hr_job.py"), str(hr / script), "--data", str(data), "--warehouse", str(work / "warehouse")]
            for script in ("employee_attendance.py", "employee_compensation.py")
        ]
    if kind == "tpch":
        return [
            [
                str(w / "tpch_job.py"),
                "--tables",
                str(data),
                "--output",
                str(work / "out"),
                "--queries",
                str(cfg["tpch_queries"]),
            ]
        ]
    if kind == "stream":
        return [
            [
                str(w / "stream_job.py"),
                "--input",
                str(data / "input"),
                "--output",
                str(work / "out"),
                "--checkpoint",
                str(work / "checkpoint"),
            ]
        ]
    return [
        [
            str(w / "wide_job.py"),
            "--input",
            str(data / "input"),
            "--output",
            str(work / "out"),
            "--steps",
            str(cfg["wide_steps"]),
        ]
    ]


# -- one run ------------------------------------------------------------------------------------


def server_cpu() -> float | None:
    """CPU seconds used so far by the `headwater serve` child (it shares the machine's cores with the job)."""
    proc = Path("/proc")
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) != os.getpid():
                continue
            if b"serve" not in (entry / "cmdline").read_bytes():
                continue
            return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            continue
    return None


def run_once(
    kind: str,
    tracked: bool,
    data: Path,
    tmp: Path,
    url: str,
    cfg: dict[str, Any],
    tag: str,
    extra_conf: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One run of a workload (one process per script); returns the probe figures summed over its scripts."""
    work = tmp / f"{kind}-{'tracked' if tracked else 'plain'}"
    work.mkdir(parents=True, exist_ok=True)
    total: dict[str, Any] = {"process_s": 0.0, "actions": {}, "scripts": 0}
    for i, argv in enumerate(commands(kind, data, work, cfg)):
        out = tmp / f"{kind}-{tag}-{i}.json"
        log = tmp / f"{kind}-{tag}-{i}.log"
        env = {
            k: v for k, v in os.environ.items() if k not in ("HEADWATER_AUTO", "HEADWATER_CAPTURE", "HEADWATER_CONF")
        }
        env["HW_BENCH_OUT"] = str(out)
        cmd = [PY, *argv]
        if tracked:
            conf = [f"--conf={k}={v}" for k, v in (extra_conf or {}).items()]
            cmd = [PY, "-m", "headwater", "run", "--url", url, "--spool-dir", str(tmp / "spool"), *conf, "--", *cmd]
        cpu_before = server_cpu()
        started = time.perf_counter()
        with open(log, "w", encoding="utf-8") as fh:
            code = subprocess.run(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode
        took = time.perf_counter() - started
        cpu_after = server_cpu()
        if cpu_before is not None and cpu_after is not None:
            total["server_cpu_s"] = total.get("server_cpu_s", 0.0) + cpu_after - cpu_before
        text = log.read_text(encoding="utf-8", errors="replace")
        if code != 0 or not out.exists():
            raise RuntimeError(f"{' '.join(cmd)} failed (exit {code}); log {log}:\n{text[-3000:]}")
        if tracked and "headwater: capturing lineage" not in text:
            raise RuntimeError(f"the tracked run did not capture (no 'capturing lineage' line); log {log}")
        if tracked and "kept in the spool" in text:
            print(f"  warning: {kind} run {tag}: some events were spooled (backend slow?), see {log}", flush=True)
        probe = json.loads(out.read_text(encoding="utf-8"))
        if kind == "stream" and probe["actions"].get("batches_with_rows") != cfg["stream_files"]:
            raise RuntimeError(
                f"the stream ran {probe['actions'].get('batches_with_rows')} micro-batches with rows, "
                f"not one per input file ({cfg['stream_files']}); log {log}"
            )
        total["process_s"] += took
        # before the script's first line: the interpreter, and for tracked runs `headwater run` itself
        total["launch_s"] = total.get("launch_s", 0.0) + took - float(probe.get("script_s", took))
        total["scripts"] += 1
        for key, value in probe.items():
            if key == "actions":
                total["actions"].update(value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                if key.endswith("max_rss_bytes"):
                    total[key] = max(total.get(key, 0), value)
                else:
                    total[key] = total.get(key, 0) + value
    return total


def agent_stats(kind: str, data: Path, tmp: Path, url: str, cfg: dict[str, Any], *, memory: bool) -> dict[str, Any]:
    """Tracked runs with ``spark.headwater.debug.stats`` on (and tracemalloc when ``memory``): the agent's own
    costs per Spark action, merged over the workload's scripts."""
    label = "mem" if memory else "cpu"
    merged: dict[str, list[Any]] = {"listener": [], "worker": [], "send": []}
    peaks: dict[str, float] = {}
    for i in range(len(commands(kind, data, tmp, cfg))):
        target = tmp / f"{kind}-agentstats-{label}-{i}.json"
        conf = {"spark.headwater.debug.stats": str(target)}
        if memory:
            conf["spark.headwater.debug.tracemalloc"] = "true"
        probe = run_script(kind, i, data, tmp, url, cfg, conf, tag=f"stats-{label}-{i}")
        report = json.loads(target.read_text(encoding="utf-8"))
        for key in merged:
            merged[key].extend(report[key])
        for key in ("item_heap_peak_bytes", "python_heap_peak_bytes", "max_rss_bytes"):
            peaks[key] = max(peaks.get(key, 0), int(report.get(key) or 0))
        peaks["work_s"] = peaks.get("work_s", 0.0) + float(probe.get("work_s", 0.0))
    return {"rows": merged, "peaks": peaks}


def run_script(
    kind: str, index: int, data: Path, tmp: Path, url: str, cfg: dict[str, Any], conf: dict[str, str], tag: str
) -> dict[str, Any]:
    work = tmp / f"{kind}-tracked"
    argv = commands(kind, data, work, cfg)[index]
    out = tmp / f"{kind}-{tag}.json"
    log = tmp / f"{kind}-{tag}.log"
    env = {k: v for k, v in os.environ.items() if k not in ("HEADWATER_AUTO", "HEADWATER_CAPTURE", "HEADWATER_CONF")}
    env["HW_BENCH_OUT"] = str(out)
    cmd = [
        PY,
        "-m",
        "headwater",
        "run",
        "--url",
        url,
        "--spool-dir",
        str(tmp / "spool"),
        *[f"--conf={k}={v}" for k, v in conf.items()],
        "--",
        PY,
        *argv,
    ]
    with open(log, "w", encoding="utf-8") as fh:
        code = subprocess.run(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode
    if code != 0 or not out.exists():
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {code}); see {log}")
    return json.loads(out.read_text(encoding="utf-8"))


# -- main ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small inputs, 3 rounds, 6 queries, agent stats of the "
        "wide job only, no tracemalloc run (~6-7 minutes on 2 quiet cores)",
    )
    parser.add_argument("--rounds", type=int, default=None, help="runs of each variant [5; --quick: 3]")
    parser.add_argument("--workload", choices=[*WORKLOADS, "all"], default="all")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=BENCH / "results" / "data",
        help="where generated inputs are kept between invocations",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc run")
    parser.add_argument("--out", type=Path, default=BENCH / "results" / "capture_overhead.json")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 5)
    cfg = sizes(args.quick)
    kinds = WORKLOADS if args.workload == "all" else (args.workload,)
    args.data_dir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {
        "quick": args.quick,
        "rounds": rounds,
        "sizes": cfg,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "uptime_before": uptime(),
        "workloads": {},
    }
    try:
        import pyspark

        result["pyspark"] = pyspark.__version__
    except ImportError:
        pass
    began = time.perf_counter()
    inputs = {kind: prepare(kind, args.data_dir, cfg) for kind in kinds}
    with tempfile.TemporaryDirectory(prefix="hw-capture-bench-") as tmpdir:
        tmp = Path(tmpdir)
        with running_server(f"sqlite:///{tmp}/bench.db") as url:
            for kind in kinds:
                print(f"{kind}: {rounds} rounds, untracked/tracked interleaved ({uptime()})", flush=True)
                if not args.quick:  # warm the page cache and the data; not counted
                    run_once(kind, False, inputs[kind], tmp, url, cfg, "warmup")
                plain: list[dict[str, Any]] = []
                tracked: list[dict[str, Any]] = []
                for r in range(rounds):
                    plain.append(run_once(kind, False, inputs[kind], tmp, url, cfg, f"A{r}"))
                    tracked.append(run_once(kind, True, inputs[kind], tmp, url, cfg, f"B{r}"))
                    print(
                        f"  round {r + 1}: work {plain[-1]['work_s']:.2f} s / {tracked[-1]['work_s']:.2f} s, "
                        f"process {plain[-1]['process_s']:.2f} s / {tracked[-1]['process_s']:.2f} s",
                        flush=True,
                    )
                # --quick keeps to its time budget: the per-action stats only where the target is per action
                # (the stream's agent work is per progress event: no per-action stats for it)
                stats = (
                    agent_stats(kind, inputs[kind], tmp, url, cfg, memory=False)
                    if (not args.quick and kind != "stream") or kind == "wide"
                    else None
                )
                memory = (
                    agent_stats(kind, inputs[kind], tmp, url, cfg, memory=True)
                    if not (args.no_memory or args.quick or kind == "stream")
                    else None
                )
                result["workloads"][kind] = summarise(kind, plain, tracked, stats, memory, cfg)
                result["workloads"][kind]["uptime"] = uptime()
    result["uptime_after"] = uptime()
    result["elapsed_s"] = time.perf_counter() - began
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(render_table(result))
    print(f"\nwrote {args.out} ({result['elapsed_s'] / 60:.1f} min)")


if __name__ == "__main__":
    main()
