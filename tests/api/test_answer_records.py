"""The graph's answers are declared once: the API's response models are the records, bar two narrowings.

``headwater.graph.answers`` declares each GraphReader answer as a ``TypedDict`` (with the descriptions the
OpenAPI document shows); ``headwater.api.models`` re-exports those records as the graph routes' response
models. The only graph shapes ``api/models.py`` declares itself are the deliberate narrowings of
:data:`NARROWER` (what ``GET /graph/node`` always holds for a dataset or a job); each must keep its record's
keys and requiredness, differ only in the listed keys, and allow there only values its record allows.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from headwater.api import models
from headwater.api.graph import router
from headwater.graph import answers

# (model, key): why the model's value is narrower than the record's
NARROWER = {
    ("DatasetDetails", "type"): "a dataset's details are of a DATASET node (the record keeps Node's type)",
    ("DatasetDetails", "kind"): "a dataset always has a kind (the record keeps Node's optional kind)",
    ("JobDetails", "type"): "a job's details are of a JOB node",
    ("JobDetails", "kind"): "a job has no kind",
}
NARROWED = sorted({name for name, _ in NARROWER})


def _declared_in_api() -> set[str]:
    """Names of the TypedDicts and classes api/models.py declares itself (not the records it re-exports)."""
    return {
        name
        for name, value in vars(models).items()
        if isinstance(value, type) and value.__module__ == models.__name__ and name.isidentifier()
    }


def test_no_record_is_declared_again_in_the_api() -> None:
    """A graph answer's shape has one declaration: api/models.py declares no record's name but the narrowings."""
    again = sorted(name for name in _declared_in_api() if hasattr(answers, name) and name not in {"NodeDetails"})
    assert again == NARROWED


def test_every_graph_route_answers_a_record() -> None:
    """Each graph route's response model is a record of graph/answers.py, or NodeDetails over records."""
    seen = set()
    for route in router.routes:
        model: Any = getattr(route, "response_model", None)
        assert model is not None, route
        if model is models.NodeDetails:
            members = typing.get_args(model.model_fields["root"].annotation)
            assert [m.__name__ for m in members] == ["DatasetDetails", "JobDetails", "Run"]
            assert members[2] is answers.Run
            continue
        assert is_typeddict(model) and model.__module__ == answers.__name__, (route, model)
        assert getattr(answers, model.__name__) is model
        seen.add(model.__name__)
    assert {"LineageAnswer", "ImpactAnswer", "CompareAnswer", "HistoryAnswer", "SearchAnswer"} <= seen


@pytest.mark.parametrize("name", NARROWED)
def test_a_narrowing_keeps_its_records_keys(name: str) -> None:
    narrowed, record = getattr(models, name), getattr(answers, name)
    assert is_typeddict(narrowed) and record in narrowed.__orig_bases__
    assert narrowed.__required_keys__ == record.__required_keys__
    assert narrowed.__optional_keys__ == record.__optional_keys__
    mine, theirs = typing.get_type_hints(narrowed), typing.get_type_hints(record)
    differ = {key for key in mine if mine[key] != theirs[key]}
    assert differ == {key for n, key in NARROWER if n == name}
    assert narrowed.__pydantic_config__ == {"extra": "forbid"}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "key"), sorted(NARROWER))
def test_narrower_model_values_are_values_of_the_record(name: str, key: str) -> None:
    """Where a model is narrower, each value it allows is one its record allows too."""
    narrowed_type = typing.get_type_hints(getattr(models, name))[key]
    record_type = typing.get_type_hints(getattr(answers, name))[key]
    allowed = typing.get_args(narrowed_type) or (None,)
    for value in allowed:
        TypeAdapter(record_type).validate_python(value)
    with pytest.raises(ValidationError):
        TypeAdapter(narrowed_type).validate_python("RESTRICTED")
    with pytest.raises(ValidationError):
        TypeAdapter(record_type).validate_python("not a value")
