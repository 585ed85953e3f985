"""DataZone's ListLineageNodeHistory on a dataset with many versions: one page of 50, with and without ``direction``.

    python bench/datazone_history.py                      # 200 versions, 5 rounds, SQLite
    python bench/datazone_history.py --versions 1000 --rounds 9

A dataset gets a column more with every run (one version each); the page is asked over HTTP (the app in
process) and timed, the median of the rounds printed and written to ``bench/results/datazone_history.json``.
Compare two checkouts by running the command with each one's ``src`` first on ``PYTHONPATH``, alternately
(docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store

PRODUCER = "https://github.com/headwater/bench"
NAMESPACE, NAME = "postgres://db:5432", "shop.public.t"
PATH = "/v2/domains/dzd_bench/lineage/nodes/postgres%3A%2F%2Fdb%3A5432%2Fshop.public.t/history"


def event(i: int) -> dict[str, object]:
    """The i-th load of the table: one column more than the one before (a new dataset version)."""
    when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=i)
    schema = {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json",
        "fields": [{"name": f"c{j}", "type": "string"} for j in range(i + 1)],
    }
    return {
        "eventType": "COMPLETE",
        "eventTime": when.isoformat().replace("+00:00", "Z"),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "bench", "name": "load"},
        "inputs": [],
        "outputs": [{"namespace": NAMESPACE, "name": NAME, "facets": {"schema": schema}}],
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--versions", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(f"sqlite:///{tmp}/headwater.db")
        app = create_app(load_settings({}, environ={}), store, bind_host="127.0.0.1")
        client = TestClient(app, base_url="http://127.0.0.1")
        for start in range(0, args.versions, 500):
            batch = [event(i) for i in range(start, min(start + 500, args.versions))]
            answer = client.post("/api/v1/lineage/batch", json=batch)
            assert answer.status_code == 200, answer.text
        store.catch_up()
        out: dict[str, float | int] = {"versions": args.versions}
        for label, params in (("page_ms", {"maxResults": "50"}), ("direction_page_ms", {"direction": "UPSTREAM"})):
            times = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                answer = client.get(PATH, params=params)
                times.append(time.perf_counter() - t)
                assert answer.status_code == 200 and len(answer.json()["nodes"]) == min(50, args.versions)
            out[label] = round(statistics.median(times) * 1000, 1)
        store.close()
    print(json.dumps(out))
    results = Path(__file__).resolve().parent / "results"
    results.mkdir(exist_ok=True)
    (results / "datazone_history.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
