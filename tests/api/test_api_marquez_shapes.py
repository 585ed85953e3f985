"""The pure Marquez mappings, input -> expected output."""

from __future__ import annotations

from headwater.api.marquez_shapes import to_marquez_column_lineage, to_marquez_lineage, to_marquez_run

DS_A, DS_B, JOB = "dataset:file:/a", "dataset:file:/b", "job:spark:j"


def node(id_: str, type_: str) -> dict[str, object]:
    ns, name = id_.split(":", 2)[1:]
    return {"id": id_, "type": type_, "namespace": ns, "name": name, "fields": [], "updatedAt": "2026-11-10T10:00:00Z"}


def test_lineage_edges_become_in_and_out_edges() -> None:
    answer = {
        "nodes": [node(DS_A, "DATASET"), node(JOB, "JOB"), node(DS_B, "DATASET")],
        "edges": [
            {"id": "1", "source": DS_A, "target": JOB, "type": "INPUT", "via": []},
            {"id": "2", "source": JOB, "target": DS_B, "type": "OUTPUT", "via": []},
        ],
    }
    graph = {n["id"]: n for n in to_marquez_lineage(answer)["graph"]}
    assert graph[DS_A]["inEdges"] == [] and graph[DS_A]["outEdges"] == [{"origin": DS_A, "destination": JOB}]
    assert graph[JOB]["inEdges"] == [{"origin": DS_A, "destination": JOB}]
    assert graph[JOB]["data"]["inputs"] == [{"namespace": "file", "name": "/a"}]
    assert graph[JOB]["data"]["outputs"] == [{"namespace": "file", "name": "/b"}]
    assert graph[DS_B]["data"]["type"] == "DB_TABLE" and graph[DS_B]["data"]["sourceName"] == "file"


def test_run_states_map_to_marquez_states() -> None:
    expected = {
        "START": "RUNNING",
        "RUNNING": "RUNNING",
        "COMPLETE": "COMPLETED",
        "FAIL": "FAILED",
        "ABORT": "ABORTED",
        "OTHER": "RUNNING",
    }
    for ours, theirs in expected.items():
        run = to_marquez_run({"runId": "r", "job": JOB, "state": ours, "inputs": [DS_A], "outputs": [DS_B]})
        assert run is not None and run["state"] == theirs
        assert run["jobVersion"] == {"namespace": "spark", "name": "j", "version": None}
        assert run["inputDatasetVersions"][0]["datasetVersionId"] == {
            "namespace": "file",
            "name": "/a",
            "version": None,
        }
    assert to_marquez_run(None) is None


def test_column_lineage_keeps_field_edges_and_drops_dataset_level_ones() -> None:
    src, dst = "datasetField:file:/a:x", "datasetField:file:/b:y"
    answer = {
        "nodes": [
            {"id": src, "namespace": "file", "name": "/a", "field": "x", "type": "int"},
            {"id": dst, "namespace": "file", "name": "/b", "field": "y", "type": "int"},
        ],
        "edges": [
            {
                "source": src,
                "target": dst,
                "job": JOB,
                "transformations": [{"type": "DIRECT", "subtype": "IDENTITY", "description": None}],
            },
            {"source": src, "target": DS_B, "job": JOB, "transformations": [{"type": "INDIRECT"}]},
        ],
    }
    graph = {n["id"]: n for n in to_marquez_column_lineage(answer)["graph"]}
    assert graph[dst]["data"]["inputFields"][0]["dataset"] == "/a"
    assert graph[dst]["data"]["inputFields"][0]["field"] == "x"
    assert graph[dst]["data"]["transformationType"] == "DIRECT"
    assert graph[src]["outEdges"] == [{"origin": src, "destination": dst}]
    assert graph[src]["data"]["inputFields"] == []
