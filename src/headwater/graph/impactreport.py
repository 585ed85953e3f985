"""The impact check's report: its records, severities, the viewer's redaction and the JSON form.

Contract: :class:`ImpactReport` is what :func:`headwater.graph.impactcheck.check` answers (one
:class:`ChangeResult` per proposed change, one :class:`Affected` per downstream column, dataset or job);
severities order ``none < info < warning < breaking`` (:func:`worst`, :func:`at_least`); :func:`redact`
gives the report as a viewer may see it and :func:`report_from_json` reads the API's JSON answer back
(the CLI's remote check). Pure records: no database here (the walk that builds them is impactcheck's).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from headwater.graph.visibility import RESTRICTED, Redactor
from headwater.model.jsontypes import JSONObject, JSONValue

INFO, WARNING, BREAKING = "info", "warning", "breaking"
NONE = "none"
SEVERITIES = (INFO, WARNING, BREAKING)
RANK = {NONE: 0, INFO: 1, WARNING: 2, BREAKING: 3}

GONE, RETYPED, VALUES = "gone", "retyped", "new values"


def worst(*levels: str) -> str:
    return max(levels, key=lambda s: RANK[s], default=NONE)


def at_least(level: str, floor: str) -> bool:
    """Whether ``level`` is ``floor`` or worse (``floor`` one of :data:`SEVERITIES`)."""
    return RANK[level] >= RANK[floor]


@dataclass(frozen=True)
class Stewardship:
    """What the catalog says about a dataset: its asset, owning project, owners, subscribers, published."""

    asset: str | None = None
    project: str | None = None
    owners: tuple[str, ...] = ()
    subscribers: tuple[str, ...] = ()
    published: bool = False


@dataclass
class Affected:
    """One downstream column, dataset or job and how the change reaches it."""

    id: str
    type: str  # FIELD | DATASET | JOB
    namespace: str
    name: str
    field: str | None
    severity: str
    # DIRECT | INDIRECT (column lineage of the path), READS (a job), MAY_READ (a job reading the dataset without
    # column lineage), WRITTEN (by a breaking job), TAGGED (a tag would flow into a published asset)
    effect: str
    reason: str
    change: int  # index of the change in the request
    depth: int  # edges from the changed column
    path: list[str]  # node ids from the changed column to this item (fields and the jobs between them)
    transformations: list[str]  # per column edge on the path: TYPE/SUBTYPE (+ masking)
    project: str | None = None
    owners: list[str] = dataclasses.field(default_factory=list)  # (``field`` is a column name here)
    subscribers: list[str] = dataclasses.field(default_factory=list)
    published: bool = False


@dataclass
class ValuesChange:
    column: str
    before: list[str]  # DIRECT source field ids the graph holds
    after: list[str]  # DIRECT source field ids of the proposed script


@dataclass
class ChangeResult:
    """A change as the graph sees it: found or not, the columns it changes, its own severity."""

    index: int
    change: JSONObject  # the change as the request gave it (its JSON form)
    found: bool
    severity: str
    gone: list[str] = field(default_factory=list)  # field ids
    retyped: list[str] = field(default_factory=list)
    values: list[ValuesChange] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # columns the change adds (nothing downstream reads them yet)
    notes: list[str] = field(default_factory=list)


@dataclass
class ImpactReport:
    at: str | None
    severity: str  # the worst item's, or none
    changes: list[ChangeResult]
    items: list[Affected]
    published: list[str]  # ids of affected published datasets
    summary: dict[str, int]
    truncated: bool

    def to_json(self) -> JSONObject:
        return asdict(self)


def type_counts(items: Sequence[Affected]) -> dict[str, int]:
    return {
        "datasets": sum(i.type == "DATASET" for i in items),
        "jobs": sum(i.type == "JOB" for i in items),
        "fields": sum(i.type == "FIELD" for i in items),
        "restricted": sum(i.type == RESTRICTED for i in items),
    }


def redact(report: ImpactReport, policy: Redactor) -> ImpactReport:
    """The report as ``policy``'s viewer may see it: a hidden item is a restricted node (no name, column,
    owners or reason), hidden nodes on paths and in the changes' source lists are restricted ids."""
    items: list[Affected] = []
    restricted: set[str] = set()  # a hidden dataset and its columns are one restricted node: listed once, worst first
    for item in report.items:
        path = [policy.id(p) for p in item.path]
        if policy.hidden.hides(item.id):
            alias = policy.id(item.id)
            if alias not in restricted:
                restricted.add(alias)
                items.append(
                    Affected(
                        alias, RESTRICTED, "", "", None, item.severity, item.effect, "restricted", item.change,
                        item.depth, path[: path.index(alias) + 1] if alias in path else path, item.transformations,
                    )
                )  # fmt: skip
            continue
        reason = item.reason
        for p in item.path:
            if policy.hidden.hides(p):
                reason = reason.replace(p, policy.id(p))
        items.append(Affected(**{**asdict(item), "path": path, "reason": reason}))
    changes: list[ChangeResult] = []
    for result in report.changes:
        values = [ValuesChange(v.column, policy.ids(v.before), policy.ids(v.after)) for v in result.values]
        changes.append(ChangeResult(**{**asdict(result), "values": values}))
    summary = {sev: sum(i.severity == sev for i in items) for sev in SEVERITIES}
    summary.update(type_counts(items))
    return ImpactReport(
        report.at,
        report.severity,
        changes,
        items,
        [i.id for i in items if i.type == "DATASET" and i.published],
        summary,
        report.truncated,
    )


def report_from_json(doc: JSONValue) -> ImpactReport:
    """An :class:`ImpactReport` from its JSON form (the API's answer); ValueError when it is not one."""
    try:
        return ImpactReport(
            doc["at"],
            doc["severity"],
            [ChangeResult(**{**c, "values": [ValuesChange(**v) for v in c.get("values", [])]}) for c in doc["changes"]],
            [Affected(**i) for i in doc["items"]],
            list(doc["published"]),
            dict(doc["summary"]),
            bool(doc["truncated"]),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not an impact report: {exc}") from None
