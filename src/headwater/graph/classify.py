"""Classifications (tags) on datasets, columns and jobs, and how they flow along column lineage (docs/classify.md).

Where tags come from, all read from the graph as of ``t`` (so a report is as-of aware like every answer):

- the catalog's business metadata: the ``headwater_catalog`` facet the catalog sends on an asset's nodes
  (:mod:`headwater.catalog`): its ``tags`` and ``glossaryTerms`` tag the dataset; its form ``columnTags``
  (``{"email": "PII", "phone": "PII, contact"}``) tags columns;
- OpenLineage ``tags`` facets: the dataset facet (TagsDatasetFacet 1-0-0: a tag with a ``field`` tags that
  column, without one the dataset), the job facet (TagsJobFacet) and the run facet of the job's latest run
  (TagsRunFacet) tag the job. A tag is its ``key``; its ``value`` also matches (``classification: PII``);
- column comments (the schema facet's ``description``, which the crawler fills from the database's column
  comments): each ``#Tag`` in a comment tags the column;
- rules (setting ``classify_rules``): a tag per regular expression searched in column names.

Propagation: a column's tag flows to every column computed from its value, hop by hop along column edges
with a DIRECT transformation. It **stops** where the value is masked (``masking: true``: hashes, counts)
and, for the tags of the setting ``classify_aggregation_stops`` (``*``: all), at an aggregation; an INDIRECT
dependency (join, filter, group-by key...) carries no value and no tag. Each inherited tag carries its
path (the source column, the jobs and columns between, the transformation of each edge) and every place
it stopped says where and why. Dataset-level and job tags are declared only: they do not flow.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import sqlalchemy as sa

from headwater.graph.columns import Field, column_step
from headwater.graph.common import field_id, select_in, valid_at
from headwater.graph.visibility import Redactor
from headwater.model.jsontext import loads_text
from headwater.model.jsontypes import JSONValue
from headwater.model.times import iso
from headwater.store.schema import dataset_versions, datasets, job_versions, jobs, runs

K = TypeVar("K", bound=Hashable)  # a declared tag's key: (dataset, tag), (job, tag), ((dataset, column), tag)
_MAP = (dict, Mapping)  # dict first: an isinstance check against the Mapping ABC alone is slow
CATALOG_FACET = "headwater_catalog"  # the facet the catalog sends its metadata in (catalog/lineage.py)
COLUMN_TAGS_FORM = "columnTags"
_HASHTAG = re.compile(r"(?<![\w#])#([A-Za-z][\w-]*)")

CATALOG, GLOSSARY, OPENLINEAGE, COMMENT, RULE = "catalog", "glossary", "openlineage", "comment", "rule"


class PolicyError(ValueError):
    """A classification setting that cannot be read."""


@dataclass(frozen=True)
class Policy:
    """The settings ``classify_rules`` (tag → regular expression searched in column names) and
    ``classify_aggregation_stops`` (tags that do not flow through an aggregation; ``*``: every tag)."""

    rules: tuple[tuple[str, re.Pattern[str]], ...] = ()
    aggregation_stops: frozenset[str] = frozenset()
    stop_every_aggregation: bool = False

    @classmethod
    def from_settings(cls, rules: str, aggregation_stops: str) -> Policy:
        parsed: list[tuple[str, re.Pattern[str]]] = []
        if rules.strip():
            try:
                doc = json.loads(rules)
            except json.JSONDecodeError as exc:
                raise PolicyError(f"classify_rules: not a JSON object of tag -> regular expression: {exc}") from None
            if not isinstance(doc, dict) or not all(isinstance(v, str) for v in doc.values()):
                raise PolicyError("classify_rules: a JSON object of tag -> regular expression is required")
            for tag, pattern in doc.items():
                try:
                    parsed.append((str(tag), re.compile(pattern)))
                except re.error as exc:
                    raise PolicyError(f"classify_rules: {tag}: {exc}") from None
        stops = {s.strip().lower() for s in aggregation_stops.split(",") if s.strip()}
        return cls(tuple(parsed), frozenset(stops - {"*"}), "*" in stops)

    def stops_at_aggregation(self, tag: str) -> bool:
        return self.stop_every_aggregation or tag.lower() in self.aggregation_stops


@dataclass(frozen=True)
class TagSource:
    """Where a declared tag comes from: ``kind`` (catalog, glossary, openlineage, comment, rule) and a detail
    (the rule's pattern, the comment, the facet's tag source)."""

    kind: str
    detail: str = ""


@dataclass
class TaggedColumn:
    id: str
    dataset: str
    field: str
    tag: str
    inherited: bool
    sources: list[TagSource]  # declared here (empty when only inherited)
    origin: str | None = None  # inherited: the declared column it flows from
    path: list[str] = dataclasses.field(default_factory=list)  # origin, job, column, ..., this column
    transformations: list[str] = dataclasses.field(default_factory=list)  # per edge of the path
    hops: int = 0


@dataclass
class TaggedNode:
    """A dataset or job carrying the tag: declared on it, or (datasets) on some of its columns."""

    id: str
    type: str  # DATASET | JOB
    tag: str
    sources: list[TagSource]
    columns: list[str] = field(default_factory=list)  # its columns carrying the tag
    inherited: bool = False  # only through inherited columns


@dataclass
class TagStop:
    """Where a tag did not flow on: the column it would have reached, the job, and why."""

    column: str
    job: str
    tag: str
    reason: str  # masked | aggregated
    transformation: str
    origin: str
    path: list[str]


@dataclass
class ClassificationReport:
    tag: str | None  # the tag asked for (None: every tag)
    at: str | None
    datasets: list[TaggedNode]
    columns: list[TaggedColumn]
    jobs: list[TaggedNode]
    stops: list[TagStop]
    truncated: bool


def _split_tags(value: JSONValue) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return []


def _tags_facet(facet: JSONValue) -> Iterable[tuple[str, str | None, str, str]]:
    """(key, field, value, source) of each tag of an OpenLineage tags facet."""
    items = facet.get("tags") if isinstance(facet, _MAP) else None
    for t in items if isinstance(items, list) else []:
        if isinstance(t, _MAP) and isinstance(t.get("key"), str) and t["key"]:
            fld = t.get("field")
            yield (
                t["key"],
                fld if isinstance(fld, str) and fld else None,
                str(t.get("value") or ""),
                str(t.get("source") or ""),
            )


def _tag_name(query: str | None, key: str, value: str) -> str:
    """A tags-facet tag's name: what matched the tag asked for (its key, else its value, as the producer wrote
    it); without a query ``key`` (``key=value`` when the value says more than yes: ``classification=PII``)."""
    if query is not None:
        return key if key.lower() == query.lower() else value
    return key if value.strip().lower() in ("", "true", "yes", "1") else f"{key}={value}"


def _matches(query: str | None, key: str, value: str = "") -> bool:
    return query is None or query.lower() in (key.lower(), value.lower())


@dataclass
class _Declared:
    columns: dict[tuple[Field, str], list[TagSource]] = field(default_factory=dict)  # (column, tag) → sources
    datasets: dict[tuple[str, str], list[TagSource]] = field(default_factory=dict)  # (dataset, tag) → sources
    jobs: dict[tuple[str, str], list[TagSource]] = field(default_factory=dict)

    @staticmethod
    def _add(into: dict[K, list[TagSource]], key: K, source: TagSource) -> None:
        found = into.setdefault(key, [])
        if source not in found:
            found.append(source)


def declared(conn: sa.Connection, policy: Policy, tag: str | None, t: int | None) -> _Declared:
    """Every tag declared on a dataset, column or job as of ``t`` (``tag``: only that one)."""
    out = _Declared()
    query = sa.select(dataset_versions.c.dataset, dataset_versions.c.fields, dataset_versions.c.facets).where(
        valid_at(dataset_versions, t), dataset_versions.c.deleted.is_(False)
    )
    for row in conn.execute(query):
        ds = row.dataset
        # JSON is decoded only where a tag can be (most versions have neither tags nor comments)
        has_tags = row.facets and ('"tags"' in row.facets or CATALOG_FACET in row.facets)
        facets = loads_text(row.facets) if has_tags else {}
        facets = facets if isinstance(facets, _MAP) else {}
        curated = facets.get(CATALOG_FACET)
        if isinstance(curated, _MAP):
            for name in _split_tags(curated.get("tags")):
                if _matches(tag, name):
                    out._add(out.datasets, (ds, name), TagSource(CATALOG, "tags"))
            for term in _split_tags(curated.get("glossaryTerms")):
                if _matches(tag, term):
                    out._add(out.datasets, (ds, term), TagSource(GLOSSARY, term))
            forms = curated.get("forms")
            column_tags = forms.get(COLUMN_TAGS_FORM) if isinstance(forms, _MAP) else None
            for column, names in (column_tags or {}).items() if isinstance(column_tags, _MAP) else ():
                for name in _split_tags(names):
                    if _matches(tag, name):
                        out._add(out.columns, ((ds, str(column)), name), TagSource(CATALOG, f"{COLUMN_TAGS_FORM} form"))
        for key, fld, value, source in _tags_facet(facets.get("tags")):
            if not _matches(tag, key, value):
                continue
            name = _tag_name(tag, key, value)
            src = TagSource(OPENLINEAGE, f"{key}={value}" + (f" ({source})" if source else "") if value else source)
            if fld:
                out._add(out.columns, ((ds, fld), name), src)
            else:
                out._add(out.datasets, (ds, name), src)
        fields = loads_text(row.fields) if row.fields and (policy.rules or "#" in row.fields) else []
        for f in fields if isinstance(fields, list) else []:
            if not isinstance(f, _MAP) or not isinstance(f.get("name"), str):
                continue
            column = f["name"]
            comment = f.get("description")
            if isinstance(comment, str):
                for name in _HASHTAG.findall(comment):
                    if _matches(tag, name):
                        out._add(out.columns, ((ds, column), name), TagSource(COMMENT, comment))
            for name, pattern in policy.rules:
                if _matches(tag, name) and pattern.search(column):
                    out._add(out.columns, ((ds, column), name), TagSource(RULE, pattern.pattern))
    jv = sa.select(job_versions.c.job, job_versions.c.facets).where(valid_at(job_versions, t))
    for jrow in conn.execute(jv):
        facets = loads_text(jrow.facets) if jrow.facets else {}
        for key, _fld, value, source in _tags_facet(facets.get("tags") if isinstance(facets, _MAP) else None):
            if _matches(tag, key, value):
                name = _tag_name(tag, key, value)
                out._add(
                    out.jobs, (jrow.job, name), TagSource(OPENLINEAGE, f"job facet {key}={value} {source}".strip())
                )
    _run_tags(conn, out, tag, t)
    return out


def _run_tags(conn: sa.Connection, out: _Declared, tag: str | None, t: int | None) -> None:
    """The tags facet of each job's latest run (started at or before ``t``)."""
    query = sa.select(runs.c.job, runs.c.facets, runs.c.started_at)
    if t is not None:
        query = query.where(runs.c.started_at <= t)
    latest: dict[str, tuple[int, str]] = {}
    for row in conn.execute(query.where(runs.c.facets.like('%"tags"%'))):
        if row.job not in latest or row.started_at > latest[row.job][0]:
            latest[row.job] = (row.started_at, row.facets)
    for job, (_at, text) in latest.items():
        facets = loads_text(text)
        for key, _fld, value, source in _tags_facet(facets.get("tags") if isinstance(facets, _MAP) else None):
            if _matches(tag, key, value):
                name = _tag_name(tag, key, value)
                out._add(out.jobs, (job, name), TagSource(OPENLINEAGE, f"run facet {key}={value} {source}".strip()))


def edge_kind(transformations: JSONValue) -> tuple[bool, str]:
    """Whether a column edge carries the value (any DIRECT transformation), and its label."""
    items = transformations if isinstance(transformations, list) else []
    labels = []
    direct = False
    for t in items:
        if not isinstance(t, dict):
            continue
        kind = str(t.get("type") or "")
        direct |= kind == "DIRECT"
        label = f"{kind}/{t.get('subtype') or ''}".rstrip("/")
        labels.append(label + (" masked" if t.get("masking") else ""))
    if not items:
        direct = True  # an edge without transformation details: a plain (DIRECT) dependency, as the spec's default
        labels.append("DIRECT")
    return direct, "+".join(sorted(set(labels)))


def _flows(transformations: JSONValue, stop_aggregation: bool) -> tuple[bool, str | None]:
    """Whether a tag crosses a column edge, else why not (``masked``, ``aggregated``; None: INDIRECT only)."""
    items = [t for t in transformations if isinstance(t, _MAP)] if isinstance(transformations, list) else []
    if not items:
        return True, None  # no details: a plain DIRECT dependency
    direct = [t for t in items if t.get("type") == "DIRECT"]
    if any(not t.get("masking") and not (stop_aggregation and t.get("subtype") == "AGGREGATION") for t in direct):
        return True, None
    if any(t.get("masking") for t in direct):
        return False, "masked"
    if direct:
        return False, "aggregated"
    return False, None


def propagate(
    conn: sa.Connection,
    seeds: Mapping[tuple[Field, str], list[TagSource]],
    policy: Policy,
    t: int | None,
    *,
    depth: int = 50,
    max_nodes: int = 50_000,
) -> tuple[dict[tuple[Field, str], TaggedColumn], list[TagStop], bool]:
    """Each seed's tag downstream (breadth first: the shortest path wins), with the stops met."""
    found: dict[tuple[Field, str], TaggedColumn] = {}
    for (column, name), sources in seeds.items():
        fid = field_id(*column)
        found[(column, name)] = TaggedColumn(fid, column[0], column[1], name, False, list(sources), None, [fid])
    stops: dict[tuple[str, str], TagStop] = {}
    by_tag: dict[str, set[Field]] = {}
    for column, name in seeds:
        by_tag.setdefault(name, set()).add(column)
    truncated = False
    for name, start in sorted(by_tag.items()):
        stop_agg = policy.stops_at_aggregation(name)
        frontier = set(start)
        for _hop in range(depth):
            if not frontier:
                break
            nxt: set[Field] = set()
            for src, dst, row in sorted(column_step(conn, frontier, "downstream", t), key=lambda s: repr(s[:2])):
                if dst is None:
                    continue
                here = found[(src, name)]
                label = edge_kind(loads_text(row.transformations))[1]
                ok, why = _flows(loads_text(row.transformations), stop_agg)
                if not ok:
                    dst_id = field_id(*dst)
                    if why is not None and (dst, name) not in found and (dst_id, name) not in stops:
                        stops[(dst_id, name)] = TagStop(
                            dst_id, row.job, name, why, label, here.origin or here.id, [*here.path, row.job, dst_id]
                        )
                    continue
                if (dst, name) in found:
                    continue
                if len(found) >= max_nodes:
                    truncated = True
                    break
                dst_id = field_id(*dst)
                stops.pop((dst_id, name), None)  # reached by value after all
                found[(dst, name)] = TaggedColumn(
                    dst_id, dst[0], dst[1], name, True, [], here.origin or here.id, [*here.path, row.job, dst_id],
                    [*here.transformations, label], here.hops + 1,
                )  # fmt: skip
                nxt.add(dst)
            frontier = nxt
    return found, sorted(stops.values(), key=lambda s: (s.tag, s.column)), truncated


def report(
    conn: sa.Connection, policy: Policy, *, tag: str | None = None, t: int | None = None, max_nodes: int = 50_000
) -> ClassificationReport:
    """Every dataset, column and job carrying ``tag`` (None: every tag) as of ``t``, with paths and stops."""
    seen = declared(conn, policy, tag, t)
    columns, stops, truncated = propagate(conn, seen.columns, policy, t, max_nodes=max_nodes)
    known = {
        r.id
        for r in select_in(
            conn,
            sa.select(datasets.c.id),
            datasets.c.id,
            {c.dataset for c in columns.values()} | {d for d, _ in seen.datasets},
        )
    }
    nodes: dict[tuple[str, str], TaggedNode] = {}
    for (ds, name), sources in seen.datasets.items():
        nodes[(ds, name)] = TaggedNode(ds, "DATASET", name, list(sources))
    for c in columns.values():
        if c.dataset not in known:
            continue
        node = nodes.setdefault((c.dataset, c.tag), TaggedNode(c.dataset, "DATASET", c.tag, [], inherited=True))
        node.columns.append(c.field)
    for node in nodes.values():
        node.columns.sort()
        if node.sources or any(not columns[((node.id, f), node.tag)].inherited for f in node.columns):
            node.inherited = False
    job_known = {r.id for r in select_in(conn, sa.select(jobs.c.id), jobs.c.id, {j for j, _ in seen.jobs})}
    tagged_jobs = [
        TaggedNode(j, "JOB", name, list(src)) for (j, name), src in sorted(seen.jobs.items()) if j in job_known
    ]
    return ClassificationReport(
        tag,
        iso(t),
        sorted(nodes.values(), key=lambda n: (n.tag, n.id)),
        sorted((c for c in columns.values() if c.dataset in known), key=lambda c: (c.tag, c.hops, c.id)),
        tagged_jobs,
        stops,
        truncated,
    )


def column_tags(
    conn: sa.Connection, policy: Policy, fields: Sequence[Field], t: int | None
) -> dict[Field, list[TaggedColumn]]:
    """The tags (declared and inherited) of each of ``fields`` as of ``t``."""
    wanted = set(fields)
    seen = declared(conn, policy, None, t)
    found, _stops, _cut = propagate(conn, seen.columns, policy, t)
    out: dict[Field, list[TaggedColumn]] = {}
    for (column, _name), tagged in sorted(found.items(), key=lambda kv: (kv[0][1], kv[1].hops)):
        if column in wanted:
            out.setdefault(column, []).append(tagged)
    return out


def redact(found: ClassificationReport, policy: Redactor) -> ClassificationReport:
    """The report without what ``policy``'s viewer may not see (no tag reveals a hidden node)."""
    hides = policy.hidden.hides
    columns = [
        TaggedColumn(
            c.id,
            c.dataset,
            c.field,
            c.tag,
            c.inherited,
            c.sources,
            None if c.origin is None else policy.id(c.origin),
            [policy.id(p) for p in c.path],
            c.transformations,
            c.hops,
        )  # fmt: skip
        for c in found.columns
        if not hides(c.id)
    ]
    stops = [
        TagStop(s.column, s.job, s.tag, s.reason, s.transformation, policy.id(s.origin), [policy.id(p) for p in s.path])
        for s in found.stops
        if not hides(s.column) and not hides(s.job)
    ]
    return ClassificationReport(
        found.tag,
        found.at,
        [n for n in found.datasets if not hides(n.id)],
        columns,
        [n for n in found.jobs if not hides(n.id)],
        stops,
        found.truncated,
    )


def dataset_report(conn: sa.Connection, policy: Policy, ds: str, t: int | None) -> ClassificationReport:
    """Every tag of one dataset and its columns (declared and inherited, with paths) and where tags stopped at
    its columns: the report of every tag, kept to ``ds`` (tags flow from anywhere upstream)."""
    found = report(conn, policy, t=t)
    prefix = field_id(ds, "")
    return ClassificationReport(
        None,
        found.at,
        [n for n in found.datasets if n.id == ds],
        [c for c in found.columns if c.dataset == ds],
        [],
        [s for s in found.stops if s.column.startswith(prefix)],
        found.truncated,
    )
