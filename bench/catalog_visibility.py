"""What the catalog's visibility policy costs a graph answer (docs/catalog.md, "Cost").

    python bench/catalog_visibility.py [--datasets 2000] [--rounds 15] [--db sqlite|postgresql://...]

Loads a chain of ``--datasets`` datasets (job i reads d_i and writes d_i+1, two columns each) through the
producers' one door (embedded), makes every other dataset an inventory asset of one project (the
catalog's ingest-time claim), then times graph answers read as an admin (no policy) and as an anonymous
reader (policy applied: half the datasets and every job hidden), the median of ``--rounds`` each.
``--db``: a PostgreSQL server URL makes a fresh database on it (dropped afterwards).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from headwater.catalog import Catalog
from headwater.catalog.access import ADMIN
from headwater.client import StoreClient
from headwater.graph import ANONYMOUS, GraphReader
from headwater.ingest import Door, Policy
from headwater.model.nodeid import NodeRef
from headwater.spec import EventValidator
from headwater.store import Store

SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"


def event(i: int) -> dict[str, Any]:
    fields = [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}]
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-20T00:00:00Z",
        "producer": "https://bench.test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, str(i)))},
        "job": {"namespace": "etl", "name": f"job_{i}"},
        "inputs": [{"namespace": "wh", "name": f"d_{i}"}],
        "outputs": [
            {
                "namespace": "wh",
                "name": f"d_{i + 1}",
                "facets": {"schema": {"_producer": "https://bench.test", "_schemaURL": SCHEMA, "fields": fields}},
            }
        ],
    }


def run(url: str, n: int, rounds: int) -> None:
    store = Store.open(url)
    try:
        events = [event(i) for i in range(n)]
        StoreClient(store).send(events)
        graph = GraphReader(store)
        catalog = Catalog(store, graph, Door(Policy(), EventValidator()))
        catalog.organisation.create_domain(ADMIN, "dom", "", "")
        catalog.organisation.create_project(ADMIN, "p", "dom", "", "")
        catalog.source_runs.claim_outputs(ADMIN.with_context("p"), "p", [e for i, e in enumerate(events) if i % 2 == 0])
        store.catch_up()
        anonymous = graph.viewing(ANONYMOUS)
        root = NodeRef("dataset", "wh", f"d_{n // 2}")
        cases: dict[str, Callable[[GraphReader], object]] = {
            "lineage depth 20": lambda g: g.lineage(root, depth=20),
            "impact": lambda g: g.impact(root, depth=20),
            "search 'd_1'": lambda g: g.search("d_1", limit=20),
            "datasets page": lambda g: g.datasets(limit=100),
            "namespaces": lambda g: g.namespaces(),
            "hidden set": lambda g: g.hidden(),
        }
        hidden = anonymous.hidden()
        print(f"{url.split(':')[0]}: {n + 1} datasets, {len(hidden.datasets)} hidden, {len(hidden.jobs)} jobs hidden")
        for name, case in cases.items():
            medians = []
            for reader in (graph, anonymous):
                times = []
                for _ in range(rounds):
                    start = time.perf_counter()
                    case(reader)
                    times.append(time.perf_counter() - start)
                medians.append(statistics.median(times) * 1000)
            print(f"  {name:17s} admin {medians[0]:7.1f} ms   anonymous {medians[1]:7.1f} ms")
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--datasets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--db", default="sqlite")
    args = parser.parse_args()
    if args.db == "sqlite":
        run(f"sqlite:///{tempfile.mkdtemp()}/catalog_bench.db", args.datasets, args.rounds)
        return
    from databases import pg_database

    with pg_database(args.db, prefix="hw_bench") as url:
        run(url, args.datasets, args.rounds)


if __name__ == "__main__":
    main()
