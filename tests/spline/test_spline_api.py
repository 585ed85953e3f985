"""The Spline producer API over real HTTP: status headers, plans and events of the Spark agent's shape
(recorded fixtures: join + filter + aggregate to files, union to a catalog table with a hash and a
failed run), the lineage read back, idempotency, errors with JSON paths, gzip and tokens."""

from __future__ import annotations

import gzip
import json

import httpx
from spline_helpers import READ, V12, WRITE, Served, fixture

from headwater.model.naming import jdbc_dataset, path_dataset

PLAN1 = "3f2a9c1e-7b4d-5e8f-9a01-2b3c4d5e6f70"
PLAN2 = "9b8c7d6e-5f4a-5b3c-8d2e-1f0a9b8c7d6e"


def post(
    s: Served, what: str, body: object, *, gz: bool = False, media: str = V12, token: str | None = None
) -> httpx.Response:
    data = json.dumps(body).encode()
    headers = {"Content-Type": media}
    if gz:
        data = gzip.compress(data)
        headers["Content-Encoding"] = "gzip"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return s.http.post(f"/spline/producer/{what}", content=data, headers=headers)


def node(ns: str, name: str) -> str:
    return f"dataset:{ns}:{name}"


def test_status_answers_the_headers_the_spark_agent_reads(served: Served) -> None:
    for method in ("HEAD", "GET"):
        answer = served.http.request(method, "/spline/producer/status")
        assert answer.status_code == 200, answer.text
        assert answer.headers.get_list("ABSA-Spline-API-Version") == ["1.2", "1.1"]
        assert answer.headers.get_list("ABSA-Spline-API-LTS-Version") == ["1.2", "1.1"]
        assert answer.headers["ABSA-Spline-Accept-Request-Encoding"] == "gzip"


def test_join_aggregate_plan_and_event_become_lineage(served: Served) -> None:
    answer = post(served, "execution-plans", fixture("join_aggregate_to_file.plan.json"), gz=True)
    assert answer.status_code == 201, answer.text
    assert answer.json() == PLAN1
    answer = post(served, "execution-events", fixture("join_aggregate_to_file.events.json"), gz=True)
    assert answer.status_code == 201, answer.text
    assert answer.json()["stored"] == 2

    out = path_dataset("file:/data/out/dept_salary")
    employees = path_dataset("file:/data/hr/employees.csv")
    departments = path_dataset("file:/data/hr/departments.csv")
    graph = served.http.get(
        "/api/v1/graph/lineage", params={"nodeId": node(*out), "direction": "upstream", "depth": 4, "columns": "true"}
    ).json()
    ids = {n["id"] for n in graph["nodes"]}
    job = "job:spline:hr_payroll.insert_into_hadoop_fs_relation_command.dept_salary"
    assert {node(*out), node(*employees), node(*departments), job} <= ids
    edges = {
        (e["source"], e["target"], tuple(t["subtype"] for t in e["transformations"])) for e in graph["columnEdges"]
    }
    total = f"datasetField:{out[0]}:{out[1]}:total_salary"
    name = f"datasetField:{out[0]}:{out[1]}:dept_name"
    salary = f"datasetField:{employees[0]}:{employees[1]}:salary"
    assert (salary, total, ("AGGREGATION", "FILTER")) in edges or (salary, total, ("FILTER", "AGGREGATION")) in edges
    kinds = {(src, tgt): set(t) for src, tgt, t in edges}
    assert kinds[(f"datasetField:{departments[0]}:{departments[1]}:dept_name", name)] == {"IDENTITY", "GROUP_BY"}
    assert "JOIN" in kinds[(f"datasetField:{employees[0]}:{employees[1]}:dept_id", total)]
    assert "JOIN" in kinds[(f"datasetField:{departments[0]}:{departments[1]}:dept_id", total)]

    runs = served.http.get("/api/v1/graph/runs", params={"nodeId": job}).json()["runs"]
    assert len(runs) == 1
    run = runs[0]
    assert run["state"] == "COMPLETE"
    assert run["durationMs"] == 2500
    assert run["endedAt"].startswith("2025-11-24T19:20:00.123")
    schema = served.http.get("/api/v1/graph/node", params={"nodeId": node(*out)}).json()["fields"]
    assert [(f["name"], f["type"]) for f in schema] == [("dept_name", "string"), ("total_salary", "double")]

    # the raw payloads: the plan as received, the event inside the OpenLineage events it became
    raw_plan = served.http.get(f"/spline/producer/execution-plans/{PLAN1}")
    assert raw_plan.status_code == 200
    assert raw_plan.json() == fixture("join_aggregate_to_file.plan.json")
    events = served.http.get("/api/v1/events", params={"nodeId": job}).json()["events"]
    assert {e["event"]["run"]["facets"]["spline_event"]["event"]["timestamp"] for e in events} == {1764012000123}
    assert {e["event"]["job"]["facets"]["spline"]["planId"] for e in events} == {PLAN1}


def test_union_to_table_with_a_failed_run(served: Served) -> None:
    assert post(served, "execution-plans", fixture("union_to_table.plan.json")).status_code == 201
    assert post(served, "execution-events", fixture("union_to_table.events.json")).status_code == 201
    table = path_dataset("file:/tmp/spark-warehouse/hr.db/all_people")  # a catalog table is named by its location
    staff = path_dataset("s3a://hr-bucket/staff/year=2025/month=01")
    contractors = jdbc_dataset("jdbc:postgresql://db.example:5432/hr", "contractors")
    assert staff == ("s3://hr-bucket", "staff") and contractors == (
        "postgres://db.example:5432",
        "hr.public.contractors",
    )
    details = served.http.get("/api/v1/graph/node", params={"nodeId": node(*table)}).json()
    assert details["facets"]["symlinks"]["identifiers"] == [
        {"namespace": "file:/tmp/spark-warehouse", "name": "hr.all_people", "type": "TABLE"}
    ]
    graph = served.http.get(
        "/api/v1/graph/lineage", params={"nodeId": node(*table), "direction": "upstream", "columns": "true"}
    ).json()
    assert {node(*staff), node(*contractors)} <= {n["id"] for n in graph["nodes"]}
    edges = {(e["source"], e["target"]): e["transformations"] for e in graph["columnEdges"]}
    for source in (staff, contractors):
        assert (
            edges[(f"datasetField:{source[0]}:{source[1]}:name", f"datasetField:{table[0]}:{table[1]}:name")][0][
                "subtype"
            ]
            == "IDENTITY"
        )
        hashed = edges[
            (f"datasetField:{source[0]}:{source[1]}:email", f"datasetField:{table[0]}:{table[1]}:email_hash")
        ]
        assert [(t["subtype"], t["masking"]) for t in hashed] == [("TRANSFORMATION", True)]
    job = "job:spline:people_union.create_data_source_table_as_select_command.all_people"
    run = served.http.get("/api/v1/graph/runs", params={"nodeId": job}).json()["runs"][0]
    assert run["state"] == "FAIL"
    assert run["errorMessage"] == "org.apache.spark.SparkException: Job aborted due to stage failure"


def test_a_resent_plan_or_event_is_stored_once(served: Served) -> None:
    plan = fixture("join_aggregate_to_file.plan.json")
    events = fixture("join_aggregate_to_file.events.json")
    assert post(served, "execution-plans", plan).status_code == 201
    first = post(served, "execution-events", events).json()
    assert post(served, "execution-plans", plan, gz=True).status_code == 201
    again = post(served, "execution-events", events, gz=True).json()
    assert again["ids"] == first["ids"] and again["duplicates"] == 2 and again["stored"] == 0
    assert len(served.store.list_events(limit=100)[0]) == 2
    changed = {**plan, "name": "another_app"}
    conflict = post(served, "execution-plans", changed)
    assert conflict.status_code == 409 and conflict.json()["error"]["code"] == "conflict"


def test_bad_payloads_answer_4xx_naming_the_path(served: Served) -> None:
    plan = fixture("join_aggregate_to_file.plan.json")
    del plan["operations"]["write"]["outputSource"]
    plan["operations"]["other"][0]["childIds"] = ["op-99"]
    plan["attributes"][5]["childRefs"] = [{"__exprId": "expr-missing"}]
    answer = post(served, "execution-plans", plan)
    assert answer.status_code == 422
    paths = {d["path"] for d in answer.json()["error"]["details"]}
    assert paths == {
        "$.operations.write.outputSource",
        "$.operations.other[0].childIds[0]",
        "$.attributes[5].childRefs[0]",
    }

    answer = post(served, "execution-events", [{"planId": "not-a-uuid", "timestamp": "yesterday"}])
    assert answer.status_code == 422
    assert {d["path"] for d in answer.json()["error"]["details"]} == {"$[0].planId", "$[0].timestamp"}
    answer = post(served, "execution-events", [{"planId": "00000000-0000-0000-0000-000000000001", "timestamp": 1}])
    assert answer.status_code == 422 and answer.json()["error"]["details"][0]["path"] == "$[0].planId"
    assert post(served, "execution-plans", plan, media="application/json").status_code == 415
    assert (
        post(served, "execution-plans", plan, media="application/vnd.absa.spline.producer.v9+json").status_code == 415
    )
    broken = served.http.post("/spline/producer/execution-plans", content=b"{not json", headers={"Content-Type": V12})
    assert broken.status_code == 400 and broken.json()["error"]["code"] == "invalid_json"
    assert served.http.get("/spline/producer/execution-plans/00000000-0000-0000-0000-000000000002").status_code == 404
    assert served.store.list_events(limit=10)[0] == []


def test_tokens_are_honoured(guarded: Served) -> None:
    plan = fixture("join_aggregate_to_file.plan.json")
    assert guarded.http.head("/spline/producer/status").status_code == 401
    assert guarded.http.head("/spline/producer/status", headers={"Authorization": f"Bearer {WRITE}"}).status_code == 200
    assert post(guarded, "execution-plans", plan).status_code == 401
    assert post(guarded, "execution-plans", plan, token=READ).status_code == 403
    assert post(guarded, "execution-plans", plan, token=WRITE).status_code == 201
    url = f"/spline/producer/execution-plans/{PLAN1}"
    assert guarded.http.get(url).status_code == 401
    assert guarded.http.get(url, headers={"Authorization": f"Bearer {READ}"}).status_code == 200


def test_plans_wait_for_the_projector_s_writes(served: Served) -> None:
    """A plan is kept while the projector derives the events posted before it: on SQLite the plan's
    transaction (a read, then an insert) must queue behind that writer, never fail with 'database is
    locked' (a 500)."""
    import uuid

    plan, events = fixture("join_aggregate_to_file.plan.json"), fixture("join_aggregate_to_file.events.json")
    for i in range(120):
        plan_id = str(uuid.uuid4())
        answer = post(served, "execution-plans", {**plan, "id": plan_id})
        assert answer.status_code == 201, (i, answer.text)
        sent = [{**e, "planId": plan_id, "timestamp": e["timestamp"] + i} for e in events]
        assert post(served, "execution-events", sent).status_code == 201, i
    assert len(served.store.list_events(limit=1000)[0]) == 120 * 2  # each execution event: a START and a COMPLETE


def test_a_project_member_s_spline_lineage_is_the_project_s_from_the_start(guarded: Served) -> None:
    """A catalog user who sends for one project: the execution's datasets are that project's inventory when they
    arrive (docs/catalog.md, "Events and projects"), hidden from a reader of no project."""
    admin = {"Authorization": f"Bearer {WRITE}"}
    http = guarded.http
    assert http.post("/api/v1/catalog/domains", json={"id": "hr"}, headers=admin).status_code == 201
    assert (
        http.post("/api/v1/catalog/projects", json={"id": "payroll", "domain": "hr"}, headers=admin).status_code == 201
    )
    token = http.post("/api/v1/catalog/users", json={"id": "pat"}, headers=admin).json()["token"]
    member = http.put("/api/v1/catalog/projects/payroll/members/pat", json={"role": "contributor"}, headers=admin)
    assert member.status_code == 200
    assert post(guarded, "execution-plans", fixture("join_aggregate_to_file.plan.json"), token=token).status_code == 201
    sent = post(guarded, "execution-events", fixture("join_aggregate_to_file.events.json"), token=token)
    assert sent.status_code == 201, sent.text
    out = node(*path_dataset("file:/data/out/dept_salary"))
    for who, status in ((READ, 404), (token, 200)):
        seen = http.get("/api/v1/graph/node", params={"nodeId": out}, headers={"Authorization": f"Bearer {who}"})
        assert seen.status_code == status, seen.text
    runs = http.get("/api/v1/catalog/projects/payroll/source-runs", headers={"Authorization": f"Bearer {token}"})
    reported = {(i["dataset"], i["action"]) for r in runs.json()["runs"] for i in r["items"]}
    assert (out, "added") in reported, reported
