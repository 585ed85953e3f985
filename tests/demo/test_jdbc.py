"""The JDBC variant's URL parsing and its loader, against the real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

import pytest

from headwater.demo.checks import DemoError
from headwater.demo.data import generate
from headwater.demo.jdbc import load_employees, parse_jdbc


def test_parse_gives_the_jdbc_url_and_openlineage_names() -> None:
    t = parse_jdbc("postgresql://hr%40corp:s%3Acret@db.example.com:6543/payroll")
    assert (t.host, t.port, t.database, t.user, t.password) == ("db.example.com", 6543, "payroll", "hr@corp", "s:cret")
    assert t.jdbc_url == "jdbc:postgresql://db.example.com:6543/payroll"  # no credentials in the URL
    assert t.table == "hr.employees"
    assert (t.dataset_namespace, t.dataset_name) == ("postgres://db.example.com:6543", "payroll.hr.employees")
    assert parse_jdbc("postgres://u@localhost/x").port == 5432


@pytest.mark.parametrize(
    "url, words",
    [
        ("mysql://u:p@h/db", "got scheme 'mysql'"),
        ("postgresql://u:p@h", "must name a host and a database"),
        ("postgresql:///db", "must name a host and a database"),
        ("postgresql://u:p@h:notaport/db", "bad port"),
    ],
)
def test_bad_urls_say_what_is_wrong(url: str, words: str) -> None:
    with pytest.raises(DemoError, match=words):
        parse_jdbc(url)


@pytest.mark.postgres
def test_load_replaces_the_employees_table(fresh_pg_url: str, tmp_path: Path) -> None:
    import psycopg

    target = parse_jdbc(fresh_pg_url)
    data = generate(tmp_path / "a", employees=30, seed=1)
    assert load_employees(target, data.path("employees")) == 30
    data = generate(tmp_path / "b", employees=12, seed=2)
    assert load_employees(target, data.path("employees")) == 12  # a second run replaces, never appends
    with psycopg.connect(fresh_pg_url) as conn:
        rows = conn.execute('SELECT "EmployeeID", "Name", "Salary" FROM hr.employees ORDER BY 1').fetchall()
    first_line = data.path("employees").read_text().splitlines()[1].split(",")
    assert len(rows) == 12
    assert (str(rows[0][0]), rows[0][1], f"{rows[0][2]:.2f}") == (first_line[0], first_line[1], first_line[5])


@pytest.mark.postgres
def test_wrong_password_is_explained(fresh_pg_url: str, tmp_path: Path) -> None:
    target = parse_jdbc(fresh_pg_url)
    wrong = parse_jdbc(f"postgresql://{target.user}:wrong-password@{target.host}:{target.port}/{target.database}")
    data = generate(tmp_path, employees=3)
    with pytest.raises(DemoError, match=f"could not load the employees into PostgreSQL at {target.host}"):
        load_employees(wrong, data.path("employees"))
