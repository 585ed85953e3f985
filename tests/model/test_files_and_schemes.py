"""The one atomic state-file writer and the one namespace-scheme parser."""

from __future__ import annotations

from pathlib import Path

import pytest

from headwater.model.files import write_atomic
from headwater.model.naming import namespace_kind, scheme


def test_write_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "deeper" / "state.json"
    write_atomic(target, '{"a": 1}')
    write_atomic(target, '{"a": 2}')
    assert target.read_text() == '{"a": 2}'
    assert [p.name for p in target.parent.iterdir()] == ["state.json"]


def test_write_atomic_keeps_the_old_file_and_removes_its_temporary_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, "old")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "new \ud800")  # a lone surrogate cannot be written as UTF-8: the write fails midway
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


@pytest.mark.parametrize(
    ("text", "expected", "family"),
    [
        ("s3://bucket", "s3", "s3"),
        ("S3A://bucket/key", "s3a", "s3a"),
        ("jdbc:sqlserver://h:1433", "jdbc:sqlserver", "jdbc"),
        ("postgresql+psycopg://u:p@h:5432/db", "postgresql", "postgresql"),
        ("file:/data/x", "file", "file"),
        ("file", "file", "file"),
        ("bigquery", "bigquery", "bigquery"),
        ("", "", ""),
    ],
)
def test_scheme(text: str, expected: str, family: str) -> None:
    assert scheme(text) == expected
    assert scheme(text, family=True) == family


def test_namespace_kind_reads_the_scheme() -> None:
    assert namespace_kind("postgresql://h:5432") == "postgres"
    assert namespace_kind("mariadb://h") == "mysql"
    assert namespace_kind("kafka://broker:9092") == "kafka"
