"""``headwater impact check`` and ``headwater classify report`` on an embedded store (``--db``): formats, inputs
and exit statuses (0 nothing at or above --fail-on, 1 something is, 2 the check could not run)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from pipeline import DATABASE, NS, RAW, STAGING, col

from headwater.cli import cli
from headwater.client import StoreClient
from headwater.store import Store

SQL = ["--dialect", "postgres", "--namespace", NS, "--default-database", DATABASE]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, events: list[dict[str, Any]]) -> Iterator[str]:
    """The pipeline in a SQLite store (the command's reading is the graph layer's, tested on both databases)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('impact_cli') / 'headwater.db'}"
    store = Store.open(url)
    StoreClient(store).send(events)
    store.close()
    yield url


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def test_json_and_exit_statuses(db: str, tmp_path: Path) -> None:
    (tmp_path / "drop.sql").write_text("ALTER TABLE raw.customers DROP COLUMN signup_date;")
    code, out = run("impact", "check", str(tmp_path / "drop.sql"), *SQL, "--db", db, "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert report["severity"] == "breaking" and report["changes"][0]["gone"] == [col(RAW, "signup_date")]
    # the same change read from a change document, failing only on warnings and worse: still 1
    doc = tmp_path / "changes.json"
    doc.write_text(json.dumps({"changes": [report["changes"][0]["change"]]}))
    assert run("impact", "check", "--changes", str(doc), "--db", db, "--fail-on", "warning")[0] == 1
    # a Parquet file as the new schema of staging: country is gone (readers: warnings and breaks downstream)
    pq.write_table(pa.table({"id": [1], "email": ["a"], "phone": ["b"]}), tmp_path / "staging.parquet")
    code, out = run(
        "impact", "check", "--schema", f"{STAGING}={tmp_path / 'staging.parquet'}", "--db", db, "--format", "markdown"
    )
    assert code == 1 and "gone: shop.staging.customers.country" in out
    # renaming a column nobody reads: 0, also with --fail-on info
    (tmp_path / "rename.sql").write_text("ALTER TABLE raw.customers RENAME COLUMN notes TO remarks;")
    code, out = run("impact", "check", str(tmp_path / "rename.sql"), *SQL, "--db", db, "--fail-on", "info")
    assert code == 0 and "nothing downstream is affected" in out


def test_usage_errors_exit_2(db: str, tmp_path: Path) -> None:
    (tmp_path / "bad.sql").write_text("ALTER TABLE (((")
    cases = [
        (["impact", "check", "--db", db], "no changes to check"),
        (["impact", "check", str(tmp_path / "bad.sql"), *SQL, "--db", db], "bad.sql:1"),
        (["impact", "check", str(tmp_path / "bad.sql"), "--db", db], "--namespace is required"),
        (["impact", "check", "--dbt-before", "m.json", "--db", db], "--dbt-before and --dbt-after go together"),
        (["impact", "check", "--schema", "no-equals-sign", "--db", db], "give DATASET=FILE"),
        (["impact", "check", "--changes", str(tmp_path / "missing.json"), "--db", db], "missing.json"),
        (
            ["impact", "check", "--schema", f"{RAW}={tmp_path / 'bad.sql'}", "--url", "http://127.0.0.1:9"],
            "not JSON, Parquet or Avro",
        ),
    ]
    for args, message in cases:
        code, out = run(*args)
        assert (code, message in out) == (2, True), (args, out)
    (tmp_path / "ok.sql").write_text("ALTER TABLE raw.customers DROP COLUMN email;")
    code, out = run("impact", "check", str(tmp_path / "ok.sql"), *SQL, "--url", "http://127.0.0.1:9")
    assert code == 2 and "cannot reach http://127.0.0.1:9" in out


def test_classify_report_csv_from_a_store(db: str) -> None:
    code, out = run(
        "classify", "report", "--tag", "PII", "--db", db, "--format", "csv",
        env={"HEADWATER_CLASSIFY_RULES": json.dumps({"PII": "^phone$"})},
    )  # fmt: skip
    assert code == 0, out
    rows = list(csv.reader(io.StringIO(out)))
    mart_hash = col(f"dataset:{NS}:shop.mart.customer_contacts", "phone_hash")
    assert [r[:5] for r in rows[1:]] == [
        ["PII", "DATASET", RAW, "", "False"],
        ["PII", "DATASET", STAGING, "", "False"],
        ["PII", "FIELD", col(RAW, "phone"), "phone", "False"],
        ["PII", "FIELD", col(STAGING, "phone"), "phone", "False"],  # the rule matches its name too
        ["PII", "STOP", mart_hash, "", ""],  # md5(phone) in the mart: masked, the tag stops there
    ]
    assert rows[3][5] == "rule: ^phone$"
    stop = rows[5]
    assert stop[5].startswith("masked: DIRECT/TRANSFORMATION masked in job:") and stop[6] == col(STAGING, "phone")
    assert stop[8].split(" > ")[0::2] == [col(STAGING, "phone"), mart_hash]
    code, out = run("classify", "report", "--db", db, env={"HEADWATER_CLASSIFY_RULES": "{not json"})
    assert code == 2 and "classify_rules: not a JSON object" in out
