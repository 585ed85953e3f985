"""A small lineage story built with the openlineage-python classes, as the client would send it.

employees.csv --(payroll.build)--> payroll --(payroll.report)--> hr.public.report

- 2026-11-10: payroll.build runs (START, COMPLETE); payroll has EmployeeID and Total,
  Total <- Salary (aggregation), EmployeeID <- EmployeeID (identity), filtered on Active.
- 2026-11-11: payroll.report runs and fails (errorMessage), parent = an Airflow task.
- 2026-11-12: payroll.build runs again and adds a Bonus column to payroll (schema change).
Plus a DatasetEvent (employees.csv schema) and a JobEvent (payroll.report's SQL).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from openlineage.client.event_v2 import (
    DatasetEvent,
    InputDataset,
    Job,
    JobEvent,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
    StaticDataset,
)
from openlineage.client.facet_v2 import (
    column_lineage_dataset,
    error_message_run,
    job_type_job,
    parent_run,
    schema_dataset,
    sql_job,
)
from openlineage.client.serde import Serde

PRODUCER = "https://github.com/headwater-lineage/headwater/tests/api"
EMPLOYEES = ("file", "/data/employees.csv")
PAYROLL = ("file", "/data/payroll")
REPORT = ("postgres://db:5432", "hr.public.report")
BUILD = ("spark", "payroll.build")
REPORT_JOB = ("spark", "payroll.report")

T_BUILD_1 = "2026-11-10T10:00:00.000Z"
T_BUILD_1_END = "2026-11-10T10:05:00.000Z"
T_REPORT = "2026-11-11T10:00:00.000Z"
T_REPORT_END = "2026-11-11T10:01:00.000Z"
T_BUILD_2 = "2026-11-12T10:00:00.000Z"
T_BUILD_2_END = "2026-11-12T10:02:00.000Z"
BETWEEN_1_AND_2 = "2026-11-11T12:00:00Z"


def node_id(kind: str, ds: tuple[str, str], field: str | None = None) -> str:
    return f"{kind}:{ds[0]}:{ds[1]}" + (f":{field}" if field else "")


def _schema(*fields: tuple[str, str]) -> schema_dataset.SchemaDatasetFacet:
    return schema_dataset.SchemaDatasetFacet(
        fields=[schema_dataset.SchemaDatasetFacetFields(name=n, type=t) for n, t in fields]
    )


def _col(source: tuple[str, str], field: str, type_: str, subtype: str) -> column_lineage_dataset.InputField:
    return column_lineage_dataset.InputField(
        namespace=source[0],
        name=source[1],
        field=field,
        transformations=[column_lineage_dataset.Transformation(type=type_, subtype=subtype)],
    )


def to_dict(event: Any) -> dict[str, Any]:
    return json.loads(Serde.to_json(event))


def _build_events(run_id: str, start: str, end: str, with_bonus: bool) -> list[RunEvent]:
    out_fields = [("EmployeeID", "integer"), ("Total", "decimal(10,2)")] + (
        [("Bonus", "decimal(10,2)")] if with_bonus else []
    )
    lineage_fields = {
        "EmployeeID": column_lineage_dataset.Fields(inputFields=[_col(EMPLOYEES, "EmployeeID", "DIRECT", "IDENTITY")]),
        "Total": column_lineage_dataset.Fields(inputFields=[_col(EMPLOYEES, "Salary", "DIRECT", "AGGREGATION")]),
    }
    if with_bonus:
        lineage_fields["Bonus"] = column_lineage_dataset.Fields(
            inputFields=[_col(EMPLOYEES, "Salary", "DIRECT", "TRANSFORMATION")]
        )
    job = Job(
        namespace=BUILD[0],
        name=BUILD[1],
        facets={
            "jobType": job_type_job.JobTypeJobFacet(processingType="BATCH", integration="SPARK", jobType="SQL_JOB"),
            "sql": sql_job.SQLJobFacet(
                query="SELECT EmployeeID, sum(Salary) AS Total FROM employees GROUP BY EmployeeID"
            ),
        },
    )
    inputs = [
        InputDataset(
            namespace=EMPLOYEES[0],
            name=EMPLOYEES[1],
            facets={
                "schema": _schema(
                    ("EmployeeID", "integer"), ("Name", "string"), ("Salary", "decimal(10,2)"), ("Active", "boolean")
                ),
            },
        )
    ]
    outputs = [
        OutputDataset(
            namespace=PAYROLL[0],
            name=PAYROLL[1],
            facets={
                "schema": _schema(*out_fields),
                "columnLineage": column_lineage_dataset.ColumnLineageDatasetFacet(
                    fields=lineage_fields, dataset=[_col(EMPLOYEES, "Active", "INDIRECT", "FILTER")]
                ),
            },
        )
    ]
    return [
        RunEvent(
            eventType=RunState.START,
            eventTime=start,
            run=Run(runId=run_id),
            job=job,
            inputs=inputs,
            outputs=outputs,
            producer=PRODUCER,
        ),
        RunEvent(
            eventType=RunState.COMPLETE,
            eventTime=end,
            run=Run(runId=run_id),
            job=job,
            inputs=inputs,
            outputs=outputs,
            producer=PRODUCER,
        ),
    ]


def _report_events(run_id: str) -> list[RunEvent]:
    job = Job(namespace=REPORT_JOB[0], name=REPORT_JOB[1])
    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId=str(uuid.uuid5(uuid.NAMESPACE_URL, "airflow-run"))),
        job=parent_run.Job(namespace="airflow", name="payroll_dag.report"),
    )
    inputs = [InputDataset(namespace=PAYROLL[0], name=PAYROLL[1])]
    outputs = [
        OutputDataset(
            namespace=REPORT[0],
            name=REPORT[1],
            facets={
                "schema": _schema(("EmployeeID", "integer"), ("Total", "decimal(10,2)")),
                "columnLineage": column_lineage_dataset.ColumnLineageDatasetFacet(
                    fields={
                        "EmployeeID": column_lineage_dataset.Fields(
                            inputFields=[_col(PAYROLL, "EmployeeID", "DIRECT", "IDENTITY")]
                        ),
                        "Total": column_lineage_dataset.Fields(
                            inputFields=[_col(PAYROLL, "Total", "DIRECT", "IDENTITY")]
                        ),
                    }
                ),
            },
        )
    ]
    return [
        RunEvent(
            eventType=RunState.START,
            eventTime=T_REPORT,
            run=Run(runId=run_id, facets={"parent": parent}),
            job=job,
            inputs=inputs,
            outputs=outputs,
            producer=PRODUCER,
        ),
        RunEvent(
            eventType=RunState.FAIL,
            eventTime=T_REPORT_END,
            run=Run(
                runId=run_id,
                facets={
                    "parent": parent,
                    "errorMessage": error_message_run.ErrorMessageRunFacet(
                        message="relation hr.public.report is locked", programmingLanguage="python"
                    ),
                },
            ),
            job=job,
            inputs=inputs,
            outputs=outputs,
            producer=PRODUCER,
        ),
    ]


def dataset_event() -> dict[str, Any]:
    return to_dict(dataset_event_object())


def dataset_event_object() -> DatasetEvent:
    return DatasetEvent(
        eventTime="2026-11-09T09:00:00Z",
        producer=PRODUCER,
        dataset=StaticDataset(
            namespace=EMPLOYEES[0],
            name=EMPLOYEES[1],
            facets={
                "schema": _schema(
                    ("EmployeeID", "integer"), ("Name", "string"), ("Salary", "decimal(10,2)"), ("Active", "boolean")
                ),
            },
        ),
    )


def job_event() -> dict[str, Any]:
    return to_dict(job_event_object())


def job_event_object() -> JobEvent:
    return JobEvent(
        eventTime="2026-11-09T09:30:00Z",
        producer=PRODUCER,
        job=Job(
            namespace=REPORT_JOB[0],
            name=REPORT_JOB[1],
            facets={"sql": sql_job.SQLJobFacet(query="INSERT INTO hr.public.report SELECT * FROM payroll")},
        ),
        inputs=[InputDataset(namespace=PAYROLL[0], name=PAYROLL[1])],
        outputs=[OutputDataset(namespace=REPORT[0], name=REPORT[1])],
    )


class Story:
    """The story's events in send order, with their run ids."""

    def __init__(self) -> None:
        self.build_run_1 = str(uuid.uuid4())
        self.report_run = str(uuid.uuid4())
        self.build_run_2 = str(uuid.uuid4())
        self.objects: list[Any] = [
            *_build_events(self.build_run_1, T_BUILD_1, T_BUILD_1_END, with_bonus=False),
            *_report_events(self.report_run),
            *_build_events(self.build_run_2, T_BUILD_2, T_BUILD_2_END, with_bonus=True),
        ]
        self.events: list[dict[str, Any]] = [dataset_event(), job_event(), *(to_dict(o) for o in self.objects)]
