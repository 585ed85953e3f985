"""Data quality along the graph: results sent by a real OpenLineage producer library (openlineage-python's
HTTP transport and facet classes, as Great Expectations' and dbt-ol's integrations send them) to a real HTTP
server over the pipeline of pipeline.py; a failing assertion on the source flags every dataset downstream,
with the path to the cause, now and not before it failed; a failed latest run flags too."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import data_quality_assertions_dataset as dqa
from openlineage.client.facet_v2 import data_quality_metrics_input_dataset as dqm
from openlineage.client.facet_v2 import test_run
from openlineage.client.transport.http import ApiKeyTokenProvider, HttpConfig, HttpTransport

sys.path.insert(0, str(Path(__file__).parent))
from pipeline import DATABASE, DIALECT, MART, NS, PIPELINE_SQL, RAW, REPORT, STAGING, writer

from headwater.api import create_app
from headwater.client import StoreClient
from headwater.settings import load_settings
from headwater.sql import script_events
from headwater.store import Store
from live_server import ThreadServer

TOKEN = "quality-token"
T0 = datetime(2026, 3, 1, tzinfo=UTC)  # the pipeline
T1 = datetime(2026, 3, 2, tzinfo=UTC)  # the source is validated
T2 = datetime(2026, 3, 3, tzinfo=UTC)  # the staging job fails
PRODUCER = "https://github.com/great-expectations/great_expectations"


def run_event(
    state: RunState, job: str, when: datetime, inputs: list[InputDataset], outputs: list[OutputDataset], **facets: Any
) -> RunEvent:
    return RunEvent(
        eventType=state,
        eventTime=when.isoformat(),
        run=Run(runId=str(uuid.uuid4()), facets=facets),
        job=Job(namespace=NS, name=job),
        producer=PRODUCER,
        inputs=inputs,
        outputs=outputs,
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    store = Store.open(f"sqlite:///{tmp_path_factory.mktemp('quality') / 'headwater.db'}")
    events = script_events(PIPELINE_SQL, dialect=DIALECT, namespace=NS, default_database=DATABASE, event_time=T0)
    StoreClient(store).send(events)
    jobs = {"staging": writer(events, STAGING)}
    try:
        app = create_app(load_settings({"write_tokens": TOKEN}, environ={}), store, bind_host="127.0.0.1")
        with ThreadServer(app) as server:
            client = OpenLineageClient(
                transport=HttpTransport(HttpConfig(url=server.url, auth=ApiKeyTokenProvider({"api_key": TOKEN})))
            )
            raw_in = InputDataset(
                namespace=NS,
                name="shop.raw.customers",
                inputFacets={
                    "dataQualityAssertions": dqa.DataQualityAssertionsDatasetFacet(
                        assertions=[
                            dqa.Assertion(assertion="not_null", success=False, column="email", severity="error",
                                          name="email_not_null", expected="0", actual="12"),
                            dqa.Assertion(assertion="unique", success=True, column="id", severity="error"),
                            dqa.Assertion(assertion="row_count", success=False, severity="warn", expected=">=1000",
                                          actual="990"),
                        ]
                    ),
                    "dataQualityMetrics": dqm.DataQualityMetricsInputDatasetFacet(
                        rowCount=990, columnMetrics={"email": dqm.ColumnMetrics(nullCount=12, distinctCount=970)}
                    ),
                },
            )  # fmt: skip
            client.emit(run_event(RunState.COMPLETE, "ge.validate.raw_customers", T1, [raw_in], []))
            # a dbt-ol test run on the mart: its test facet speaks for the dataset it read
            tests = test_run.TestRunFacet(
                tests=[test_run.TestExecution(name="unique_mart_customer_id", status="pass", severity="error",
                                              type="unique")]
            )  # fmt: skip
            client.emit(
                run_event(
                    RunState.COMPLETE,
                    "dbt.test.mart",
                    T1,
                    [InputDataset(namespace=NS, name="shop.mart.customer_contacts")],
                    [],
                    test=tests,
                )
            )
            yield server.url, jobs
    finally:
        store.close()


def quality(url: str, node: str, **params: str) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/v1/quality", params={"nodeId": node, **params}, timeout=60)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert isinstance(body, dict)
    return body


def test_the_latest_results_of_a_dataset(served: tuple[str, dict[str, str]]) -> None:
    url, _jobs = served
    raw = quality(url, RAW)["quality"]
    assert raw["status"] == "failing"
    assert [
        (a["name"], a["column"], a["success"], a["severity"], a["expected"], a["actual"]) for a in raw["assertions"]
    ] == [
        ("row_count", None, False, "warn", ">=1000", "990"),
        ("email_not_null", "email", False, "error", "0", "12"),
        ("unique", "id", True, "error", None, None),
    ]
    assert raw["metrics"]["row_count"] == 990
    # as the producer sent them (openlineage-python adds an empty quantiles map)
    assert raw["metrics"]["columns"] == [
        {"column": "email", "metrics": {"nullCount": 12, "distinctCount": 970, "quantiles": {}}}
    ]
    assert raw["history"] == [
        {"time": "2026-03-02T00:00:00Z", "run": raw["history"][0]["run"], "passed": 1, "failed": 2}
    ]
    mart = quality(url, MART)["quality"]
    assert mart["status"] == "passing"
    assert [(a["name"], a["source"], a["success"]) for a in mart["assertions"]] == [
        ("unique_mart_customer_id", "test", True)
    ]


def test_a_failing_source_assertion_flags_every_dataset_downstream_with_the_path(
    served: tuple[str, dict[str, str]],
) -> None:
    url, jobs = served
    for node, depth in ((STAGING, 2), (MART, 4), (REPORT, 6)):
        answer = quality(url, node)
        assert answer["flagged"] is True, node
        (issue,) = answer["upstream"]
        assert (issue["cause"], issue["status"], issue["depth"]) == (RAW, "failing", depth)
        assert issue["path"][0] == RAW and issue["path"][1] == jobs["staging"] and issue["path"][-1] == node
        assert issue["reasons"] == [
            "assertion row_count failed (expected >=1000, actual 990)",
            "assertion email_not_null on email failed (expected 0, actual 12)",
        ]
    before = quality(url, REPORT, at="2026-03-01T12:00:00Z")
    assert before["flagged"] is False and before["upstream"] == []
    assert quality(url, RAW)["flagged"] is False  # nothing upstream of the source


def test_checks_reading_tables_without_column_lineage_may_read_a_dropped_column(
    served: tuple[str, dict[str, str]],
) -> None:
    """The validation and test jobs report the tables they read, not columns: an impact check warns about them.
    (Before the next test's failed run, whose event carries no column lineage.)"""
    url, _jobs = served
    drop = {"kind": "drop_column", "namespace": NS, "name": "shop.raw.customers", "column": "email"}
    answer = httpx.post(
        f"{url}/api/v1/impact/check", json={"changes": [drop]}, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert answer.status_code == 200, answer.text
    may_read = {i["id"]: (i["severity"], i["path"][-2]) for i in answer.json()["items"] if i["effect"] == "MAY_READ"}
    assert may_read == {
        f"job:{NS}:ge.validate.raw_customers": ("warning", RAW),
        f"job:{NS}:dbt.test.mart": ("warning", MART),
    }


def test_a_failed_latest_run_flags_downstream(served: tuple[str, dict[str, str]]) -> None:
    url, jobs = served
    job_name = jobs["staging"].split(":", 1)[1][len(NS) + 1 :]
    client = OpenLineageClient(
        transport=HttpTransport(HttpConfig(url=url, auth=ApiKeyTokenProvider({"api_key": TOKEN})))
    )
    failed = run_event(
        RunState.FAIL, job_name, T2, [InputDataset(namespace=NS, name="shop.raw.customers")],
        [OutputDataset(namespace=NS, name="shop.staging.customers")],
    )  # fmt: skip
    client.emit(failed)
    answer = quality(url, MART)
    causes = {i["cause"]: (i["depth"], i["reasons"]) for i in answer["upstream"]}
    assert causes[STAGING] == (2, [f"latest run {failed.run.runId} of {jobs['staging']} failed"])
    assert causes[RAW][0] == 4
    assert quality(url, STAGING)["quality"]["status"] == "failing"
    assert quality(url, MART, at="2026-03-02T12:00:00Z")["upstream"][0]["cause"] == RAW  # before the failure
