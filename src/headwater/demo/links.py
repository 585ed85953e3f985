"""Where the demo's result is: the node id of a dataset in the server, and its page in the web UI."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlencode

import httpx

from headwater.model.nodeid import format_node_id

UI_DEPTH = 4  # employee_compensation ← job 2 ← employee_attendance ← job 1 ← the CSV files


def file_dataset_id(path: Path) -> str:
    """The node id of a local file or folder, per the OpenLineage naming spec (namespace ``file``, absolute path)."""
    return format_node_id("dataset", "file", str(path.resolve()))


FOCUS_COLUMN = "TotalCompensation"


def lineage_page_url(server_url: str, node_id: str, column: str | None = FOCUS_COLUMN, depth: int = UI_DEPTH) -> str:
    """The web UI's page of a dataset (route ``/asset``, ui/src/model/urlState.ts): lineage tab, deep
    enough for the whole HR pipeline, ``column`` selected, so the page opens with that column's path
    highlighted from the source files. Short: the UI opens the asset's own columns by itself and reads a
    bare column name as a column of the asset (``col=TotalCompensation``)."""
    query = [("node", node_id), ("depth", str(depth))]
    if column:
        query.append(("col", column))
    return f"{server_url.rstrip('/')}/asset?{urlencode(query)}"


def history_page_url(server_url: str, node_id: str) -> str:
    """The web UI's History tab of a node (``/asset?node=...&tab=history``)."""
    return f"{server_url.rstrip('/')}/asset?{urlencode([('node', node_id), ('tab', 'history')])}"


def wait_for_node(server_url: str, node_id: str, *, timeout_s: float = 30.0) -> dict[str, object]:
    """Poll ``GET /api/v1/graph/node`` until the server knows ``node_id``; returns the node.

    The jobs' lineage is delivered when each job ends, so the node is normally there at once;
    the wait covers a delivery that is retried from the agent's spool.
    Raises ``TimeoutError`` naming the node when it does not appear, at once when the server
    answers anything but 200 or 404.
    """
    deadline = time.monotonic() + timeout_s
    last = ""
    with httpx.Client(base_url=server_url, timeout=10.0) as client:
        while True:
            try:
                answer = client.get("/api/v1/graph/node", params={"nodeId": node_id})
                if answer.status_code == 200:
                    node: dict[str, object] = answer.json()
                    return node
                if answer.status_code != 404:  # anything but "not there yet" will not get better by waiting
                    raise TimeoutError(
                        f"the server at {server_url} answered HTTP {answer.status_code} for "
                        f"{node_id}: {answer.text[:300]}"
                    )
                last = f"HTTP {answer.status_code}: {answer.text[:300]}"
            except httpx.HTTPError as exc:
                last = str(exc)
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"the server at {server_url} does not know {node_id} after {timeout_s:.0f} s ({last})"
                )
            time.sleep(0.5)
