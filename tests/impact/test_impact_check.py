"""The impact check on the pipeline of pipeline.py (SQLite and PostgreSQL): what each kind of change breaks,
warns about or leaves alone, with paths written by hand from the SQL's meaning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pipeline import DATABASE, DIALECT, MART, NS, RAW, REPORT, STAGING, col, writer

from headwater.cli._dbt_changes import manifest_changes
from headwater.crawl.schemafile import read_schema_file
from headwater.graph import GraphReader
from headwater.graph.impactcheck import ImpactReport, ValuesChange
from headwater.model.changes import (
    DROP_COLUMN,
    DROP_DATASET,
    NEW_SCHEMA,
    RENAME_COLUMN,
    RETYPE_COLUMN,
    Change,
    SchemaField,
    change_from_json,
)
from headwater.sql.changes import ScriptError, script_changes
from headwater.store import Store


def sql_changes(text: str) -> list[Change]:
    return script_changes(text, dialect=DIALECT, namespace=NS, default_database=DATABASE, origin="pr.sql")


def check(store: Store, changes: list[Change]) -> ImpactReport:
    return GraphReader(store).impact_check(changes)


def by_id(report: ImpactReport) -> dict[str, tuple[str, str]]:
    return {i.id: (i.severity, i.effect) for i in report.items}


def test_dropping_a_column_read_three_hops_down_breaks_every_column_it_flows_into(
    store: Store, events: list[dict[str, Any]]
) -> None:
    j1, j2, j3 = writer(events, STAGING), writer(events, MART), writer(events, REPORT)
    report = check(store, sql_changes("ALTER TABLE raw.customers DROP COLUMN email;"))
    assert report.severity == "breaking"
    assert by_id(report) == {
        j1: ("breaking", "READS"),
        col(STAGING, "email"): ("breaking", "DIRECT"),
        STAGING: ("breaking", "DIRECT"),
        j2: ("breaking", "READS"),
        col(MART, "email"): ("breaking", "DIRECT"),
        MART: ("breaking", "DIRECT"),
        j3: ("breaking", "READS"),
        col(REPORT, "emails"): ("breaking", "DIRECT"),
        col(REPORT, "sample_email"): ("breaking", "DIRECT"),
        REPORT: ("breaking", "DIRECT"),
    }
    emails = next(i for i in report.items if i.id == col(REPORT, "emails"))
    assert emails.path == [col(RAW, "email"), j1, col(STAGING, "email"), j2, col(MART, "email"), j3, emails.id]
    # lower(), as is, count(): a count masks the value (model/column_lineage.py)
    assert emails.transformations == ["DIRECT/TRANSFORMATION", "DIRECT/IDENTITY", "DIRECT/AGGREGATION masked"]
    assert (emails.namespace, emails.name, emails.field, emails.depth) == (
        NS,
        "shop.reports.country_contacts",
        "emails",
        6,
    )
    assert report.changes[0].gone == [col(RAW, "email")]
    assert report.changes[0].change["origin"] == "pr.sql:1"
    assert report.summary == {
        "info": 0,
        "warning": 0,
        "breaking": 10,
        "datasets": 3,
        "jobs": 3,
        "fields": 4,
        "restricted": 0,
    }


def test_dropping_a_filter_column_breaks_its_reader_and_warns_downstream(
    store: Store, events: list[dict[str, Any]]
) -> None:
    j1, j2, j3 = writer(events, STAGING), writer(events, MART), writer(events, REPORT)
    report = check(store, sql_changes("ALTER TABLE raw.customers DROP COLUMN signup_date"))
    found = by_id(report)
    assert found.pop(j1) == ("breaking", "READS")  # its WHERE names the column
    assert found.pop(STAGING) == ("warning", "WRITTEN")  # written by a job that would fail
    staging_cols = {col(STAGING, c) for c in ("id", "email", "phone", "country")}
    mart_cols = {col(MART, c) for c in ("customer_id", "email", "phone_hash", "country")}
    report_cols = {col(REPORT, c) for c in ("country", "emails", "sample_email")}
    assert found == {
        **{c: ("warning", "INDIRECT") for c in staging_cols | mart_cols | report_cols | {MART, REPORT}},
        j2: ("warning", "READS"),
        j3: ("warning", "READS"),
    }
    assert report.severity == "breaking"


def test_renaming_a_column_nobody_reads_affects_nothing(store: Store) -> None:
    report = check(store, sql_changes("ALTER TABLE raw.customers RENAME COLUMN notes TO remarks;"))
    assert report.severity == "none" and report.items == []
    assert report.changes[0].found and report.changes[0].gone == [col(RAW, "notes")]
    assert report.changes[0].change["kind"] == RENAME_COLUMN


def test_retyping_warns_along_value_flows_through_a_hash(store: Store, events: list[dict[str, Any]]) -> None:
    j1, j2 = writer(events, STAGING), writer(events, MART)
    report = check(store, sql_changes("ALTER TABLE raw.customers ALTER COLUMN phone TYPE bigint"))
    assert by_id(report) == {
        j1: ("warning", "READS"),
        col(STAGING, "phone"): ("warning", "DIRECT"),
        STAGING: ("warning", "DIRECT"),
        j2: ("warning", "READS"),
        col(MART, "phone_hash"): ("warning", "DIRECT"),
        MART: ("warning", "DIRECT"),
    }
    phone_hash = next(i for i in report.items if i.id == col(MART, "phone_hash"))
    assert phone_hash.transformations == ["DIRECT/IDENTITY", "DIRECT/TRANSFORMATION masked"]
    assert report.changes[0].notes == ["column 'phone': TEXT -> BIGINT"]


def test_a_changed_script_is_compared_with_the_lineage_the_graph_holds(
    store: Store, events: list[dict[str, Any]]
) -> None:
    """The new staging script no longer writes phone and takes email from notes first."""
    j2, j3 = writer(events, MART), writer(events, REPORT)
    script = """CREATE OR REPLACE TABLE staging.customers AS
      SELECT id, coalesce(notes, email) AS email, country FROM raw.customers WHERE signup_date IS NOT NULL"""
    report = check(store, sql_changes(script))
    result = report.changes[0]
    assert result.gone == [col(STAGING, "phone")]
    assert result.values == [ValuesChange("email", [col(RAW, "email")], [col(RAW, "email"), col(RAW, "notes")])]
    assert by_id(report) == {
        j2: ("breaking", "READS"),  # reads the phone column that is no longer written
        col(MART, "phone_hash"): ("breaking", "DIRECT"),
        MART: ("breaking", "DIRECT"),
        col(MART, "email"): ("warning", "DIRECT"),  # its values change
        j3: ("warning", "READS"),
        col(REPORT, "emails"): ("warning", "DIRECT"),
        col(REPORT, "sample_email"): ("warning", "DIRECT"),
        REPORT: ("warning", "DIRECT"),
    }


def test_a_new_schema_document_and_a_dropped_dataset(store: Store, events: list[dict[str, Any]]) -> None:
    fields = tuple(
        SchemaField(n, t) for n, t in (("id", "INT"), ("email", "TEXT"), ("phone", "TEXT"), ("country", "VARCHAR(2)"))
    )
    report = check(
        store,
        [
            Change(NEW_SCHEMA, NS, "shop.raw.customers", fields=(*fields, SchemaField("region", "TEXT"))),
            Change(DROP_DATASET, NS, "shop.reports.country_contacts"),
        ],
    )
    schema, dropped = report.changes
    assert schema.gone == [col(RAW, "notes"), col(RAW, "signup_date")]
    assert schema.retyped == [col(RAW, "country")] and schema.added == ["region"]
    assert schema.severity == "breaking"  # signup_date: the staging job filters on it
    assert dropped.found and dropped.severity == "none"  # nothing reads the report


def test_an_unknown_dataset_is_reported_not_guessed(store: Store) -> None:
    report = check(store, [Change(DROP_COLUMN, NS, "shop.raw.nowhere", column="x")])
    assert report.severity == "none" and not report.changes[0].found
    assert report.changes[0].notes == [
        f"dataset:{NS}:shop.raw.nowhere is not in the graph: nothing downstream is known"
    ]


def test_ddl_statements_become_changes() -> None:
    changes = sql_changes(
        "ALTER TABLE raw.customers DROP COLUMN a, DROP COLUMN b;\n"
        "ALTER TABLE raw.customers RENAME COLUMN c TO d;\n"
        "ALTER TABLE raw.customers ALTER COLUMN e SET DATA TYPE text;\n"
        "DROP VIEW mart.v;\nALTER TABLE raw.old RENAME TO new_name;\nALTER TABLE raw.customers ADD COLUMN z int;\n"
    )
    assert [(c.kind, c.name, c.column, c.new_name, c.new_type, c.origin) for c in changes] == [
        (DROP_COLUMN, "shop.raw.customers", "a", None, None, "pr.sql:1"),
        (DROP_COLUMN, "shop.raw.customers", "b", None, None, "pr.sql:1"),
        (RENAME_COLUMN, "shop.raw.customers", "c", "d", None, "pr.sql:2"),
        (RETYPE_COLUMN, "shop.raw.customers", "e", None, "TEXT", "pr.sql:3"),
        (DROP_DATASET, "shop.mart.v", None, None, None, "pr.sql:4"),
        (DROP_DATASET, "shop.raw.old", None, None, None, "pr.sql:5"),
    ]
    with pytest.raises(ScriptError, match="pr.sql:1"):
        sql_changes("ALTER TABLE (((")


def test_dbt_manifests_before_and_after(tmp_path: Path) -> None:
    def manifest(nodes: dict[str, dict[str, Any]]) -> Path:
        path = tmp_path / f"m{len(list(tmp_path.iterdir()))}.json"
        path.write_text(json.dumps({"metadata": {}, "nodes": nodes}))
        return path

    def model(name: str, cols: dict[str, str], alias: str | None = None) -> dict[str, Any]:
        return {
            "resource_type": "model", "database": "shop", "schema": "mart", "name": name, "alias": alias,
            "columns": {c: {"name": c, "data_type": t} for c, t in cols.items()},
        }  # fmt: skip

    before = manifest(
        {
            "model.p.contacts": model("contacts", {"id": "int", "email": "text", "phone": "text"}),
            "model.p.orders": model("orders", {"id": "int", "amount": "numeric", "note": "text"}),
            "model.p.gone": model("gone", {"id": "int"}),
            "test.p.x": {"resource_type": "test", "name": "x"},
        }
    )
    after = manifest(
        {
            "model.p.contacts": model("contacts", {"id": "bigint", "mail": "text", "phone": "text"}),
            "model.p.orders": model("orders", {"id": "int"}),
        }
    )
    found = [(c.kind, c.name, c.column, c.new_name, c.new_type) for c in manifest_changes(before, after, NS)]
    assert found == [
        (RENAME_COLUMN, "shop.mart.contacts", "email", "mail", None),
        (RETYPE_COLUMN, "shop.mart.contacts", "id", None, "bigint"),
        (DROP_DATASET, "shop.mart.gone", None, None, None),
        (DROP_COLUMN, "shop.mart.orders", "amount", None, None),
        (DROP_COLUMN, "shop.mart.orders", "note", None, None),
    ]


def test_schema_files(tmp_path: Path) -> None:
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()), "email": ["a"]}), tmp_path / "new.parquet")
    assert read_schema_file(tmp_path / "new.parquet") == (SchemaField("id", "bigint"), SchemaField("email", "string"))
    (tmp_path / "s.json").write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "at": {"type": ["string", "null"], "format": "date-time"}},
            }
        )
    )
    assert read_schema_file(tmp_path / "s.json") == (SchemaField("id", "bigint"), SchemaField("at", "timestamp"))
    (tmp_path / "f.json").write_text(json.dumps({"schema": {"fields": [{"name": "a", "type": "TEXT"}]}}))
    assert read_schema_file(tmp_path / "f.json") == (SchemaField("a", "TEXT"),)


def test_change_documents_are_checked_with_paths() -> None:
    with pytest.raises(ValueError, match=r"changes\[0\]\.column: a non-empty string is required"):
        change_from_json({"kind": "drop_column", "namespace": NS, "name": "t"}, "changes[0]")
    with pytest.raises(ValueError, match=r"c\.kind: one of"):
        change_from_json({"kind": "explode", "namespace": NS, "name": "t"}, "c")
    change = Change(RETYPE_COLUMN, NS, "t", column="a", new_type="int", origin="x.sql:3")
    assert change_from_json(change.to_json()) == change
