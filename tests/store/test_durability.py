"""An acknowledged append survives kill -9 of the process right after ``append`` returns.

This shows the append is committed before it answers; it cannot show that the commit was synced (the
killed process's writes stay in the kernel's page cache). test_fsync_before_ack.py checks the sync."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import uuid

from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id
from headwater.store import Store

CHILD = textwrap.dedent("""
    import json, sys, time
    from headwater.store import IncomingEvent, Store
    store = Store.open(sys.argv[1])
    for line in sys.stdin:
        event = json.loads(line)
        result = store.append([IncomingEvent(event, line.strip())])[0]
        print(result.id, flush=True)  # the acknowledgement
    time.sleep(600)
""")


def event(i: int) -> dict:
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-04-01T10:00:{i:02d}Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "ns", "name": f"job{i}"},
        "outputs": [{"namespace": "file", "name": f"/out/{i}"}],
    }


def test_acknowledged_events_survive_kill_9(store_url: str) -> None:
    Store.open(store_url).close()  # migrate first, so the child only appends
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, store_url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert child.stdin is not None and child.stdout is not None
    acked: list[str] = []
    try:
        for i in range(3):
            child.stdin.write(json.dumps(event(i)) + "\n")
            child.stdin.flush()
            acked.append(child.stdout.readline().strip())
        os.kill(child.pid, signal.SIGKILL)  # at once, right after the last acknowledgement
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    with Store.open(store_url) as store:
        for eid in acked:
            stored = store.get_event(eid)
            assert stored is not None, f"acknowledged event {eid} was lost"
        assert GraphReader(store).node(parse_node_id("dataset:file:/out/2"))["id"] == "dataset:file:/out/2"
