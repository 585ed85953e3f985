"""``headwater harvest logs``: OpenLineage events in real log shapes — an Airflow task log written by
openlineage-python's console transport (Airflow's log format), the file transport's JSON lines, a JSON logger's
envelope — sent to a real Headwater; the state file (a second run sends nothing, appended lines only, rotation,
truncation); refused events with the server's reason and file:line; ``--follow`` on a file that grows."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.serde import Serde
from openlineage.client.transport.console import ConsoleConfig, ConsoleTransport
from openlineage.client.transport.file import FileConfig, FileTransport

from headwater.cli import cli
from headwater.harvest.logs import find_events

from .conftest import graph, wait_until

NS = "airflow://etl"
PRODUCER = "https://github.com/apache/airflow/tree/providers-openlineage/2.3.0"
AIRFLOW_FORMAT = "[%(asctime)s] {%(filename)s:%(lineno)d} %(levelname)s - %(message)s"  # Airflow's task log format


def _event(task: str, state: RunState, minute: int, run_id: str | None = None) -> RunEvent:
    return RunEvent(
        eventType=state,
        eventTime=(datetime(2026, 11, 24, 10, 0, tzinfo=UTC) + timedelta(minutes=minute)).isoformat(),
        run=Run(runId=run_id or str(uuid.uuid4())),
        job=Job(namespace=NS, name=f"sales_dag.{task}"),
        producer=PRODUCER,
        inputs=[InputDataset(namespace="postgres://db:5432", name=f"shop.public.{task}_in")],
        outputs=[OutputDataset(namespace="postgres://db:5432", name=f"shop.public.{task}_out")],
    )


def _airflow_log(path: Path, events: list[RunEvent]) -> None:
    """A task log as Airflow writes it, the events logged by the real ConsoleTransport."""
    handler = logging.FileHandler(path, mode="a", encoding="utf-8")
    formatter = logging.Formatter(AIRFLOW_FORMAT, datefmt="%Y-%m-%d, %H:%M:%S UTC")
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    ol_logger = logging.getLogger("openlineage.client.transport.console")
    task_logger = logging.getLogger("airflow.task")
    for lg in (ol_logger, task_logger):
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)
        lg.propagate = False
    try:
        transport = ConsoleTransport(ConsoleConfig())
        task_logger.info("Dependencies all met for dep_context=non-requeueable deps ti=<TaskInstance: sales_dag.load>")
        for e in events:
            task_logger.info("Executing <Task(SQLExecuteQueryOperator): load> on 2026-11-24 10:00:00+00:00")
            transport.emit(e)
        task_logger.info("Marking task as SUCCESS. dag_id=sales_dag, task_id=load")
    finally:
        for lg in (ol_logger, task_logger):
            lg.removeHandler(handler)
        handler.close()


def _harvest(*args: str):
    return CliRunner().invoke(cli, ["harvest", "logs", "--quiet", *args], catch_exceptions=False)


def test_finds_events_in_every_shape(tmp_path: Path) -> None:
    events = [_event("extract", RunState.START, 0), _event("extract", RunState.COMPLETE, 1)]
    airflow = tmp_path / "attempt=1.log"
    _airflow_log(airflow, events)
    lines = airflow.read_text().splitlines()
    assert lines[1].startswith("[") and "{console.py:" in lines[2] and "} INFO - {" in lines[2]
    found = [e for line in lines for e in find_events(line)[0]]
    assert [e["run"]["runId"] for e in found] == [e.run.runId for e in events]

    jsonl = tmp_path / "events.jsonl"
    transport = FileTransport(FileConfig(log_file_path=str(jsonl), append=True))
    for e in events:
        transport.emit(e)
    assert [len(find_events(line)[0]) for line in jsonl.read_text().splitlines()] == [1, 1]

    text = Serde.to_json(events[0])
    envelope = json.dumps({"timestamp": "2026-11-24T10:00:00Z", "level": "info", "message": text})
    nested = json.dumps({"ts": 1, "payload": {"event": json.loads(text)}})
    prefixed_envelope = "2026-11-24 10:00:00 worker-1 " + json.dumps({"msg": f"INFO - {text}"})
    for line in (envelope, nested, prefixed_envelope):
        (event,) = find_events(line)[0]
        assert event["run"]["runId"] == events[0].run.runId
    cut = f"[2026-11-24, 10:00:00 UTC] {{console.py:29}} INFO - {text[:200]}"
    assert find_events(cut) == ([], find_events(cut)[1]) and find_events(cut)[1]
    assert find_events("INFO - nothing to see") == ([], None)


def test_sends_each_event_once_across_runs_rotation_and_truncation(served: str, tmp_path: Path) -> None:
    log = tmp_path / "task.log"
    state = tmp_path / "state.json"
    _airflow_log(log, [_event("load", RunState.START, 0), _event("load", RunState.COMPLETE, 1)])
    first = _harvest(str(log), "--url", served, "--state", str(state))
    assert first.exit_code == 0, first.stderr
    assert "2 events found, 2 sent, 0 already known, 0 rejected" in first.stderr
    again = _harvest(str(log), "--url", served, "--state", str(state))
    assert "0 events found" in again.stderr

    _airflow_log(log, [_event("load", RunState.COMPLETE, 5)])  # appended
    appended = _harvest(str(log), "--url", served, "--state", str(state))
    assert "1 events found, 1 sent" in appended.stderr

    # rotation: the file is renamed with two more events written before, a new file gets one
    _airflow_log(log, [_event("load", RunState.START, 6), _event("load", RunState.COMPLETE, 7)])
    log.rename(tmp_path / "task.log.1")
    _airflow_log(log, [_event("report", RunState.COMPLETE, 8)])
    rotated = _harvest(str(log), "--url", served, "--state", str(state))
    assert "3 events found, 3 sent, 0 already known" in rotated.stderr, rotated.stderr

    # truncation in place (copytruncate): the file starts again
    log.write_text("")
    _airflow_log(log, [_event("report", RunState.COMPLETE, 9)])
    truncated = _harvest(str(log), "--url", served, "--state", str(state))
    assert "1 events found, 1 sent, 0 already known" in truncated.stderr, truncated.stderr

    # a lost state file: everything again, all already known
    state.unlink()
    lost = _harvest(str(log), str(tmp_path / "task.log.1"), "--url", served, "--state", str(state))
    assert "already known" in lost.stderr and " 0 sent" in lost.stderr, lost.stderr

    runs = graph(served, "runs", nodeId=f"job:{NS}:sales_dag.load")
    assert len(runs["runs"]) == 5  # one run per event here (each made with its own runId)
    assert graph(served, "runs", nodeId=f"job:{NS}:sales_dag.report")["runs"]


def test_refused_events_are_reported_with_the_servers_reason_and_file_line(served: str, tmp_path: Path) -> None:
    good = Serde.to_json(_event("good", RunState.COMPLETE, 0))
    bad = json.loads(Serde.to_json(_event("bad", RunState.COMPLETE, 0)))
    bad["run"]["runId"] = "not-a-uuid"
    log = tmp_path / "mixed.jsonl"
    log.write_text(f"{good}\n{json.dumps(bad)}\n")
    result = _harvest(str(log), "--url", served, "--state", str(tmp_path / "s.json"))
    assert result.exit_code == 1
    assert "2 events found, 1 sent, 0 already known, 1 rejected" in result.stderr
    assert f"rejected {log}:2:" in result.stderr and "runId" in result.stderr


def test_stdin_prints_what_it_finds() -> None:
    text = Serde.to_json(_event("x", RunState.COMPLETE, 0))
    result = CliRunner().invoke(cli, ["harvest", "logs", "-q", "-"], input=f"noise\nINFO - {text}\n")
    assert result.exit_code == 0
    assert json.loads(result.stdout.splitlines()[0])["job"]["name"] == "sales_dag.x"


def test_follow_tails_a_growing_file_until_terminated(served: str, tmp_path: Path) -> None:
    log = tmp_path / "growing.log"
    _airflow_log(log, [_event("tail", RunState.START, 0)])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "headwater",
            "harvest",
            "logs",
            str(log),
            "--follow",
            "--interval",
            "0.1",
            "--url",
            served,
            "--state",
            str(tmp_path / "s.json"),
            "-q",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:

        def runs() -> int:
            answer = httpx.get(f"{served}/api/v1/graph/runs", params={"nodeId": f"job:{NS}:sales_dag.tail"})
            return len(answer.json().get("runs", [])) if answer.status_code == 200 else 0

        assert wait_until(lambda: runs() == 1, 30)
        for minute in (1, 2, 3):
            _airflow_log(log, [_event("tail", RunState.COMPLETE, minute)])
        assert wait_until(lambda: runs() == 4, 30)
        prefix = "[2026-11-24, 10:09:00 UTC] {console.py:29} INFO - "
        whole = prefix + Serde.to_json(_event("tail", RunState.COMPLETE, 4)) + "\n"
        split = prefix + Serde.to_json(_event("tail", RunState.COMPLETE, 9)) + "\n"
        cut = len(prefix) + (len(split) - len(prefix)) // 2  # inside the event's JSON
        with log.open("a") as f:  # one write: a complete line and half of the next one
            f.write(whole + split[:cut])
        # the pass that sends the complete line has read the half one behind it: it must leave it for later (read
        # as a line, neither half would be an event and the run would never arrive)
        assert wait_until(lambda: runs() == 5, 30)
        with log.open("a") as f:
            f.write(split[cut:])
        assert wait_until(lambda: runs() == 6, 30)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "6 events found, 6 sent, 0 already known, 0 rejected" in err


def test_a_folder_is_every_log_below_it_and_its_default_state_stays(
    served: str, tmp_path: Path, monkeypatch: Any
) -> None:
    """Airflow writes a task log per attempt in a tree (dag_id=/run_id=/task_id=/attempt=N.log): the folder is the
    argument, new attempts' logs are found on the next pass, and the default state file (named after the
    arguments) is the same one, so nothing is sent twice."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    tree = tmp_path / "logs"
    first = tree / "dag_id=sales_dag" / "run_id=manual__1" / "task_id=load" / "attempt=1.log"
    first.parent.mkdir(parents=True)
    _airflow_log(first, [_event("load", RunState.START, 0), _event("load", RunState.COMPLETE, 1)])
    (tree / ".hidden.log").write_text(Serde.to_json(_event("hidden", RunState.COMPLETE, 2)) + "\n")
    one = _harvest(str(tree), "--url", served)
    assert one.exit_code == 0, one.stderr
    assert "2 events found, 2 sent, 0 already known" in one.stderr, one.stderr

    second = tree / "dag_id=sales_dag" / "run_id=manual__1" / "task_id=report" / "attempt=1.log"
    second.parent.mkdir(parents=True)
    _airflow_log(second, [_event("report", RunState.COMPLETE, 3)])
    _airflow_log(first, [_event("load", RunState.COMPLETE, 4)])  # appended to the first
    two = _harvest(str(tree), "--url", served)
    assert "2 events found, 2 sent, 0 already known" in two.stderr, two.stderr
    assert len(list((tmp_path / "home" / ".headwater" / "harvest").glob("logs-*.json"))) == 1  # the same state

    assert graph(served, "runs", nodeId=f"job:{NS}:sales_dag.report")["runs"]
    not_a_path = _harvest(str(tmp_path / "missing"), "--url", served)
    assert not_a_path.exit_code == 2 and "is not a file or a folder" in not_a_path.stderr
