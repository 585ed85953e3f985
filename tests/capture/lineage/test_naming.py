"""OpenLineage dataset naming of paths and JDBC URLs (pure)."""

from __future__ import annotations

import pytest

from headwater.model.naming import fold_partitions, jdbc_dataset, path_dataset


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("file:/tmp/out/people", ("file", "/tmp/out/people")),
        ("file:///tmp/out/people/", ("file", "/tmp/out/people")),
        ("/data/x", ("file", "/data/x")),
        ("s3a://bucket/warehouse/t", ("s3://bucket", "warehouse/t")),
        ("s3n://bucket/t", ("s3://bucket", "t")),
        ("s3://bucket/t/year=2024/month=01", ("s3://bucket", "t")),
        ("hdfs://nn:8020/user/hive/t", ("hdfs://nn:8020", "/user/hive/t")),
        ("gs://b/p/q", ("gs://b", "p/q")),
        ("abfss://c@acct.dfs.core.windows.net/raw/t", ("abfss://c@acct.dfs.core.windows.net", "raw/t")),
        ("file:/tmp/t/part-00000-4d1c-c000.csv", ("file", "/tmp/t")),
        ("file:/tmp/t/name=a%20b", ("file", "/tmp/t")),
    ],
)
def test_path_dataset(uri: str, expected: tuple[str, str]) -> None:
    assert path_dataset(uri) == expected


def test_fold_partitions_keeps_plain_paths() -> None:
    assert fold_partitions("/a/b/c") == "/a/b/c"
    assert fold_partitions("/a/b/k=1/j=2/") == "/a/b"


@pytest.mark.parametrize(
    ("url", "table", "expected"),
    [
        (
            "jdbc:postgresql://db.example:5432/hr?ssl=true",
            "public.people",
            ("postgres://db.example:5432", "hr.public.people"),
        ),
        ("jdbc:postgresql://db.example/hr", "people", ("postgres://db.example:5432", "hr.public.people")),
        ("jdbc:mysql://127.0.0.1:3306/shop", "orders", ("mysql://127.0.0.1:3306", "shop.orders")),
        ("jdbc:mariadb://127.0.0.1/shop", "shop.orders", ("mysql://127.0.0.1:3306", "shop.orders")),
        ("jdbc:sqlserver://h:1433;databaseName=x", "dbo.t", ("sqlserver://h:1433", "x.dbo.t")),
    ],
)
def test_jdbc_dataset(url: str, table: str, expected: tuple[str, str]) -> None:
    assert jdbc_dataset(url, table) == expected
