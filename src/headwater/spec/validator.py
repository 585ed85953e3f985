"""Validate OpenLineage events against the official core schema and the standard facet schemas.

How an event is checked:

1. Its kind is read from its top-level keys exactly as the core schema's ``oneOf`` decides it
   (:func:`classify`): ``run`` + ``job`` is a RunEvent, ``dataset`` (without both ``job`` and
   ``run``) a DatasetEvent, ``job`` without ``run`` a JobEvent. Validating against that one
   definition instead of the ``oneOf`` gives precise messages ("``$.run.runId``: required")
   rather than "not valid under any of the given schemas".
2. Every facet in ``run.facets``, ``job.facets``, ``inputs[i].facets``, ``inputs[i].inputFacets``,
   ``outputs[i].facets``, ``outputs[i].outputFacets`` and ``dataset.facets`` whose name is a
   standard facet for that place (``schema``, ``columnLineage``, ``parent``, ...) is validated
   against that facet's definition. Other (custom) facet names are kept unvalidated beyond
   the core ``BaseFacet`` rules (``_producer`` and ``_schemaURL``). So is a dataset or job facet sent as a
   deletion marker (``_deleted: true``, :func:`is_deletion`): it has no content to check.

Two engines, one authority. Every schema is compiled twice: with jsonschema-rs (Rust) and with
jsonschema (Python, with a ``referencing`` Registry). An event that jsonschema-rs finds valid
everywhere is accepted at once (about 0.1 ms for a 20 kB Spark event); otherwise jsonschema,
the authority, finds and describes every problem — walking only the parts jsonschema-rs finds invalid
(the core with each facet cut to its BaseFacet keys, then each invalid standard facet): a 25 kB Spark event
whose facets lack ``_schemaURL`` (accepted leniently, with warnings) costs a few ms instead of ~20. Both use
the same format checks (:mod:`headwater.spec.formats`). :meth:`EventValidator.validate_thorough`
skips the fast path; the tests check that both ways agree.

Strict or lenient (:meth:`EventValidator.check`). Strictly every problem refuses the event. Leniently
(the server's default, setting ``validation``) only the core that protects the graph refuses it: the
event's kind and ``eventType``, the run id, the identity (namespace, name) of the job and of every
dataset, a readable ``eventTime``, the shape of the facet containers, and the facets the graph is
derived from (:data:`GRAPH_FACETS`). Everything else — a missing ``schemaURL`` or ``producer``, an
``eventTime`` without a zone (read as UTC), a facet that does not match its schema, a facet without
``_producer``/``_schemaURL``, a null where a value may be left out (:data:`OPTIONAL_NULL`), even in a graph
facet — is a *warning*: the event is stored as sent and the warnings kept with it, as Marquez accepts such events.

Validators are compiled once per :class:`EventValidator`; ``validate`` is thread-safe.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.model.times import InvalidTime, parse_time
from headwater.spec.facets import BASE_TO_SLOT, Slot, facet_catalog
from headwater.spec.formats import format_checker, is_date_time, is_uri, is_uuid
from headwater.spec.paths import json_path
from headwater.spec.registry import CORE_ID, build_registry, load_schemas

EventKind = Literal["RUN", "DATASET", "JOB"]

_KIND_DEF: Mapping[EventKind, str] = {"RUN": "RunEvent", "DATASET": "DatasetEvent", "JOB": "JobEvent"}
MAX_PROBLEMS = 100
_MAX_REPR = 80


# Facets the graph is derived from, checked strictly in every mode: ``schema`` (a dataset's fields),
# ``columnLineage`` (column edges and the datasets they read), ``parent`` (the parent run and job),
# ``errorMessage`` (a run's error columns). Their ``_producer``/``_schemaURL`` are lenient as any facet's.
GRAPH_FACETS = frozenset({"schema", "columnLineage", "parent", "errorMessage"})
_LENIENT_TOP = frozenset({"schemaURL", "producer"})  # an event's provenance, not its content
_FACET_META = frozenset({"_producer", "_schemaURL", "_deleted"})
_CONTAINERS = frozenset({"facets", "inputFacets", "outputFacets"})
# The kind of a problem that is only a null where the schema lets a value be left out: a facet sent as null, or an
# optional property of a facet (a field's ``description``, errorMessage's ``stackTrace``) sent as null. Producers
# that write every property (a Jackson or Go emitter without NON_NULL/omitempty, older openlineage-python's ``None``
# facets) send them; the graph reads such a null as absent, so leniently it is a warning even in a graph facet.
OPTIONAL_NULL = "optional-null"
# Where the core schema lets a facet be deleted (``DatasetFacet`` and ``JobFacet`` declare ``_deleted``).
DELETABLE_SLOTS: frozenset[Slot] = frozenset({"dataset", "job"})


def is_deletion(slot: Slot, facet: object) -> bool:
    """Whether ``facet`` at ``slot`` is a deletion marker: ``_deleted: true`` where the spec defines it. A marker
    removes the facet of its name and carries no content, so the facet's own schema (its required properties:
    documentation's ``description``, columnLineage's ``fields``) is not asked of it; the core schema still checks
    its BaseFacet keys and that ``_deleted`` is a boolean. The projection reads no content from it either."""
    return slot in DELETABLE_SLOTS and isinstance(facet, Mapping) and facet.get("_deleted") is True


def live_facets(slot: Slot, facets: Mapping[str, Any]) -> dict[str, Any]:
    """``facets`` (of a node, after what an event sent was laid over them) without the deletion markers among
    them: a marker removes the facet of its name and is not kept as a facet itself."""
    if not any(is_deletion(slot, value) for value in facets.values()):
        return dict(facets)
    return {name: value for name, value in facets.items() if not is_deletion(slot, value)}


class FastValidator(Protocol):
    """A schema compiled by jsonschema-rs (an untyped extension module): asked only whether a value is valid."""

    def is_valid(self, instance: object) -> bool: ...


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a submitted body: where (a JSON path) and what."""

    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


class AmbiguousEvent(ValueError):
    pass


def _facet_at(parts: list[str | int]) -> tuple[str, list[str | int]] | None:
    """(facet name, the path inside the facet) when ``parts`` points into one facet, else None."""
    if len(parts) >= 3 and parts[0] in ("run", "job", "dataset") and parts[1] == "facets":
        return str(parts[2]), parts[3:]
    if len(parts) >= 4 and parts[0] in ("inputs", "outputs") and isinstance(parts[1], int) and parts[2] in _CONTAINERS:
        return str(parts[3]), parts[4:]
    return None


def is_lenient(parts: list[str | int], kind: str, event: JSONMapping) -> bool:
    """Whether a problem at ``parts`` (found by validator ``kind``) may be a warning in lenient mode."""
    if kind == OPTIONAL_NULL:
        return True
    if len(parts) == 1 and parts[0] in _LENIENT_TOP:
        return True
    if parts == ["eventTime"] and kind == "format":
        try:
            parse_time(event.get("eventTime"))  # type: ignore[arg-type]
        except InvalidTime:
            return False
        return True  # a date-time without a zone (read as UTC), or another form the store can read
    facet = _facet_at(parts)
    if facet is None:
        return False
    name, inside = facet
    return name not in GRAPH_FACETS or (bool(inside) and inside[0] in _FACET_META)


def classify(event: JSONMapping) -> EventKind | None:
    """The kind of an event by its top-level keys, following the core schema's ``oneOf``.

    Returns None when no kind fits (no ``run``, ``dataset`` or ``job``); raises
    :class:`AmbiguousEvent` when the keys fit both DatasetEvent and JobEvent.
    """
    has_run, has_job, has_dataset = "run" in event, "job" in event, "dataset" in event
    if has_run and has_job:
        return "RUN"
    if has_dataset and has_job:
        raise AmbiguousEvent(
            "the event has 'dataset' and 'job' but no 'run': that fits both a DatasetEvent and a JobEvent; "
            "send a DatasetEvent (only 'dataset'), a JobEvent (only 'job') or a RunEvent ('run' and 'job')"
        )
    if has_dataset:
        return "DATASET"
    if has_job:
        return "JOB"
    if has_run:
        return "RUN"  # validating as a RunEvent reports the missing 'job'
    return None


def _short(value: JSONValue) -> str:
    """``value`` as the JSON text it was sent as (``"run-1"``, ``true``, ``{"a": 1}``), cut to a readable length."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON (a caller's Python value): its repr
        text = repr(value)
    return text if len(text) <= _MAX_REPR else text[: _MAX_REPR - 3] + "..."


_TYPE_NAMES = {
    "dict": "object",
    "list": "array",
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "NoneType": "null",
}


def _message(error: ValidationError) -> tuple[list[str | int], str]:
    """Path segments and a readable message for one jsonschema error."""
    parts: list[str | int] = list(error.absolute_path)
    kind = error.validator
    value: Any = error.validator_value  # the schema keyword's value (a list for required/enum)
    if kind == "required":
        missing = next((p for p in value if error.message.startswith(f"{p!r} ")), None)
        if missing is not None:
            return [*parts, missing], "required field is missing"
    if kind == "type":
        got = _TYPE_NAMES.get(type(error.instance).__name__, type(error.instance).__name__)
        expected = error.validator_value
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        shown = "" if error.instance is None else f" {_short(error.instance)}"
        return parts, f"expected {expected_text}, got {got}{shown}"
    if kind == "format":
        return parts, f"{_short(error.instance)} is not a valid {error.validator_value}"
    if kind == "enum":
        allowed = ", ".join(str(v) for v in value)
        return parts, f"{_short(error.instance)} is not one of: {allowed}"
    return parts, error.message if len(error.message) <= 300 else error.message[:297] + "..."


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    """Descend into anyOf/oneOf to report the concrete problems, not 'not valid under any'."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches = {e.schema_path[0] for e in error.context if e.schema_path}
        chosen: Iterable[ValidationError] = error.context if len(branches) <= 1 else [best_match(error.context)]
        for sub in chosen:
            yield from _leaves(sub)
        return
    yield error


def _facet_places(kind: EventKind, event: JSONMapping) -> Iterator[tuple[Slot, list[str | int], JSONValue]]:
    """(slot, path of the facets object, facets object) for every facet container in the event."""
    if kind == "RUN":
        run = event.get("run")
        if isinstance(run, Mapping):
            yield "run", ["run", "facets"], run.get("facets")
    if kind in ("RUN", "JOB"):
        job = event.get("job")
        if isinstance(job, Mapping):
            yield "job", ["job", "facets"], job.get("facets")
        for key, extra_key, extra_slot in (("inputs", "inputFacets", "input"), ("outputs", "outputFacets", "output")):
            datasets = event.get(key)
            if not isinstance(datasets, list):
                continue
            for i, ds in enumerate(datasets):
                if isinstance(ds, Mapping):
                    yield "dataset", [key, i, "facets"], ds.get("facets")
                    yield extra_slot, [key, i, extra_key], ds.get(extra_key)  # type: ignore[misc]
    if kind == "DATASET":
        dataset = event.get("dataset")
        if isinstance(dataset, Mapping):
            yield "dataset", ["dataset", "facets"], dataset.get("facets")


def _stripped(facets: JSONValue) -> JSONValue:
    """A facet container with each facet cut to the keys the core schema checks (BaseFacet's: every
    facet there is ``{"$ref": "#/$defs/<Slot>Facet"}``, additionalProperties true); what is not an
    object stays as it is, so the core's messages about it are unchanged."""
    if not isinstance(facets, Mapping):
        return facets
    return {
        name: {k: facet[k] for k in _FACET_META if k in facet} if isinstance(facet, Mapping) else facet
        for name, facet in facets.items()
    }


_PLACEHOLDER_URI = "https://headwater.invalid/placeholder"


def _is_facet(parts: list[str | int]) -> bool:
    """Whether ``parts`` is the path of one facet (not of something inside it)."""
    at = _facet_at(parts)
    return at is not None and not at[1]


def _without_nulls(value: JSONValue) -> JSONValue:
    """``value`` with every object property whose value is null left out (array items are kept as they are)."""
    if isinstance(value, Mapping):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _only_optional_nulls(fast: FastValidator, facet: JSONValue) -> bool:
    """Whether ``facet``'s problems are only nulls of properties it may leave out (and the BaseFacet keys it lacks,
    which are warnings anyway): valid once its null properties are dropped. A null where a value is required (an
    errorMessage's ``message``) stays a problem, since dropping it leaves the property missing."""
    if not isinstance(facet, Mapping):
        return False
    stripped = _without_nulls(facet)
    if stripped == facet:
        return False
    assert isinstance(stripped, Mapping)
    return bool(fast.is_valid({**stripped, **{k: _PLACEHOLDER_URI for k in _missing_base_keys(stripped)}}))


def _missing_base_keys(facet: JSONValue) -> list[str]:
    """The BaseFacet keys every standard facet requires (``_producer``, ``_schemaURL``) that ``facet`` lacks:
    the usual lenient case. When the facet is valid with them filled in, they are its only problems."""
    if not isinstance(facet, Mapping):
        return []
    return [k for k in ("_producer", "_schemaURL") if k not in facet]


def _core_view(event: JSONMapping) -> JSONObject:
    """``event`` as the core schema sees it: the same problems at the same paths, without walking the
    facets' contents (the standard facets are checked against their own schemas separately)."""
    view = dict(event)
    for key in ("run", "job", "dataset"):
        part = event.get(key)
        if isinstance(part, Mapping) and "facets" in part:
            view[key] = {**part, "facets": _stripped(part["facets"])}
    for key in ("inputs", "outputs"):
        datasets = event.get(key)
        if isinstance(datasets, list):
            view[key] = [
                {**ds, **{c: _stripped(ds[c]) for c in _CONTAINERS if c in ds}} if isinstance(ds, Mapping) else ds
                for ds in datasets
            ]
    return view


class EventValidator:
    """Compiled validators for the core event kinds and every standard facet."""

    def __init__(self, directory: Path | None = None) -> None:
        schemas = load_schemas(directory)
        registry = build_registry(schemas)
        checker = format_checker()
        fast_registry = jsonschema_rs.Registry([(sid, dict(schema)) for sid, schema in schemas.items()])
        fast_formats = {"date-time": is_date_time, "uri": is_uri, "uuid": is_uuid}

        def compile_ref(ref: str) -> tuple[FastValidator, Draft202012Validator]:
            fast = jsonschema_rs.Draft202012Validator(
                {"$ref": ref}, registry=fast_registry, formats=fast_formats, validate_formats=True
            )
            return fast, Draft202012Validator({"$ref": ref}, registry=registry, format_checker=checker)

        self._kinds = {kind: compile_ref(f"{CORE_ID}#/$defs/{name}") for kind, name in _KIND_DEF.items()}
        # what the core schema asks of every facet at a slot (each container is {"additionalProperties": {"$ref":
        # "#/$defs/<Slot>Facet"}}): a facet's BaseFacet keys, checked once per distinct facet by the fast path
        self._slot_bases = {slot: compile_ref(f"{CORE_ID}#/$defs/{base}")[0] for base, slot in BASE_TO_SLOT.items()}
        self._catalog = facet_catalog(schemas)
        self._facets = {
            slot: {name: compile_ref(ref) for name, ref in names.items()} for slot, names in self._catalog.items()
        }

    def standard_facets(self, slot: Slot) -> frozenset[str]:
        """Names of the standard facets that may sit at ``slot``."""
        return frozenset(self._catalog[slot])

    def facet_schema(self, slot: Slot, name: str) -> str | None:
        """The schema reference (``<$id>#/$defs/<Definition>``) a facet named ``name`` at ``slot`` is checked against."""
        return self._catalog[slot].get(name)

    def fast_core(self, kind: EventKind, view: JSONMapping) -> bool:
        """True when jsonschema-rs finds ``view`` valid against the ``kind`` definition: for an event with each
        facet cut to its BaseFacet keys (what the core schema constrains of a facet), the core's half of
        :meth:`fast_accepts`."""
        return bool(self._kinds[kind][0].is_valid(view))

    def fast_slot_base(self, slot: Slot) -> FastValidator:
        """The core schema's check of any facet at ``slot`` (its ``<Slot>Facet`` definition: the BaseFacet keys):
        a core with each facet container emptied is valid in :meth:`fast_core` exactly when it is valid with every
        facet there, if every facet passes this."""
        return self._slot_bases[slot]

    def fast_facet(self, slot: Slot, name: str) -> FastValidator | None:
        """The compiled fast check of the standard facet ``name`` at ``slot`` (None: a custom facet), the other
        half of :meth:`fast_accepts`."""
        compiled = self._facets[slot].get(name)
        return None if compiled is None else compiled[0]

    def validate(self, event: JSONValue, root: str = "$") -> list[Problem]:
        """Every problem with ``event`` (empty when valid); paths start at ``root`` (``$`` or ``$[i]``)."""
        if isinstance(event, Mapping) and self.fast_accepts(event):
            return []
        return sorted({problem for _, _, problem in self._problems(event, root)})[:MAX_PROBLEMS]

    def fast_accepts(self, event: JSONMapping) -> bool:
        """True when jsonschema-rs finds the event and its standard facets valid (no messages)."""
        try:
            kind = classify(event)
        except AmbiguousEvent:
            return False
        if kind is None or not self._kinds[kind][0].is_valid(event):
            return False
        for slot, _, facets in _facet_places(kind, event):
            if not isinstance(facets, Mapping):
                continue
            for name, facet in facets.items():
                compiled = self._facets[slot].get(name)
                if compiled is not None and not compiled[0].is_valid(facet) and not is_deletion(slot, facet):
                    return False
        return True

    def check(self, event: JSONValue, root: str = "$", *, lenient: bool = False) -> tuple[list[Problem], list[Problem]]:
        """(errors, warnings) for ``event``: strictly every problem is an error; leniently the problems
        outside the core (module docstring, :func:`is_lenient`) are warnings, when the core has no error."""
        if isinstance(event, Mapping) and self.fast_accepts(event):
            return [], []
        if not lenient or not isinstance(event, Mapping):
            return self.validate_thorough(event, root), []
        errors: set[Problem] = set()
        warnings: set[Problem] = set()
        for parts, kind, problem in self._problems(event, root):
            (warnings if is_lenient(parts, kind, event) else errors).add(problem)
        return sorted(errors)[:MAX_PROBLEMS], ([] if errors else sorted(warnings)[:MAX_PROBLEMS])

    def validate_thorough(self, event: JSONValue, root: str = "$") -> list[Problem]:
        """Like :meth:`validate`, always with jsonschema over the whole event (no fast path, no shortcut):
        the oracle the tests compare the fast ways with."""
        return sorted({problem for _, _, problem in self._problems(event, root, shortcuts=False)})[:MAX_PROBLEMS]

    def _problems(
        self, event: JSONValue, root: str, *, shortcuts: bool = True
    ) -> Iterator[tuple[list[str | int], str, Problem]]:
        """Every problem with its path segments (relative to the event) and the schema keyword that found it."""
        if not isinstance(event, Mapping):
            got = _TYPE_NAMES.get(type(event).__name__, type(event).__name__)
            yield [], "type", Problem(root, f"expected a JSON object (an OpenLineage event), got {got}")
            return
        try:
            kind = classify(event)
        except AmbiguousEvent as exc:
            yield [], "kind", Problem(root, str(exc))
            return
        if kind is None:
            message = (
                "not an OpenLineage event: a RunEvent has 'run' and 'job', "
                "a DatasetEvent has 'dataset', a JobEvent has 'job'"
            )
            yield [], "kind", Problem(root, message)
            return
        # jsonschema-rs first, part by part: jsonschema (which writes the messages) walks only the parts it
        # finds invalid — a leniently accepted event (a facet without _schemaURL) is otherwise walked whole
        # in Python, ~50 times the fast path for a wide event
        if not shortcuts or not self._kinds[kind][0].is_valid(event):
            for error in self._kinds[kind][1].iter_errors(_core_view(event) if shortcuts else event):
                for leaf in _leaves(error):
                    parts, message = _message(leaf)
                    null_facet = leaf.instance is None and leaf.validator == "type" and _is_facet(parts)
                    yield (
                        parts,
                        OPTIONAL_NULL if null_facet else str(leaf.validator),
                        Problem(json_path(parts, root), message),
                    )
        for slot, container_path, facets in _facet_places(kind, event):
            if not isinstance(facets, Mapping):
                continue
            for name, facet in facets.items():
                compiled = self._facets[slot].get(name)
                if compiled is None or is_deletion(slot, facet):
                    continue  # a custom facet, or a deletion marker: kept as is (the core checked its BaseFacet keys)
                if shortcuts and compiled[0].is_valid(facet):
                    continue
                if facet is None:  # a facet sent as null: read as not sent (the core schema says so at this path)
                    full = [*container_path, name]
                    yield full, OPTIONAL_NULL, Problem(json_path(full, root), "expected object, got null")
                    continue
                if _only_optional_nulls(compiled[0], facet):
                    for error in compiled[1].iter_errors(facet):
                        for leaf in _leaves(error):
                            parts, message = _message(leaf)
                            full = [*container_path, name, *parts]
                            null = leaf.instance is None and leaf.validator == "type"
                            kind_of = OPTIONAL_NULL if null else str(leaf.validator)
                            yield full, kind_of, Problem(json_path(full, root), message)
                    continue
                missing = _missing_base_keys(facet) if shortcuts else []
                if missing and compiled[0].is_valid({**facet, **{k: _PLACEHOLDER_URI for k in missing}}):
                    for key in missing:  # the facet's only problems (what jsonschema would say of each)
                        full = [*container_path, name, key]
                        yield full, "required", Problem(json_path(full, root), "required field is missing")
                    continue
                for error in compiled[1].iter_errors(facet):
                    for leaf in _leaves(error):
                        parts, message = _message(leaf)
                        full = [*container_path, name, *parts]
                        yield full, str(leaf.validator), Problem(json_path(full, root), message)
