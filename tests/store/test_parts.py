"""The derived texts as content-addressed parts (store/parts.py, migration 0013): the same values back, each
distinct value stored once.

- an observation's values, packed and read back, are the values given (key order, non-ASCII, big integers,
  inline and parted members side by side), and a key that could be mistaken for a part is refused;
- a live store: a daily job's second and later runs add no part (their schemas, facets and column lineage are
  the first run's), the graph's answers read through the parts;
- a store converted by the migration: downgraded to 0011 every row is plain JSON again with the same values,
  upgraded again the rows are parts and the graph and every answer are what they were; ``headwater db compact``
  removes the parts a prune left unnamed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from databases import downgrade
from fixtures.stories.load import derived_state
from headwater.cli.db import command as db_command
from headwater.graph import GraphReader
from headwater.ingest.shared import share, unshare
from headwater.model.nodeid import parse_node_id
from headwater.store import IncomingEvent, Store, parts
from headwater.store.engine import create_store_engine
from headwater.store.migrate import upgrade
from headwater.store.schema import derived_parts, observations, runs

COLUMNS = [{"name": f"col_{c:02d}", "type": ("string", "long", "double")[c % 3]} for c in range(20)]


def _run_event(job: int, day: int, kind: str) -> dict[str, Any]:
    """A daily Spark-like run: the same 20-column schemas, SQL and column lineage every day."""
    src, dst = f"raw.src_{job}", f"warehouse.table_{job}"
    return {
        "eventType": kind,
        "eventTime": f"2026-02-{day:02d}T0{job}:{'00' if kind == 'START' else '30'}:00.000Z",
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": f"01940000-0000-7000-8000-{job:04d}{day:08d}", "facets": {}},
        "job": {
            "namespace": "daily",
            "name": f"load_{job}",
            "facets": {
                "sql": {
                    "query": f"INSERT INTO {dst} SELECT * FROM {src} WHERE day = current_date - 1 -- yesterday's rows, loaded every morning by the daily schedule"
                }
            },
        },
        "inputs": [{"namespace": "s3://lake", "name": src, "facets": {"schema": {"fields": COLUMNS}}}],
        "outputs": [
            {
                "namespace": "s3://lake",
                "name": dst,
                "facets": {
                    "schema": {"fields": COLUMNS},
                    "columnLineage": {
                        "fields": {
                            c["name"]: {"inputFields": [{"namespace": "s3://lake", "name": src, "field": c["name"]}]}
                            for c in COLUMNS
                        }
                    },
                },
            }
        ],
    }


def _days(job: int, first: int, last: int) -> list[IncomingEvent]:
    payloads = [_run_event(job, d, k) for d in range(first, last + 1) for k in ("START", "COMPLETE")]
    return [IncomingEvent(p, json.dumps(p)) for p in payloads]


def _back(text: str, found: dict[str, str]) -> Any:
    return parts.unpack_observations([text], lambda keys: {k: json.loads(found[k]) for k in keys})[0]


def test_an_observation_reads_back_as_given() -> None:
    data = {
        "namespace": "s3://lake",
        "fields": [{"name": "prénom", "type": "string", "n": 2**70}] * 4,
        "facets": {"small": {"a": 1}, "big": {"text": "x" * 200}, "also": "short"},
        "seen": ["a"],
        "empty": {},
        "dropped": False,
    }
    found: dict[str, str] = {}
    text = parts.pack_observation(data, found)
    stored = json.loads(text)
    assert list(stored) == ["namespace", "fields#", "facets#", "seen", "empty", "dropped"]
    assert stored["facets#"]["small"] == [{"a": 1}] and stored["facets#"]["also"] == ["short"]
    assert stored["facets#"]["big"] in found and stored["fields#"] in found and len(found) == 2
    back = _back(text, found)
    assert back == data and list(back) == list(data) and list(back["facets"]) == list(data["facets"])
    assert back["fields"][0]["n"] == 2**70

    # a run's observation: what every run says again is one part, the run id stays in the row, in its place
    ran = {"namespace": "s3://lake", "name": "t", "runId": "r-1", **{k: data[k] for k in ("fields", "facets")}}
    text = parts.pack_observation(ran, found)
    assert json.loads(text) == {"#": json.loads(text)["#"], "runId": "r-1"} and len(found) == 3
    back = _back(text, found)
    assert back == ran and list(back) == list(ran)
    again = parts.pack_observation({**ran, "runId": "r-2"}, found)
    assert len(found) == 3 and _back(again, found) == {**ran, "runId": "r-2"}

    # a run's own observation: the same with its event type (START, COMPLETE) in the row
    started = {
        "eventType": "START",
        "job": "job:n:" + "j" * 80,
        "jobFacets": {"big": {"text": "y" * 200}},
        "inputs": ["a"],
    }
    text = parts.pack_observation(started, found)
    assert json.loads(text) == {"#": json.loads(text)["#"], "eventType": "START"} and len(found) == 5
    completed = parts.pack_observation({**started, "eventType": "COMPLETE"}, found)
    assert len(found) == 5 and json.loads(completed)["#"] == json.loads(text)["#"]
    back = _back(completed, found)
    assert back == {**started, "eventType": "COMPLETE"} and list(back) == list(started)

    # a run's facets: a part, unless they name "tags" (the classification finds those runs by their text)
    facets = json.dumps({"parent": {"run": {"runId": "r-1"}, "job": {"namespace": "n", "name": "j" * 120}}})
    assert parts.pack_run_column("facets", facets, found) == "#" + parts.part_key(facets)
    tagged = json.dumps({"tags": {"tags": [{"key": "pii", "value": "true"}]}, "other": {"x": "z" * 200}})
    assert parts.pack_run_column("facets", tagged, found) == tagged
    assert parts.pack_run_column("job_facets", tagged, found) == "#" + parts.part_key(tagged)

    with pytest.raises(ValueError, match="may not end with '#'"):
        parts.pack_observation({"fields#": "x"}, {})
    assert parts.pack_column('{"short":1}', found) == '{"short":1}'
    long_text = json.dumps({"k": "v" * 300})
    assert parts.pack_column(long_text, found) == "#" + parts.part_key(long_text)


def test_a_daily_jobs_later_runs_add_no_part(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.append(_days(1, 1, 2))
        assert store.caught_up()
        with store.engine.connect() as conn:
            after_two = conn.scalar(sa.select(sa.func.count()).select_from(derived_parts))
            rows_after_two = conn.scalar(sa.select(sa.func.count()).select_from(observations))
        store.append(_days(1, 3, 9))
        assert store.caught_up()
        with store.engine.connect() as conn:
            # the schema (one text for both datasets), the SQL facet, the output's column lineage, the run's
            # job-facets and column-lineage columns, the rest of the input's and of the output's observations
            # (the job's is too short to be a part), and the rest of the run's (its event type apart, START and
            # COMPLETE say the same): eight parts, whatever the number of runs
            assert conn.scalar(sa.select(sa.func.count()).select_from(derived_parts)) == after_two == 8
            assert conn.scalar(sa.select(sa.func.count()).select_from(observations)) > rows_after_two
            lineage = conn.scalar(sa.select(runs.c.column_lineage).limit(1))
            assert lineage is not None and lineage.startswith("#")
        graph = GraphReader(store)
        dataset = graph.dataset(parse_node_id("dataset:s3://lake:warehouse.table_1"))
        assert [f["name"] for f in dataset["fields"]] == [c["name"] for c in COLUMNS]
        run = graph.run("01940000-0000-7000-8000-000100000009")
        assert run["state"] == "COMPLETE"
        history = graph.history(parse_node_id("dataset:s3://lake:warehouse.table_1"))
        assert history["versions"][0]["madeBy"]["jobName"] == "load_1"  # type: ignore[typeddict-item]


def _plain_observations(store_url: str) -> list[tuple[str, int, str, Any]]:
    engine = create_store_engine(store_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.select(observations.c.node, observations.c.event_seq, observations.c.role, observations.c.data)
            )
            return sorted((r.node, r.event_seq, r.role, json.loads(r.data)) for r in rows)
    finally:
        engine.dispose()


def test_the_migration_converts_a_store_both_ways(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.append(_days(1, 1, 3) + _days(2, 1, 3))
        assert store.caught_up()
        graph = GraphReader(store)
        table = parse_node_id("dataset:s3://lake:warehouse.table_2")
        answers = (graph.dataset(table), graph.history(table), graph.lineage(table, depth=3))
        state = derived_state(store)
        with store.engine.connect() as conn:
            rows = conn.execute(
                sa.select(observations.c.node, observations.c.event_seq, observations.c.role, observations.c.data)
            ).all()
            values = sorted((r.node, r.event_seq, r.role, parts.read_observation(conn, r.data)) for r in rows)
            lineage = {r.run_id: parts.read_column(conn, r.column_lineage) for r in conn.execute(sa.select(runs))}
        assert any("#" in r.data for r in rows)

    engine = create_store_engine(store_url)
    try:
        downgrade(engine, "0012")
        assert not sa.inspect(engine).has_table("derived_parts")
        with engine.connect() as conn:
            plain = {r.run_id: r.column_lineage for r in conn.execute(sa.select(runs.c.run_id, runs.c.column_lineage))}
    finally:
        engine.dispose()
    assert _plain_observations(store_url) == values  # every value back as plain JSON, no part named
    assert {k: json.loads(v) for k, v in plain.items()} == lineage

    engine = create_store_engine(store_url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    with Store.open(store_url) as store:
        assert derived_state(store) == state  # the same rows as a store that wrote parts from the start
        graph = GraphReader(store)
        assert (graph.dataset(table), graph.history(table), graph.lineage(table, depth=3)) == answers
        store.rebuild()
        assert derived_state(store) == state


def test_compact_removes_the_parts_no_row_names(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.append(_days(1, 1, 2))
        store.append(_days(3, 5, 6))  # another job: its own SQL, schema text and lineage
        assert store.caught_up()
        newest = store.list_events(limit=1)[0][0]
        assert store.prune(newest.event_time).runs == 3  # job 1's two runs and job 3's first
        with store.engine.connect() as conn:
            stored = set(conn.scalars(sa.select(derived_parts.c.key)))
            unnamed = stored - parts.named_keys(conn)
        assert unnamed  # the pruned runs' job-facets and column-lineage texts (their samples keep the values)
    result = CliRunner().invoke(db_command, ["compact", "--db", store_url, "--no-train"])
    assert result.exit_code == 0, result.output
    assert f"{len(unnamed)} part(s) no row names removed" in result.output
    with Store.open(store_url) as store:
        with store.engine.connect() as conn:
            assert set(conn.scalars(sa.select(derived_parts.c.key))) == stored - unnamed == parts.named_keys(conn)
        state = derived_state(store)
        store.rebuild()
        assert derived_state(store) == state


def test_a_runs_columns_made_of_shared_values_are_stored_as_for_equal_copies(store_url: str) -> None:
    """A run's facets, job facets and column lineage whose members are shared values (the facet cache's facets, the
    observation memo's answers) have their text and part key remembered: a second run with the very same objects is
    stored with the same texts, and so is a run with equal copies that share nothing; a facets text naming "tags"
    stays inline; short texts stay inline."""
    edges = [{"src": "dataset:s3://lake:src", "srcField": "a", "dstField": "a", "transformations": []}] * 3
    sql = {"query": "SELECT a FROM src -- " + "x" * 120}
    tags = {"tags": [{"key": "pii", "value": "true"}], "note": "t" * 150}
    for value in (edges, sql, tags):
        share(value)

    def run(run_id: str, lineage: object, job_sql: object, run_tags: object) -> dict[str, Any]:
        return {
            "run_id": run_id,
            "job": "job:daily:load",
            "state": "COMPLETE",
            "started_at": 1,
            "ended_at": 2,
            "updated_at": 2,
            "error_message": None,
            "stack_trace": None,
            "parent_run_id": None,
            "parent_job": None,
            "facets": {"tags": run_tags},
            "job_facets": {"sql": job_sql},
            "inputs": ["dataset:s3://lake:src"],
            "outputs": [],
            "column_lineage": {"dataset:s3://lake:dst": lineage},
        } | {"content_hash": "0" * 64}

    try:
        engine = create_store_engine(store_url)
        try:
            with engine.begin() as conn:
                parts.insert_runs(conn, [run("r1", edges, sql, tags), run("r2", edges, sql, tags)])
                copied = run("r3", json.loads(json.dumps(edges)), dict(sql), json.loads(json.dumps(tags)))
                parts.insert_runs(conn, [copied, run("r4", [], {}, {})])
            with engine.connect() as conn:
                stored = {r.run_id: r for r in conn.execute(sa.select(runs))}
                lineage_text = (
                    '{"dataset:s3://lake:dst":['
                    + ",".join(
                        ['{"src":"dataset:s3://lake:src","srcField":"a","dstField":"a","transformations":[]}'] * 3
                    )
                    + "]}"
                )
                sql_text = '{"sql":{"query":"SELECT a FROM src -- ' + "x" * 120 + '"}}'
                for run_id in ("r1", "r2", "r3"):
                    row = stored[run_id]
                    assert row.column_lineage == "#" + parts.part_key(lineage_text)
                    assert row.job_facets == "#" + parts.part_key(sql_text)
                    assert row.facets == '{"tags":{"tags":[{"key":"pii","value":"true"}],"note":"' + "t" * 150 + '"}}'
                    assert row.inputs == '["dataset:s3://lake:src"]' and row.outputs == "[]"
                    assert parts.read_column(conn, row.column_lineage) == {"dataset:s3://lake:dst": edges}
                    assert parts.read_column(conn, row.job_facets) == {"sql": sql}
                short = stored["r4"]
                assert (short.facets, short.job_facets, short.column_lineage) == (
                    '{"tags":{}}',
                    '{"sql":{}}',
                    '{"dataset:s3://lake:dst":[]}',
                )
        finally:
            engine.dispose()
    finally:
        for value in (edges, sql, tags):
            unshare(value)


def test_the_remembered_object_texts_stay_bounded() -> None:
    """The texts of objects made of shared values are kept within their count and size (the oldest go first; a
    text over the limit is answered, not kept), and every answer is the object's own text and key."""
    values = [{"text": c * 200} for c in "abcd"]
    for value in values:
        share(value)
    try:
        texts = parts._ObjectTexts()
        texts.SIZE, texts.MAX_BYTES, texts.MAX_TEXT = 2, 500, 300
        for value in values[:3]:
            expected = '{"x":{"text":"' + value["text"] + '"}}'  # 217 characters
            assert texts.of({"x": value}) == (expected, parts.part_key(expected))
        assert len(texts._known) == 2 and texts._size == 434
        assert ("x", id(values[0])) not in texts._known and ("x", id(values[2])) in texts._known  # the oldest went
        wide = {"x": values[3], "y": values[0]}  # 433 characters: over MAX_TEXT, answered but not kept
        text, key = texts.of(wide)
        assert json.loads(text) == {"x": values[3], "y": values[0]} and key == parts.part_key(text)
        assert len(texts._known) == 2 and texts._size == 434
    finally:
        for value in values:
            unshare(value)
