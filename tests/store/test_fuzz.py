"""Random small pipelines in random arrival orders (single and small batches) give exactly the graph
of a rebuild: a property test of the projector's fast and full paths (SQLite; the same SQL runs on
PostgreSQL, which test_invariants covers with the story)."""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import pytest

from headwater.store import Store
from fixtures.stories.load import derived_state, incoming

P = "https://example.com/fuzz"


def f(**b: Any) -> dict[str, Any]:
    return {"_producer": P, "_schemaURL": P + "/s.json", **b}


def gen(rng: random.Random) -> list[dict[str, Any]]:
    """3-12 runs of 3 jobs over 5 datasets (random schemas, docs, column lineage, event types and
    times, often equal), a few DatasetEvents (DROP/CREATE) and JobEvents."""
    evs: list[dict[str, Any]] = []
    ds = [f"/d{i}" for i in range(5)]
    for _ in range(rng.randint(3, 12)):
        job = f"j{rng.randint(0, 2)}"
        run = str(uuid.UUID(int=rng.getrandbits(128)))
        t0 = rng.randint(0, 50)
        ins = rng.sample(ds, rng.randint(0, 2))
        outs = rng.sample(ds, rng.randint(0, 2))
        def d(n: str, cl: bool = False) -> dict[str, Any]:
            facets: dict[str, Any] = {}
            if rng.random() < 0.6:
                facets["schema"] = f(fields=[{"name": c, "type": rng.choice(["int", "string"])} for c in rng.sample("abc", rng.randint(1, 3))])
            if rng.random() < 0.3:
                facets["documentation"] = f(description=rng.choice(["x", "y"]))
            if cl and ins and rng.random() < 0.7:
                facets["columnLineage"] = f(fields={"a": {"inputFields": [{"namespace": "file", "name": rng.choice(ins), "field": rng.choice("abc"),
                                                                          "transformations": [{"type": rng.choice(["DIRECT", "INDIRECT"])}]}]}})
            return {"namespace": "file", "name": n, "facets": facets}
        sql = rng.choice(["q1", "q2"])
        for et in rng.sample(["START", "RUNNING", "COMPLETE"], rng.randint(1, 3)):
            evs.append({"eventType": et, "eventTime": f"2026-01-01T00:{t0 + rng.randint(0, 3):02d}:00Z", "producer": P,
                        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
                        "run": {"runId": run}, "job": {"namespace": "ns", "name": job, "facets": {"sql": f(query=sql)}},
                        "inputs": [d(n) for n in ins if rng.random() < 0.8], "outputs": [d(n, True) for n in outs if rng.random() < 0.8]})
    for _ in range(rng.randint(0, 3)):
        evs.append({"eventTime": f"2026-01-01T00:{rng.randint(0, 55):02d}:00Z", "producer": P,
                    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
                    "dataset": {"namespace": "file", "name": rng.choice(ds), "facets": {"lifecycleStateChange": f(lifecycleStateChange=rng.choice(["DROP", "CREATE"]))}}})
    for _ in range(rng.randint(0, 2)):
        evs.append({"eventTime": f"2026-01-01T00:{rng.randint(0, 55):02d}:00Z", "producer": P,
                    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
                    "job": {"namespace": "ns", "name": f"j{rng.randint(0, 2)}"}, "inputs": [{"namespace": "file", "name": rng.choice(ds)}], "outputs": []})
    return evs


@pytest.mark.parametrize("seed", range(12))
def test_random_pipelines_any_order(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    events = gen(rng)
    with Store.open(f"sqlite:///{tmp_path / 'ref.db'}") as ref:
        ref.append(incoming(events))
        ref.rebuild()
        expected = derived_state(ref)
    for trial in range(2):
        order = rng.sample(events, len(events))
        with Store.open(f"sqlite:///{tmp_path / f'order{trial}.db'}") as store:
            i = 0
            while i < len(order):
                n = rng.choice([1, 1, 2, 4])
                store.append(incoming(order[i:i + n]))
                i += n
            assert derived_state(store) == expected, f"seed {seed}, order {trial}"
