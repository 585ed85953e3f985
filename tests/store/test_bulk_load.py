"""``headwater db load``: an events file (NDJSON, one event per line) into the store.

A small file written by hand, with two bad lines among three good ones: the bad lines are reported with their
number, code and reason (and listed in the rejects file), the exit code says the load was not whole, the
graph holds what the good events say (column lineage written out by hand), and a second run finds every good
event in the log already. The story's events loaded in bulk from a gzip file give the very derived rows that
the same events posted one by one over real HTTP give.
"""

from __future__ import annotations

import gc
import gzip
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
import zstandard
from click.testing import CliRunner

from databases import pg_database
from fixtures.stories.load import derived_state, story
from headwater.api import create_app
from headwater.cli import cli
from headwater.graph import GraphReader
from headwater.ingest.accept import Policy
from headwater.model.nodeid import parse_node_id
from headwater.settings import load_settings
from headwater.store import IncomingEvent, Store, codec
from headwater.store.bulkload import load_file
from headwater.store.eventlog import prepare
from headwater.store.parts import part_key, parts_of
from headwater.store.schema import derived_parts, events
from live_server import ThreadServer

PRODUCER = "https://example.com/loader-test"
RUN_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
JSON = {"Content-Type": "application/json"}
LINEAGE = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"


def _event(run: str, job: str, source: str, target: str, pairs: dict[str, str], minute: int) -> dict[str, Any]:
    """A COMPLETE run of ``job`` reading ``source`` and writing ``target``; ``pairs``: target column <- source column."""
    fields = {
        out: {"inputFields": [{"namespace": "file", "name": source, "field": src, "transformations": []}]}
        for out, src in pairs.items()
    }
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-03-01T10:{minute:02d}:00Z",
        "producer": PRODUCER,
        "schemaURL": RUN_SCHEMA,
        "run": {"runId": run},
        "job": {"namespace": "loads", "name": job},
        "inputs": [{"namespace": "file", "name": source}],
        "outputs": [
            {
                "namespace": "file",
                "name": target,
                "facets": {"columnLineage": {"_producer": PRODUCER, "_schemaURL": LINEAGE, "fields": fields}},
            }
        ],
    }


FIRST = _event("01930000-0000-7000-8000-0000000000a1", "stage", "/in/a", "/out/b", {"z": "x", "y": "y"}, 1)
SECOND = _event("01930000-0000-7000-8000-0000000000a2", "report", "/out/b", "/out/c", {"w": "z"}, 2)
NO_TIME = {
    k: v for k, v in _event("01930000-0000-7000-8000-0000000000a3", "x", "/a", "/b", {}, 3).items() if k != "eventTime"
}
THIRD = _event("01930000-0000-7000-8000-0000000000a4", "copy", "/out/c", "/out/d", {"w": "w"}, 4)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_small_file_loads_its_good_lines_and_lists_the_bad_ones(store_url: str, tmp_path: Path) -> None:
    events_file = _write(
        tmp_path / "history.ndjson",
        [json.dumps(FIRST), "", '{"eventType": "START", ', json.dumps(NO_TIME), json.dumps(SECOND), json.dumps(THIRD)],
    )
    runner = CliRunner()
    result = runner.invoke(cli, ["db", "load", str(events_file), "--db", store_url, "--workers", "1"])
    assert result.exit_code == 1, result.output  # not everything in the file was loaded: said by the exit code
    assert "5 non-blank line(s) read: 3 event(s) appended, 0 already in the log, 2 rejected" in result.output
    assert "line 3: invalid_json: request body is not valid JSON" in result.output
    assert "line 4: invalid_event: " in result.output and "eventTime" in result.output
    listed = [json.loads(line) for line in (tmp_path / "history.ndjson.rejects.jsonl").read_text().splitlines()]
    assert [(r["line"], r["code"]) for r in listed] == [(3, "invalid_json"), (4, "invalid_event")]
    assert "eventTime" in listed[1]["reason"]

    with Store.open(store_url) as store:
        answer = GraphReader(store).column_lineage(
            parse_node_id("datasetField:file:/out/d:w"), direction="upstream", depth=10
        )
    edges = {(e["source"], e["target"], e["job"]) for e in answer["edges"]}
    assert edges == {
        ("datasetField:file:/out/c:w", "datasetField:file:/out/d:w", "job:loads:copy"),
        ("datasetField:file:/out/b:z", "datasetField:file:/out/c:w", "job:loads:report"),
        ("datasetField:file:/in/a:x", "datasetField:file:/out/b:z", "job:loads:stage"),
    }
    levels = {n["id"]: n["level"] for n in answer["nodes"]}
    assert levels == {
        "datasetField:file:/out/d:w": 0,
        "datasetField:file:/out/c:w": -1,
        "datasetField:file:/out/b:z": -2,
        "datasetField:file:/in/a:x": -3,
    }

    packed = tmp_path / "history.ndjson.zst"  # the same lines zstd-compressed: the same events, all loaded already
    packed.write_bytes(zstandard.ZstdCompressor().compress(events_file.read_bytes()))
    again = runner.invoke(cli, ["db", "load", str(packed), "--db", store_url, "--workers", "0"])
    assert again.exit_code == 1, again.output
    assert "5 non-blank line(s) read: 0 event(s) appended, 3 already in the log, 2 rejected" in again.output

    stop = runner.invoke(cli, ["db", "load", str(events_file), "--db", store_url, "--workers", "0", "--stop-at-error"])
    assert stop.exit_code == 1 and "stopped at line 3" in stop.output, stop.output
    assert "2 non-blank line(s) read: 0 event(s) appended, 1 already in the log, 1 rejected" in stop.output


def test_bulk_load_gives_the_graph_of_one_by_one_http_ingest(store_url: str, tmp_path: Path) -> None:
    events = story()
    bulk_file = tmp_path / "story.ndjson.gz"
    with gzip.open(bulk_file, "wt", encoding="utf-8") as out:
        for e in reversed(events):  # another order than the posts: the graph does not depend on it
            out.write(json.dumps(e) + "\n")
    loaded = CliRunner().invoke(cli, ["db", "load", str(bulk_file), "--db", store_url, "--batch", "3"])
    assert loaded.exit_code == 0, loaded.output
    assert f"{len(events)} event(s) appended" in loaded.output

    settings = load_settings({"parse_processes": 0}, environ={})
    with (
        Store.open(f"sqlite:///{tmp_path / 'http.db'}") as posted,
        ThreadServer(create_app(settings, posted)) as server,
    ):
        for e in events:
            answer = httpx.post(f"{server.url}/api/v1/lineage", content=json.dumps(e), headers=JSON, timeout=30)
            assert answer.status_code in (200, 201), answer.text
        expected = derived_state(posted)
    with Store.open(store_url) as store:
        assert derived_state(store) == expected
        assert store.projection_status().failed == 0


def _layered_events() -> list[dict[str, Any]]:
    """24 jobs in two layers, each reading two tables and writing two with a 7-column lineage, then 8 of them run
    again a day later reading another table (their versions and edges change), and 4 run a third time unchanged."""
    events: list[dict[str, Any]] = []
    columns = [f"c{i}" for i in range(7)]

    def run(n: int, job: int, sources: list[str], targets: list[str], day: int) -> dict[str, Any]:
        lineage = {
            col: {
                "inputFields": [
                    {"namespace": "s3://lake", "name": src, "field": columns[(i + k) % 7], "transformations": []}
                    for k, src in enumerate(sources)
                ]
            }
            for i, col in enumerate(columns)
        }
        schema = {"fields": [{"name": c, "type": "string"} for c in columns]}
        return {
            "eventType": "COMPLETE",
            "eventTime": f"2026-03-{day:02d}T10:{n // 60:02d}:{n % 60:02d}Z",
            "producer": PRODUCER,
            "schemaURL": RUN_SCHEMA,
            "run": {"runId": f"01930000-0000-7000-8000-{n:012d}"},
            "job": {"namespace": "layers", "name": f"job{job}"},
            "inputs": [{"namespace": "s3://lake", "name": s} for s in sources],
            "outputs": [
                {
                    "namespace": "s3://lake",
                    "name": t,
                    "facets": {
                        "schema": {"_producer": PRODUCER, "_schemaURL": LINEAGE, **schema},
                        "columnLineage": {"_producer": PRODUCER, "_schemaURL": LINEAGE, "fields": lineage},
                    },
                }
                for t in targets
            ],
        }

    plan = []
    for job in range(24):
        layer = job // 12
        sources = [f"l{layer}/t{(job * 2) % 24}", f"l{layer}/t{(job * 2 + 5) % 24}"]
        plan.append((job, sources, [f"l{layer + 1}/t{job * 2 % 24}", f"l{layer + 1}/t{(job * 2 + 1) % 24}"]))
    n = 0
    for job, sources, targets in plan:
        events.append(run(n := n + 1, job, sources, targets, 1))
    for job, sources, targets in plan[::3]:  # another input: a new version, edges and column edges
        events.append(run(n := n + 1, job, [sources[0], "l0/extra"], targets, 2))
    for job, sources, targets in plan[::6]:  # the same again: no new version
        events.append(run(n := n + 1, job, [sources[0], "l0/extra"], targets, 3))
    return events


def test_bulk_steps_give_the_graph_of_events_appended_one_by_one_and_of_a_rebuild(
    store_url: str, tmp_path: Path
) -> None:
    """Steps that derive many new jobs and datasets at once, rewrite several jobs' versions at once and insert
    hundreds of column edges in one statement give the rows that one event at a time gives, and a rebuild."""
    events = _layered_events()
    path = _write(tmp_path / "layers.ndjson", [json.dumps(e) for e in events])
    # one step of all 36 events (every job's first and later runs together) into the store under test; steps of 9
    # (the later runs apart: several jobs' versions rewritten in one step) into a SQLite file
    small = f"sqlite:///{tmp_path / 'small.db'}"
    for url, batch in ((store_url, "36"), (small, "9")):
        loaded = CliRunner().invoke(cli, ["db", "load", str(path), "--db", url, "--batch", batch, "--workers", "0"])
        assert loaded.exit_code == 0, loaded.output
        assert f"{len(events)} event(s) appended" in loaded.output
    with Store.open(store_url) as store:
        bulk = derived_state(store)
        with store.engine.connect() as conn:  # 24 jobs x 2 outputs x 7 columns x 2 inputs, at least
            assert conn.execute(sa.text("SELECT count(*) FROM column_edges")).scalar_one() >= 24 * 2 * 7 * 2
        store.rebuild()
        assert derived_state(store) == bulk
    with Store.open(small) as store:
        assert derived_state(store) == bulk
    with Store.open(f"sqlite:///{tmp_path / 'one.db'}") as one:
        for e in events:
            one.append([IncomingEvent(payload=e, raw=json.dumps(e))])
            assert one.caught_up(30)
        assert derived_state(one) == bulk


def test_a_sqlite_load_leaves_its_connections_with_sqlites_defaults_and_the_wal_checkpointed(tmp_path: Path) -> None:
    """The load's own settings (a big page cache, rare checkpoints) end with it: a connection of the same store
    afterwards has SQLite's defaults (cache_size -2000, wal_autocheckpoint 1000), the WAL is back in the file, and
    the garbage collector is on again with its thresholds, nothing left out of its sight."""
    path = _write(tmp_path / "three.ndjson", [json.dumps(e) for e in (FIRST, SECOND, THIRD)])
    database = tmp_path / "load.db"
    settings = load_settings({}, environ={})
    thresholds = gc.get_threshold()
    with Store.open(f"sqlite:///{database}", background=False) as store:
        report = load_file(
            store, path, Policy.from_settings(settings), max_bytes=int(settings.max_body_bytes), workers=0
        )
        assert (report.appended, report.derived) == (3, 3)
        assert gc.get_threshold() == thresholds and gc.isenabled() and gc.get_freeze_count() == 0
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA main.cache_size").scalar_one() == -2000
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one() == 1000
            assert conn.execute(sa.text("SELECT count(*) FROM column_edges")).scalar_one() == 4
        assert database.with_name("load.db-wal").stat().st_size == 0


def test_a_sqlite_load_derives_on_one_connection_that_keeps_its_big_page_cache_from_step_to_step(
    tmp_path: Path,
) -> None:
    """The steps of a SQLite load find the pages the steps before them read: every step's write transaction is
    on one connection, and that connection is handed out each time with the load's page cache (1 GiB, written
    out here) as the step before left it, not shrunk back to SQLite's 2 MB (which empties the cache) nor
    stale (another connection's commit in between makes SQLite drop it)."""
    path = _write(tmp_path / "many.ndjson", [json.dumps(e) for e in _jobs(0, 40)])
    settings = load_settings({}, environ={})
    handed: list[tuple[int, int]] = []  # (connection, its cache_size as the pool hands it out, before the load's own)
    graph_writes: list[int] = []  # the connection of each write transaction of the graph's file

    def checkout(dbapi: Any, _record: Any, _proxy: Any) -> None:
        handed.append((id(dbapi), dbapi.execute("PRAGMA main.cache_size").fetchone()[0]))

    def begin(conn: sa.Connection) -> None:
        if conn.get_execution_options().get("hw_write") == "graph":
            graph_writes.append(id(conn.connection.dbapi_connection))

    with Store.open(f"sqlite:///{tmp_path / 'load.db'}", background=False) as store:
        sa.event.listen(store.engine, "checkout", checkout)
        sa.event.listen(store.engine, "begin", begin)
        report = load_file(
            store,
            path,
            Policy.from_settings(settings),
            max_bytes=int(settings.max_body_bytes),
            workers=0,
            batch=10,
            step=4,
        )
        sa.event.remove(store.engine, "checkout", checkout)
    assert (report.appended, report.derived) == (40, 40)
    assert len(graph_writes) >= 10  # a step of 4 at most: ten steps or more
    assert len(set(graph_writes)) == 1
    big: set[int] = set()  # the connections handed out with the load's cache once
    for connection, cache_size in handed:
        if connection in big:  # and every time after: as the load left it
            assert cache_size == -(1 << 20), handed
        if cache_size == -(1 << 20):
            big.add(connection)
    assert big == set(graph_writes)


# the indexes a load into an empty SQLite store makes at its end, written out here (not read from the code)
DEFERRED = {
    "ix_column_edges_src",
    "ix_column_edges_dst",
    "ix_fields_dataset",
    "ix_dataset_fields_field",
    "ix_edges_dataset_at",
}


def _deferred_indexes(database: Path) -> set[str]:
    with sa.create_engine(f"sqlite:///{database}").connect() as conn:
        rows = conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'index'")
        return {name for (name,) in rows} & DEFERRED


def _two_loads(
    url: str, tmp_path: Path, first: list[dict[str, Any]], during: Callable[[], set[str]], after: Callable[[], None]
) -> list[set[str]]:
    """Load ``first`` into the new store at ``url``, then one more event: what ``during`` sees of the store at each
    derivation step, and ``{"after"}`` after each load once ``after`` has checked the store."""
    path = _write(tmp_path / "three.ndjson", [json.dumps(e) for e in first])
    more = _write(
        tmp_path / "more.ndjson",
        [json.dumps(_event("01930000-0000-7000-8000-0000000000b9", "copy_again", "/out/d", "/out/e", {"w": "w"}, 9))],
    )
    settings = load_settings({}, environ={})
    seen: list[set[str]] = []
    with Store.open(url, background=False) as store:
        for file in (path, more):
            load_file(
                store,
                file,
                Policy.from_settings(settings),
                max_bytes=int(settings.max_body_bytes),
                workers=0,
                progress=lambda p: seen.append(during()) if p.phase == "derive" else None,
            )
            after()
            seen.append({"after"})
    return seen


def _first_with_schema() -> dict[str, Any]:
    """:data:`FIRST` with a schema on its output, so that the dataset fields' table gets rows too."""
    [output] = FIRST["outputs"]
    schema = {"_producer": PRODUCER, "_schemaURL": SCHEMA, "fields": [{"name": "z"}, {"name": "y"}]}
    return {**FIRST, "outputs": [{**output, "facets": {**output["facets"], "schema": schema}}]}


def test_a_load_into_an_empty_sqlite_store_makes_the_readers_indexes_at_its_end_and_an_open_repairs_a_killed_one(
    tmp_path: Path,
) -> None:
    """Into an empty SQLite store the two column-edge indexes, the fields' by dataset, the dataset fields' by
    name and the edges' by dataset are not there while the load derives (seen from another connection at each
    step) and are there after it; a second load into the now non-empty store keeps them all along. A store left without them (as a load
    killed half-way leaves it) has them again once opened, and the lookups they serve use them."""
    database = tmp_path / "load.db"

    def all_there() -> None:
        assert _deferred_indexes(database) == DEFERRED

    seen = _two_loads(
        f"sqlite:///{database}",
        tmp_path,
        [_first_with_schema(), SECOND, THIRD],
        lambda: _deferred_indexes(database),
        all_there,
    )
    both = DEFERRED
    assert seen == [set(), {"after"}, both, {"after"}]
    with sa.create_engine(f"sqlite:///{database}").connect() as conn:  # the tables they index hold rows
        for table in ("column_edges", "fields", "dataset_fields", "edges"):
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar_one() > 0, table

    with sa.create_engine(f"sqlite:///{database}").begin() as conn:  # what a load killed half-way leaves
        for name in sorted(both):
            conn.exec_driver_sql(f"DROP INDEX {name}")
    assert _deferred_indexes(database) == set()
    lookups = {
        "ix_column_edges_dst": "SELECT job FROM column_edges WHERE dst_field_id = 1",
        "ix_column_edges_src": "SELECT job FROM column_edges WHERE src_field_id = 1",
        "ix_fields_dataset": "SELECT id FROM fields WHERE dataset = 'dataset:x:y'",
        "ix_dataset_fields_field": "SELECT dataset FROM dataset_fields WHERE field = 'a'",
        "ix_edges_dataset_at": "SELECT job FROM edges WHERE dataset = 'dataset:x:y' AND valid_to IS NULL",
    }
    with Store.open(f"sqlite:///{database}", background=False) as store:
        with store.engine.connect() as conn:
            plans = {
                name: " ".join(str(r[-1]) for r in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"))
                for name, sql in lookups.items()
            }
    assert _deferred_indexes(database) == both
    for name, plan in plans.items():
        assert name in plan, (name, plan)


# the name search's FTS5 tables and triggers (migration 0003), written out here
NAME_SEARCH = {
    "datasets_name_trgm",
    "datasets_name_trgm_insert",
    "datasets_name_trgm_delete",
    "datasets_name_trgm_update",
    "jobs_name_trgm",
    "jobs_name_trgm_insert",
    "jobs_name_trgm_delete",
    "jobs_name_trgm_update",
}


def _name_search(database: Path) -> dict[str, str]:
    """The name search's schema objects (and FTS5's own tables behind them): name -> SQL."""
    with sa.create_engine(f"sqlite:///{database}").connect() as conn:
        rows = conn.exec_driver_sql("SELECT name, sql FROM sqlite_master WHERE name LIKE '%name_trgm%'")
        return {name: sql for name, sql in rows}


def _found_by_search(database: Path) -> tuple[set[str], set[str]]:
    """The dataset names with ``out/`` and the job names with ``cop`` the trigram index finds, after FTS5's check
    that the index holds exactly the tables' names."""
    with sa.create_engine(f"sqlite:///{database}").connect() as conn:
        found = []
        for table, q in (("datasets", "out/"), ("jobs", "cop")):
            fts = f"{table}_name_trgm"
            conn.exec_driver_sql(f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')")
            rows = conn.exec_driver_sql(
                f"SELECT t.name FROM {fts} f JOIN {table} t ON t.rowid = f.rowid WHERE {fts} MATCH ?", (f'"{q}"',)
            )
            found.append({name for (name,) in rows})
        return found[0], found[1]


def test_a_load_into_an_empty_sqlite_store_makes_the_name_search_at_its_end_and_an_open_repairs_a_killed_one(
    tmp_path: Path,
) -> None:
    """Into an empty SQLite store the name search's trigram tables and their triggers are not there while the load
    derives (search scans the names meanwhile) and are there after it, as a fresh store's migration made them,
    holding every name; a second load into the non-empty store keeps them all along. A store left with them moved
    aside (as a load killed half-way leaves it) has them again, holding every name, once opened."""
    fresh = tmp_path / "fresh.db"
    Store.open(f"sqlite:///{fresh}", background=False).close()
    schema = _name_search(fresh)
    assert set(schema) >= NAME_SEARCH

    database = tmp_path / "load.db"

    def as_fresh() -> None:
        assert _name_search(database) == schema

    seen = _two_loads(
        f"sqlite:///{database}",
        tmp_path,
        [FIRST, SECOND, THIRD],
        lambda: set(_name_search(database)) & NAME_SEARCH,
        as_fresh,
    )
    assert seen == [set(), {"after"}, NAME_SEARCH, {"after"}]
    assert _found_by_search(database) == ({"/out/b", "/out/c", "/out/d", "/out/e"}, {"copy", "copy_again"})

    with sa.create_engine(f"sqlite:///{database}").begin() as conn:  # what a load killed half-way leaves
        for table in ("datasets", "jobs"):
            for trigger in ("insert", "delete", "update"):
                conn.exec_driver_sql(f"DROP TRIGGER {table}_name_trgm_{trigger}")
            conn.exec_driver_sql(f"ALTER TABLE {table}_name_trgm RENAME TO {table}_name_trgm_load")
        conn.exec_driver_sql(  # a dataset the load added after: the index made again holds it too
            "INSERT INTO datasets (id, namespace, name, kind, created_at, updated_at, deleted) "
            "VALUES ('dataset:file:/out/f', 'file', '/out/f', 'file', 1, 1, 0)"
        )
    assert not set(_name_search(database)) & NAME_SEARCH
    Store.open(f"sqlite:///{database}", background=False).close()
    assert _name_search(database) == schema
    assert _found_by_search(database) == ({"/out/b", "/out/c", "/out/d", "/out/e", "/out/f"}, {"copy", "copy_again"})


# PostgreSQL: the same readers' indexes, and the name search's trigram indexes (migration 0003, with their pending
# list off: migration 0014), written out here
PG_AT_END = DEFERRED | {"ix_datasets_name_trgm", "ix_jobs_name_trgm"}


def _pg_indexes(url: str) -> dict[str, str]:
    """The indexes of :data:`PG_AT_END` the database at ``url`` has: name -> definition (with its options)."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
            ).all()
    finally:
        engine.dispose()
    return {name: definition for name, definition in rows if name in PG_AT_END}


@pytest.mark.postgres
def test_a_load_into_an_empty_postgresql_store_makes_its_indexes_at_its_end_as_the_migrations_made_them(
    pg_server_url: str, tmp_path: Path
) -> None:
    """Into an empty PostgreSQL store the readers' indexes and the name search's trigram indexes are not there while
    the load derives (seen from another connection at each step) and are there after it, each defined as a fresh
    store's migrations defined it (the trigram indexes with ``fastupdate`` off); a second load into the non-empty
    store keeps them all along. A store left without them (as a load killed half-way leaves it) has them again
    once opened, and name search finds what it found before."""
    with pg_database(pg_server_url, migrated=True) as url:
        fresh = _pg_indexes(url)
        assert set(fresh) == PG_AT_END
        assert all("fastupdate=off" in fresh[f"ix_{t}_name_trgm"] for t in ("datasets", "jobs"))

        def as_fresh() -> None:
            assert _pg_indexes(url) == fresh

        seen = _two_loads(url, tmp_path, [_first_with_schema(), SECOND, THIRD], lambda: set(_pg_indexes(url)), as_fresh)
        with Store.open(url, background=False) as store:
            found = _search(store)
        assert seen == [set(), {"after"}, PG_AT_END, {"after"}]
        assert found == ({"/out/b", "/out/c", "/out/d", "/out/e"}, {"copy", "copy_again"})

        engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
        with engine.begin() as conn:  # what a load killed half-way leaves
            for name in sorted(PG_AT_END):
                conn.exec_driver_sql(f"DROP INDEX {name}")
        engine.dispose()
        assert _pg_indexes(url) == {}
        with Store.open(url, background=False) as store:
            assert _pg_indexes(url) == fresh
            assert _search(store) == found


def _search(store: Store) -> tuple[set[str], set[str]]:
    """The dataset names with ``out/`` and the job names with ``cop`` the store's name search finds."""
    reader = GraphReader(store)
    datasets = {parse_node_id(r["id"]).name for r in reader.search("out/", types=("dataset",))["results"]}
    jobs = {parse_node_id(r["id"]).name for r in reader.search("cop", types=("job",))["results"]}
    return datasets, jobs


def _jobs(first: int, count: int) -> list[dict[str, Any]]:
    return [
        _event(f"01930000-0000-7000-8000-{i:012x}", f"job_{i}", f"/in/{i}", f"/out/{i}", {"a": "x", "b": "y"}, i % 60)
        for i in range(first, first + count)
    ]


def test_the_workers_compress_with_the_stores_newest_dictionary_and_an_older_form_is_compressed_again(
    store_url: str, tmp_path: Path
) -> None:
    """A load's workers (their code run in this process here) compress each event's text and each derived part
    with the store's newest zstd dictionary (number 1, trained here on 120 events already in the log): every row
    the load wrote names dictionary 1 and reads back as the line or part it came from. A stored form made ahead
    without a dictionary (as the tasks handed out before the store's first training make it) is compressed again
    with the newest when it is inserted, its text unchanged."""
    loaded = _jobs(1000, 3)
    path = _write(tmp_path / "three.ndjson", [json.dumps(e) for e in loaded])
    settings = load_settings({}, environ={})
    with Store.open(store_url, background=False) as store:
        store.append([IncomingEvent(payload=e, raw=json.dumps(e)) for e in _jobs(0, 120)])
        trained = codec.train(store.engine)
        assert (trained.new, trained.dictionary) == (True, 1)
        report = load_file(
            store, path, Policy.from_settings(settings), max_bytes=int(settings.max_body_bytes), workers=0
        )
        assert (report.appended, report.derived, report.rejected) == (3, 123, [])

        late = {**loaded[0], "run": {"runId": "01930000-0000-7000-8000-0000000000f1"}}
        text = json.dumps(late)
        ahead = prepare([IncomingEvent(payload=late, raw=text)])[0]
        old_form = codec.Encoder(0, None).encode(text)
        assert old_form.dictionary == 0 and old_form.body is not None
        [result] = store.append_prepared([replace(ahead, row={**ahead.row, **old_form.columns()})])
        part_text = json.dumps({"a part long enough to be kept": "x" * 200})
        with store.engine.connect().execution_options(hw_write="graph") as conn, conn.begin():
            parts_of(store.engine).write(conn, {part_key(part_text): codec.Encoder(0, None).encode(part_text)})

        with store.engine.connect() as conn:
            rows = conn.execute(sa.select(events.c.id, *codec.TEXT_COLUMNS).order_by(events.c.seq)).all()
            assert [r.dictionary for r in rows] == [0] * 120 + [1] * 4  # the 120 were stored before the training
            assert [codec.text(conn, r) for r in rows[120:]] == [json.dumps(e) for e in loaded] + [text]
            assert rows[123].id == result.id
            parts = conn.execute(sa.select(derived_parts)).all()
            assert len(parts) > 3 and {p.dictionary for p in parts} == {1}
            assert all(part_key(codec.text(conn, p)) == p.key for p in parts)  # each reads back as its own text
            assert part_key(part_text) in {p.key for p in parts}


def test_a_load_collects_each_step_s_cycles_once_and_freezes_what_lives_on() -> None:
    """In the load the collector is off; after each step what was made since the step before is collected (a
    cycle made then is freed) and what lives on is out of the collector's sight; at the end it is on again,
    nothing frozen."""
    import weakref

    from headwater.store.bulkload import _collected_per_step

    class Node:
        other: Node

    assert gc.isenabled()
    with _collected_per_step() as collect:
        assert not gc.isenabled()
        kept = [Node() for _ in range(10)]
        cycle = Node()
        cycle.other = cycle
        gone = weakref.ref(cycle)
        del cycle
        churn = [[] for _ in range(100_000)]  # enough new objects for many young collections, were it on
        del churn
        assert gone() is not None  # nothing collects on its own while the load runs
        collect()
        assert gone() is None  # the step's cycle was freed
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept)  # what lives on is out of the collector's sight
    assert gc.isenabled() and gc.get_freeze_count() == 0
