"""A store holding the HR payroll story (SQLite and PostgreSQL), and the story's node ids."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

import pytest

from headwater.graph import GraphReader
from headwater.store import Store
from tests.fixtures.stories.load import incoming, story

EMP = "dataset:file:/data/hr/employees.csv"
ATT = "dataset:file:/data/hr/attendance.csv"
EA = "dataset:file:/warehouse/hr/employee_attendance"
ADJ = "dataset:file:/data/hr/salary_adjustments.csv"
BON = "dataset:file:/data/hr/bonus_payments.csv"
TAX = "dataset:file:/data/hr/tax_rates.csv"
COMP = "dataset:file:/warehouse/hr/employee_compensation"
REP = "dataset:postgres://db.hr.local:5432:hr.public.compensation_report"
J1 = "job:hr_payroll:job1"
J2 = "job:hr_payroll:job2"
RX = "job:hr_payroll:report_export"
DAG = "job:airflow:hr_payroll_dag"

DAY1 = datetime(2026, 1, 5, 12, tzinfo=UTC)
DAY2 = datetime(2026, 1, 6, 12, 30, tzinfo=UTC)
DAY3 = datetime(2026, 1, 7, 12, tzinfo=UTC)
DAY4 = datetime(2026, 1, 8, 12, tzinfo=UTC)


def fid(dataset: str, field: str) -> str:
    return f"datasetField:{dataset[len('dataset:'):]}:{field}"


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The story in a store, shared by a module's tests (they only read); SQLite and PostgreSQL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('story') / 'headwater.db'}"
        drop = None
    else:
        import psycopg

        server = request.getfixturevalue("pg_server_url")
        name = f"hw_story_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        url = urlunsplit(urlsplit(server)._replace(path=f"/{name}"))
        drop = (server, name)
    s = Store.open(url)
    s.append(incoming(story()))
    yield s
    s.close()
    if drop is not None:
        import psycopg

        with psycopg.connect(drop[0], autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{drop[1]}" WITH (FORCE)')


@pytest.fixture
def graph(store: Store) -> GraphReader:
    return store.graph
