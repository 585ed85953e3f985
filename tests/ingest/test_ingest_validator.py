"""The event validator against the official OpenLineage schemas: valid events pass, each kind of
mistake is reported with its JSON path, standard facets are checked, custom facets are kept."""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from ingest_events import facet, run_event
from jsonschema import Draft202012Validator
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
    output_statistics_output_dataset,
    parent_run,
    processing_engine_run,
    schema_dataset,
    sql_job,
    symlinks_dataset,
)
from openlineage.client.serde import Serde

from headwater.spec import EventValidator, Problem, schema_dir
from headwater.spec.formats import format_checker
from headwater.spec.registry import CORE_ID, build_registry, load_schemas

PRODUCER = "https://github.com/headwater-lineage/headwater/tests"


def client_run_event() -> dict[str, Any]:
    """A RunEvent made by openlineage-python with the facets the Spark integration sends."""
    run_id = str(uuid.uuid4())
    schema = schema_dataset.SchemaDatasetFacet(
        fields=[
            schema_dataset.SchemaDatasetFacetFields(name="EmployeeID", type="integer"),
            schema_dataset.SchemaDatasetFacetFields(
                name="address",
                type="struct",
                fields=[schema_dataset.SchemaDatasetFacetFields(name="city", type="string")],
            ),
        ]
    )
    lineage = column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={
            "EmployeeID": column_lineage_dataset.Fields(
                inputFields=[
                    column_lineage_dataset.InputField(
                        namespace="file",
                        name="/data/employees.csv",
                        field="EmployeeID",
                        transformations=[column_lineage_dataset.Transformation(type="DIRECT", subtype="IDENTITY")],
                    )
                ]
            )
        },
        dataset=[
            column_lineage_dataset.InputField(
                namespace="file",
                name="/data/employees.csv",
                field="Active",
                transformations=[column_lineage_dataset.Transformation(type="INDIRECT", subtype="FILTER")],
            )
        ],
    )
    event = RunEvent(
        eventType=RunState.FAIL,
        eventTime="2026-11-22T05:10:10.123456+00:00",
        run=Run(
            runId=run_id,
            facets={
                "parent": parent_run.ParentRunFacet(
                    run=parent_run.Run(runId=str(uuid.uuid4())),
                    job=parent_run.Job(namespace="airflow", name="payroll_dag.build"),
                ),
                "errorMessage": error_message_run.ErrorMessageRunFacet(
                    message="division by zero", programmingLanguage="python", stackTrace="Traceback..."
                ),
                "processing_engine": processing_engine_run.ProcessingEngineRunFacet(
                    version="4.0.0", name="spark", openlineageAdapterVersion="1.54.0"
                ),
            },
        ),
        job=Job(
            namespace="spark",
            name="payroll.build",
            facets={
                "sql": sql_job.SQLJobFacet(query="SELECT * FROM employees"),
                "jobType": job_type_job.JobTypeJobFacet(processingType="BATCH", integration="SPARK", jobType="SQL_JOB"),
            },
        ),
        inputs=[InputDataset(namespace="file", name="/data/employees.csv", facets={"schema": schema})],
        outputs=[
            OutputDataset(
                namespace="file",
                name="/data/payroll",
                facets={
                    "columnLineage": lineage,
                    "symlinks": symlinks_dataset.SymlinksDatasetFacet(
                        identifiers=[symlinks_dataset.Identifier(namespace="hive", name="db.payroll", type="TABLE")]
                    ),
                },
                outputFacets={
                    "outputStatistics": output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                        rowCount=10, size=1000
                    )
                },
            )
        ],
        producer=PRODUCER,
    )
    return json.loads(Serde.to_json(event))


def official_validator(spec_dir: Path) -> Draft202012Validator:
    """The whole official core schema (with its oneOf) from the shared copy, with format checks."""
    schemas = load_schemas(spec_dir)
    return Draft202012Validator({"$ref": CORE_ID}, registry=build_registry(schemas), format_checker=format_checker())


def test_packaged_schemas_are_the_official_ones(spec_dir: Path) -> None:
    packaged = load_schemas(schema_dir())
    official = load_schemas(spec_dir)
    assert packaged == official
    assert len(packaged) == 1 + len(list((spec_dir / "facets").glob("*.json")))


def test_client_events_of_each_kind_are_valid(validator: EventValidator, spec_dir: Path) -> None:
    dataset_event = json.loads(
        Serde.to_json(
            DatasetEvent(
                eventTime="2026-11-22T05:10:10Z",
                producer=PRODUCER,
                dataset=StaticDataset(
                    namespace="postgres://db:5432",
                    name="hr.public.employees",
                    facets={
                        "schema": schema_dataset.SchemaDatasetFacet(
                            fields=[schema_dataset.SchemaDatasetFacetFields(name="id")]
                        ),
                    },
                ),
            )
        )
    )
    job_event = json.loads(
        Serde.to_json(
            JobEvent(
                eventTime="2026-11-22T05:10:10Z",
                producer=PRODUCER,
                job=Job(namespace="airflow", name="dag.task", facets={"sql": sql_job.SQLJobFacet(query="select 1")}),
                inputs=[InputDataset(namespace="file", name="/a")],
                outputs=[OutputDataset(namespace="file", name="/b")],
            )
        )
    )
    official = official_validator(spec_dir)
    for event in (client_run_event(), dataset_event, job_event):
        assert validator.validate(event) == []
        assert list(official.iter_errors(event)) == []


def _place(slot: str, name: str, body: Any) -> dict[str, Any]:
    event = run_event()
    if slot == "run":
        event["run"]["facets"][name] = body
    elif slot == "job":
        event["job"]["facets"][name] = body
    elif slot == "input":
        event["inputs"][0]["inputFacets"] = {name: body}
    elif slot == "output":
        event["outputs"][0]["outputFacets"] = {name: body}
    else:
        event["outputs"][0]["facets"][name] = body
    return event


def test_every_official_facet_example_is_valid_where_it_belongs(validator: EventValidator, spec_dir: Path) -> None:
    checked = 0
    for example in sorted((spec_dir / "tests").glob("*/*.json")):
        facets = json.loads(example.read_text())
        for name, body in facets.items():
            slots = [
                slot
                for slot in ("run", "job", "dataset", "input", "output")
                if f"/{example.parent.name}.json#" in (validator.facet_schema(slot, name) or "")  # type: ignore[arg-type]
            ]
            assert slots, f"{example}: facet {name!r} is not a known standard facet"
            results = {slot: validator.validate(_place(slot, name, body)) for slot in slots}
            assert any(not problems for problems in results.values()), f"{example}: {results}"
            checked += 1
    assert checked >= 30
    # a standard facet with a wrong shape fails in every place it may sit
    bad = _place("dataset", "schema", {"_producer": PRODUCER, "_schemaURL": PRODUCER, "fields": {"a": 1}})
    assert [p.path for p in validator.validate(bad)] == ["$.outputs[0].facets.schema.fields"]


MISTAKES: list[tuple[Any, str, str]] = [
    (lambda e: e["run"].pop("runId"), "$.run.runId", "required"),
    (lambda e: e.pop("eventTime"), "$.eventTime", "required"),
    (lambda e: e["run"].update(runId="not-a-uuid"), "$.run.runId", "not a valid uuid"),
    (lambda e: e.update(eventTime="2026-11-22 05:10"), "$.eventTime", "not a valid date-time"),
    (lambda e: e.update(eventTime="2026-11-22T05:10:10"), "$.eventTime", "not a valid date-time"),
    (lambda e: e.update(eventTime="2026-02-30T05:10:10Z"), "$.eventTime", "not a valid date-time"),
    (lambda e: e.update(producer="not a uri"), "$.producer", "not a valid uri"),
    (lambda e: e.update(eventType="FINISHED"), "$.eventType", "not one of"),
    (lambda e: e["job"].update(name=42), "$.job.name", "expected string, got integer"),
    (lambda e: e.update(inputs={"a": 1}), "$.inputs", "expected array, got object"),
    (lambda e: e["outputs"][0].pop("namespace"), "$.outputs[0].namespace", "required"),
    (
        lambda e: e["run"]["facets"].update(parent=facet(run={"runId": "x"}, job={"namespace": "a", "name": "b"})),
        "$.run.facets.parent.run.runId",
        "not a valid uuid",
    ),
    (
        lambda e: e["run"]["facets"].update(errorMessage=facet(programmingLanguage="python")),
        "$.run.facets.errorMessage.message",
        "required",
    ),
    (
        lambda e: e["outputs"][0]["facets"].update(columnLineage=facet(fields={"a": {"transformationType": "x"}})),
        "$.outputs[0].facets.columnLineage.fields.a.inputFields",
        "required",
    ),
    (
        lambda e: e["inputs"][0]["facets"].update(schema=facet(fields=[{"name": "a", "type": 1}])),
        "$.inputs[0].facets.schema.fields[0].type",
        "expected string",
    ),
    (
        lambda e: e["outputs"][0].update(outputFacets={"outputStatistics": facet(rowCount="ten")}),
        "$.outputs[0].outputFacets.outputStatistics.rowCount",
        "expected integer",
    ),
    (
        lambda e: e["job"]["facets"].update(sql=facet(query=["select 1"])),
        "$.job.facets.sql.query",
        "expected string, got array",
    ),
    (lambda e: e["job"]["facets"].update(**{"my-custom": {"x": 1}}), "$.job.facets['my-custom']._producer", "required"),
]


@pytest.mark.parametrize(("mutate", "path", "words"), MISTAKES)
def test_each_mistake_is_reported_with_its_path(validator: EventValidator, mutate: Any, path: str, words: str) -> None:
    event = run_event()
    mutate(event)
    problems = validator.validate(event)
    assert any(p.path == path and words in p.message for p in problems), problems


def test_custom_facets_are_kept_unvalidated(validator: EventValidator) -> None:
    event = run_event()
    event["run"]["facets"]["spark.logicalPlan"] = facet(plan=[{"anything": True}], fields=42)
    event["outputs"][0]["facets"]["myCompany_quality"] = facet(score="high")
    assert validator.validate(event) == []


def test_standard_facet_names_are_checked_per_place(validator: EventValidator) -> None:
    # "columnLineage" is a dataset facet: as a run facet it is a custom name and is not checked
    event = run_event()
    event["run"]["facets"]["columnLineage"] = facet(fields="whatever")
    assert validator.validate(event) == []
    event["outputs"][0]["facets"]["columnLineage"] = facet(fields="whatever")
    assert [p.path for p in validator.validate(event)] == ["$.outputs[0].facets.columnLineage.fields"]


def test_all_problems_are_listed_once_each(validator: EventValidator) -> None:
    event = run_event()
    event["run"]["runId"] = "nope"
    event["job"].pop("namespace")
    event["run"]["facets"]["parent"] = {"run": {"runId": str(uuid.uuid4())}, "job": {"namespace": "a", "name": "b"}}
    problems = validator.validate(event)
    assert problems == sorted(set(problems))
    assert {p.path for p in problems} == {
        "$.run.runId",
        "$.job.namespace",
        "$.run.facets.parent._producer",
        "$.run.facets.parent._schemaURL",
    }


def test_kinds_and_non_events(validator: EventValidator) -> None:
    assert validator.validate([1, 2]) == [Problem("$", "expected a JSON object (an OpenLineage event), got array")]
    assert "not an OpenLineage event" in validator.validate({"eventTime": "x"})[0].message
    both = {
        "eventTime": "2026-11-22T05:10:10Z",
        "producer": PRODUCER,
        "schemaURL": PRODUCER,
        "dataset": {"namespace": "a", "name": "b"},
        "job": {"namespace": "a", "name": "b"},
    }
    assert "fits both a DatasetEvent and a JobEvent" in validator.validate(both)[0].message
    run_without_job = run_event()
    run_without_job.pop("job")
    assert Problem("$.job", "required field is missing") in validator.validate(run_without_job)
    dataset_event = {
        "eventTime": "2026-11-22T05:10:10Z",
        "producer": PRODUCER,
        "schemaURL": PRODUCER,
        "dataset": {"namespace": "a"},
    }
    assert validator.validate(dataset_event, "$[4]") == [Problem("$[4].dataset.name", "required field is missing")]


def test_validator_agrees_with_the_official_schema_on_mistakes(validator: EventValidator, spec_dir: Path) -> None:
    official = official_validator(spec_dir)
    base = client_run_event()
    for mutate in (
        lambda e: e["run"].pop("runId"),
        lambda e: e.update(eventTime="yesterday"),
        lambda e: e["job"]["facets"].update(custom={"no": "base"}),
        lambda e: e.pop("job"),
    ):
        event = copy.deepcopy(base)
        mutate(event)
        assert validator.validate(event) != []
        assert list(official.iter_errors(event)) != []


def test_fast_path_and_jsonschema_agree(validator: EventValidator, spec_dir: Path) -> None:
    """jsonschema-rs may only accept what jsonschema accepts (and should refuse what it refuses)."""
    events: list[Any] = [client_run_event(), run_event()]
    for mutate, _, _ in MISTAKES:
        event = run_event()
        mutate(event)
        events.append(event)
    for example in sorted((spec_dir / "tests").glob("*/*.json")):
        for name, body in json.loads(example.read_text()).items():
            for slot in ("run", "job", "dataset", "input", "output"):
                if validator.facet_schema(slot, name):  # type: ignore[arg-type]
                    events.append(_place(slot, name, body))
    for value in ("2026-11-22T05:10:10", "2026-11-22T05:10:10.123456789Z", "2026-11-22t05:10:10+01:00", "x"):
        events.append(run_event(eventTime=value))
    for value in ("a b", "urn:x", "https://x/y?q=1#f", "/relative", ""):
        events.append(run_event(producer=value))
    assert len(events) > 60
    for event in events:
        thorough = validator.validate_thorough(event)
        assert validator.fast_accepts(event) == (thorough == []), (event, thorough)
        assert validator.validate(event) == thorough
