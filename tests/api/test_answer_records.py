"""The API's response models describe exactly the graph's typed answer records, field by field.

``headwater.graph.answers`` declares each GraphReader answer once as a ``TypedDict``; ``headwater.api.models``
describes the same answers for OpenAPI (and the UI's generated types). Each model here is held to the record
of the same name: the same keys, the same required keys, and the same JSON schema for each key's value
(references resolved, titles and descriptions left aside). The few places where a model is narrower than its
record are listed in :data:`NARROWER` with the reason; there the model's values must be a subset of the record's.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from headwater.api import models
from headwater.graph import answers

# Models that are not answers of the graph (ingest, the event log, status, errors): no record to match.
NOT_GRAPH_ANSWERS = {
    "ApiModel",
    "ValidationWarning",
    "EventSummary",
    "EventPage",
    "FailedEvent",
    "ProjectionHealth",
    "ValidationHealth",
    "ClockHealth",
    "StatusAnswer",
    "IngestAnswer",
    "BatchAnswer",
    "ErrorDetail",
    "ErrorInfo",
    "ErrorBody",
}
# (model, key): why the model's value is narrower than the record's
NARROWER = {
    ("DatasetDetails", "type"): "a dataset's details are of a DATASET node (the record keeps Node's type)",
    ("DatasetDetails", "kind"): "a dataset always has a kind (the record keeps Node's optional kind)",
    ("JobDetails", "type"): "a job's details are of a JOB node",
    ("JobDetails", "kind"): "a job has no kind",
}
_DROP = {"title", "description", "default", "additionalProperties"}


def _model_classes() -> dict[str, type[BaseModel]]:
    return {
        name: value
        for name, value in vars(models).items()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == models.__name__
        and name.isidentifier()  # not pydantic's RootModel[...] (NodeDetails' base), kept in the module too
    }


def _resolve(schema: Any, defs: dict[str, Any], within: tuple[str, ...] = ()) -> Any:
    """The schema with every $ref replaced by its definition (a recursive one, e.g. a struct column's fields,
    stays a reference by name) and documentation keys dropped."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            return {"$ref": name} if name in within else _resolve(defs[name], defs, (*within, name))
        return {k: _resolve(v, defs, within) for k, v in schema.items() if k not in _DROP and k != "$defs"}
    if isinstance(schema, list):
        return [_resolve(v, defs, within) for v in schema]
    return schema


def _schema(tp: Any) -> dict[str, Any]:
    schema = TypeAdapter(tp).json_schema(mode="serialization", by_alias=True)
    return dict(_resolve(schema, schema.get("$defs", {})))


def _record_schema(record: Any) -> dict[str, Any]:
    return _schema(record)


def _union_members(schema: dict[str, Any]) -> list[Any]:
    members: list[Any] = schema.get("anyOf", [schema])
    return members


def test_every_graph_answer_model_has_its_record() -> None:
    classes = _model_classes()
    described = set(classes) - NOT_GRAPH_ANSWERS
    missing = sorted(name for name in described if not hasattr(answers, name))
    assert missing == []
    assert len(described) >= 40


@pytest.mark.parametrize("name", sorted(set(_model_classes()) - NOT_GRAPH_ANSWERS))
def test_model_and_record_agree_field_by_field(name: str) -> None:
    model = _model_classes()[name]
    record = getattr(answers, name)
    if issubclass(model, models.RootModel):  # NodeDetails: a union of answers, one member per record
        want = [_record_schema(m) for m in typing.get_args(record)]
        got = _union_members(_schema(model))
        assert [sorted(s["properties"]) for s in got] == [sorted(s["properties"]) for s in want]
        return
    got, want = _schema(model), _record_schema(record)
    assert sorted(got["properties"]) == sorted(want["properties"]), name
    assert sorted(got.get("required", [])) == sorted(want.get("required", [])), name
    for key, value in got["properties"].items():
        if (name, key) in NARROWER:
            continue
        assert value == want["properties"][key], (name, key)


@pytest.mark.parametrize(("name", "key"), sorted(NARROWER))
def test_narrower_model_values_are_values_of_the_record(name: str, key: str) -> None:
    """Where a model is narrower, each value it allows is one its record allows too."""
    model_field = _model_classes()[name].model_fields[key]
    record_type = typing.get_type_hints(getattr(answers, name))[key]
    allowed = typing.get_args(model_field.annotation) or (None,)
    for value in allowed:
        TypeAdapter(record_type).validate_python(value)
    with pytest.raises(ValidationError):
        TypeAdapter(record_type).validate_python("not a value")
