"""collapseJobs over HTTP: the HR story's DAG stands for its tasks; job details name parent and children."""

from __future__ import annotations

import httpx
import pytest

from fixtures.stories.load import COMP, DAG, J1, J2, story

pytestmark = pytest.mark.anyio


async def test_collapse_jobs_and_job_family(client: httpx.AsyncClient) -> None:
    assert (await client.post("/api/v1/lineage/batch", json=story())).status_code == 200
    plain = (
        await client.get("/api/v1/graph/lineage", params={"nodeId": COMP, "direction": "upstream", "depth": 4})
    ).json()
    assert {J1, J2} <= {n["id"] for n in plain["nodes"]} and DAG not in {n["id"] for n in plain["nodes"]}
    answer = await client.get(
        "/api/v1/graph/lineage", params={"nodeId": COMP, "direction": "upstream", "depth": 4, "collapseJobs": "true"}
    )
    assert answer.status_code == 200, answer.text
    nodes = {n["id"]: n for n in answer.json()["nodes"]}
    assert J1 not in nodes and J2 not in nodes and nodes[DAG]["children"] == [J1, J2]
    dag = (await client.get("/api/v1/graph/node", params={"nodeId": DAG})).json()
    assert dag["children"] == [J1, J2] and dag["parent"] is None
    task = (await client.get("/api/v1/graph/node", params={"nodeId": J2})).json()
    assert task["parent"] == DAG and task["children"] == []
    bad = await client.get("/api/v1/graph/lineage", params={"nodeId": COMP, "collapseJobs": "sometimes"})
    assert bad.status_code == 400 and "collapseJobs" in bad.text
