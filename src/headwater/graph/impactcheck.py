"""What a proposed change would affect downstream: the impact check a CI gate runs (docs/impact.md).

:func:`check` takes :class:`~headwater.model.changes.Change` records and answers an :class:`ImpactReport`:
every downstream column, dataset and job reached through column lineage from what changes, how it is
affected, the path to it, its severity, and the catalog's owning project, owners, subscribers and
whether it is published. Pure reads of the derived graph and the catalog's tables, as of ``t``.

What each change changes (its *roots*, columns of the changed dataset):

- ``drop_column``, ``rename_column``: the column is **gone** (readers of the old name break);
- ``retype_column``: the column is **retyped**;
- ``drop_dataset``: every column is gone, and every job reading the dataset breaks;
- ``new_schema``: compared with the graph's schema, a missing column is gone, another type is retyped;
- ``new_lineage``: compared with the column lineage the graph holds for the dataset's writers (or the one
  job named), a column no longer written is gone (every known column, with ``replaces``), a column computed
  from other DIRECT sources has **new values**.

Severity rules (the walk follows column edges downstream; a path is DIRECT when every edge on it is a
DIRECT value flow, INDIRECT as soon as one edge is only a join/filter/group/sort/window/condition key):

| root | job reading the root | column, DIRECT path | column, INDIRECT path | dataset depending as a whole |
|---|---|---|---|---|
| gone | breaking | breaking (its value is gone) | warning (which rows appear changes) | warning |
| retyped | warning | warning (the type flows on) | info | info |
| new values | info | warning (its values change) | info | info |

A job's severity is the worst of what it reads; a job reading a column whose value is gone (breaking)
breaks, and every dataset it writes is at least a warning. A job reading the changed dataset, or an
affected one, with no column lineage known for it may read what changed: a warning (``MAY_READ``). A dataset's severity is the worst of its
columns'. An affected dataset that is a published asset (or an asset's published node) is ``published``;
an affected published asset is at least a warning. The report's severity is the worst of its items
(``none`` when nothing downstream is affected).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from headwater.graph.classify import Policy, TagSource, column_tags, edge_kind, propagate
from headwater.graph.columns import Field, column_step, dataset_field_types, root_fields
from headwater.graph.common import dataset_nodes, field_id, node_names, select_in, split_dataset_id, valid_at
from headwater.graph.impactreport import (
    BREAKING,
    GONE,
    INFO,
    NONE,
    RANK,
    RETYPED,
    SEVERITIES,
    VALUES,
    WARNING,
    Affected,
    ChangeResult,
    ImpactReport,
    Stewardship,
    ValuesChange,
    at_least,
    redact,
    report_from_json,
    type_counts,
    worst,
)
from headwater.model.changes import (
    DROP_COLUMN,
    DROP_DATASET,
    NEW_LINEAGE,
    NEW_SCHEMA,
    RENAME_COLUMN,
    RETYPE_COLUMN,
    Change,
)
from headwater.model.jsontext import loads_text
from headwater.model.nodeid import DATASET, field_splits, format_node_id, parse_node_id
from headwater.model.times import iso
from headwater.store import fields as field_ids
from headwater.store.schema import (
    catalog_assets,
    catalog_members,
    catalog_nodes,
    catalog_subscriptions,
    column_edges,
    edges,
)


@dataclass(frozen=True)
class _Root:
    field: Field
    effect: str


@dataclass
class _Reach:
    """The best path found to a field: DIRECT beats INDIRECT, then fewer hops."""

    direct: bool
    path: list[str]
    transformations: list[str]


def _field_severity(effect: str, direct: bool) -> str:
    if effect == GONE:
        return BREAKING if direct else WARNING
    return WARNING if direct else INFO


_ROOT_READERS = {GONE: BREAKING, RETYPED: WARNING, VALUES: INFO}
"""A job reading the changed column itself; a job reading a column further down: that column's severity."""


def _whole_severity(effect: str) -> str:
    return WARNING if effect == GONE else INFO


class _Walk:
    """Collects affected items for one change, keeping the worst severity (then the shortest path) per item."""

    def __init__(self, index: int, items: dict[str, Affected]) -> None:
        self.index = index
        self.items = items

    def add(self, item: Affected) -> None:
        old = self.items.get(item.id)
        if (
            old is None
            or RANK[item.severity] > RANK[old.severity]
            or RANK[item.severity] == RANK[old.severity]
            and old.change == item.change
            and item.depth < old.depth
        ):
            self.items[item.id] = item


def _walk_roots(
    conn: sa.Connection,
    roots: Sequence[_Root],
    index: int,
    items: dict[str, Affected],
    t: int | None,
    depth: int,
    max_nodes: int,
    reasons: Callable[[_Root], str],
) -> bool:
    """Follow column edges downstream from the roots, those of one effect in one walk (a column reached from
    several keeps its first path); True when ``max_nodes`` cut the walk."""
    walk = _Walk(index, items)
    truncated = False
    columns_of: dict[str, list[Field]] = {}
    by_effect: dict[str, list[_Root]] = {}
    for r in roots:
        by_effect.setdefault(r.effect, []).append(r)
    for group in (by_effect[e] for e in (GONE, RETYPED, VALUES) if e in by_effect):
        root = group[0]  # the effect (and the reason) of the whole group
        starts = {r.field for r in group}
        best: dict[Field, _Reach] = {f: _Reach(True, [field_id(*f)], []) for f in starts}
        frontier = set(starts)
        why = reasons(root)
        for _hop in range(1, depth + 1):
            if not frontier:
                break
            nxt: set[Field] = set()
            for src, dst, row in sorted(column_step(conn, frontier, "downstream", t), key=lambda s: repr(s[:2])):
                here = best[src]
                direct, label = edge_kind(loads_text(row.transformations))
                if src in starts:
                    read_sev = _ROOT_READERS[root.effect]
                else:
                    read_sev = _field_severity(root.effect, here.direct)
                job_depth = len(here.path)  # fields and jobs on the path so far: the job is one further
                job_path = [*here.path, row.job]
                walk.add(
                    Affected(
                        row.job, "JOB", "", "", None,
                        read_sev, "READS", f"reads {field_id(*src)} ({why})", index, job_depth, job_path, here.transformations,
                    )
                )  # fmt: skip
                if dst is None:
                    # a dataset-level dependency (the facet's ``dataset`` list: a filter, join or group-by key):
                    # which rows the dataset holds depends on it, so every column of it is reached INDIRECTLY
                    ds = row.dst_dataset
                    if ds not in columns_of:
                        columns_of[ds] = _columns(conn, ds, t)
                    targets = [(f, False) for f in columns_of[ds]]
                    if not targets:
                        walk.add(
                            Affected(
                                ds, "DATASET", "", "", None, _whole_severity(root.effect), "INDIRECT",
                                f"which rows it holds depends on {field_id(*src)} ({why})", index, job_depth + 1,
                                [*job_path, ds], [*here.transformations, label],
                            )
                        )  # fmt: skip
                else:
                    targets = [(dst, direct)]
                for target, edge_direct in targets:
                    reach = _Reach(
                        here.direct and edge_direct, [*job_path, field_id(*target)], [*here.transformations, label]
                    )
                    old = best.get(target)
                    if old is not None and (old.direct or not reach.direct):
                        continue  # as bad a path is known
                    if old is None and len(best) >= max_nodes:
                        truncated = True
                        continue
                    best[target] = reach
                    nxt.add(target)
                    sev = _field_severity(root.effect, reach.direct)
                    flow = "its value comes from" if reach.direct else "which rows or how it is computed depends on"
                    walk.add(
                        Affected(
                            field_id(*target), "FIELD", "", "", target[1], sev, "DIRECT" if reach.direct else "INDIRECT",
                            f"{flow} {reach.path[0]} ({why})", index, len(reach.path) - 1, reach.path, reach.transformations,
                        )
                    )  # fmt: skip
            frontier = nxt
    return truncated


def _columns(conn: sa.Connection, dataset: str, t: int | None) -> list[Field]:
    """The columns of ``dataset`` as of ``t``: its schema's, and those column lineage writes."""
    found = set(dataset_field_types(conn, [dataset], t))
    query = field_ids.edge_select("dst_dataset", "dst_field").where(valid_at(column_edges, t))
    for r in select_in(conn, query, field_ids.DST_DATASET, [dataset]):
        if r.dst_field:
            found.add((dataset, r.dst_field))
    return sorted(found)


def _breaking_writes(conn: sa.Connection, items: dict[str, Affected], t: int | None) -> None:
    """Every dataset a breaking job writes is at least a warning (it would no longer be written)."""
    broken = {i.id: i for i in items.values() if i.type == "JOB" and i.severity == BREAKING}
    if not broken:
        return
    query = sa.select(edges.c.job, edges.c.dataset).where(valid_at(edges, t), edges.c.direction == "OUTPUT")
    for r in select_in(conn, query, edges.c.job, broken):
        job = broken[r.job]
        walk = _Walk(job.change, items)
        walk.add(
            Affected(
                r.dataset, "DATASET", "", "", None, WARNING, "WRITTEN", f"written by {r.job}, which would break",
                job.change, job.depth + 1, [*job.path, r.dataset], job.transformations,
            )
        )  # fmt: skip


def _opaque_readers(
    conn: sa.Connection, root: str, root_path: list[str], index: int, items: dict[str, Affected], t: int | None
) -> None:
    """Jobs reading the changed dataset, or an affected one, for which no column lineage is known (a producer
    that reports tables only): they may read what changed, a warning (with the path to the dataset)."""
    paths = {root: root_path} | {i.id: i.path for i in items.values() if i.type == "DATASET"}
    readers: dict[str, set[str]] = {}
    query = sa.select(edges.c.job, edges.c.dataset).where(valid_at(edges, t), edges.c.direction == "INPUT")
    for r in select_in(conn, query, edges.c.dataset, paths):
        readers.setdefault(r.dataset, set()).add(r.job)
    known = field_ids.edge_select("job", "src_dataset").where(valid_at(column_edges, t)).distinct()
    with_lineage = {(r.src_dataset, r.job) for r in select_in(conn, known, field_ids.SRC_DATASET, readers)}
    walk = _Walk(index, items)
    for ds, jobs in sorted(readers.items()):
        for job in sorted(jobs):
            if (ds, job) in with_lineage or job in items:
                continue
            path = paths[ds] if ds != root else [*paths[ds], ds]
            walk.add(
                Affected(
                    job, "JOB", "", "", None, WARNING, "MAY_READ",
                    f"reads {ds} and reports no column lineage: it may read what changed", index, len(path), [*path, job],
                    [],
                )
            )  # fmt: skip


def _dataset_rollup(items: dict[str, Affected]) -> None:
    """Each affected column's dataset is affected as badly as its worst column."""
    for item in [i for i in items.values() if i.type == "FIELD"]:
        ds = _dataset_of(item)
        old = items.get(ds)
        if old is None or RANK[item.severity] > RANK[old.severity]:
            items[ds] = Affected(
                ds, "DATASET", "", "", None, item.severity, item.effect, f"column {item.field}: {item.reason}",
                item.change, item.depth, [*item.path[:-1], ds], item.transformations,
            )  # fmt: skip


def _dataset_of(item: Affected) -> str:
    """The dataset id of a FIELD item (its path's last element is its id; the field name is known)."""
    assert item.field is not None
    return next(ds for ds, name in field_splits(item.id) if name == item.field)


def stewardship(conn: sa.Connection, dataset_ids: Iterable[str]) -> dict[str, Stewardship]:
    """The catalog's view of each of ``dataset_ids`` that belongs to an asset (source, alias, published
    node or subscription target): asset, project, owners (the asset's ``owners`` metadata, then the
    project's members with the owner role), subscribers (consumer projects of approved subscriptions)."""
    roles = {
        r.node: (r.asset, r.role)
        for r in select_in(
            conn, sa.select(catalog_nodes.c.node, catalog_nodes.c.asset, catalog_nodes.c.role), catalog_nodes.c.node,
            dataset_ids,
        )
    }  # fmt: skip
    assets = {
        r.id: r
        for r in select_in(
            conn,
            sa.select(catalog_assets.c.id, catalog_assets.c.project, catalog_assets.c.state, catalog_assets.c.metadata),
            catalog_assets.c.id,
            {a for a, _ in roles.values()},
        )
    }
    owners: dict[str, list[str]] = {}
    for r in select_in(
        conn,
        sa.select(catalog_members.c.project, catalog_members.c.user).where(catalog_members.c.role == "owner"),
        catalog_members.c.project,
        {a.project for a in assets.values()},
    ):
        owners.setdefault(r.project, []).append(r.user)
    subscribers: dict[str, list[str]] = {}
    for r in select_in(
        conn,
        sa.select(catalog_subscriptions.c.asset, catalog_subscriptions.c.project).where(
            catalog_subscriptions.c.state == "approved"
        ),
        catalog_subscriptions.c.asset,
        assets,
    ):
        subscribers.setdefault(r.asset, []).append(r.project)
    out: dict[str, Stewardship] = {}
    for node, (asset_id, role) in roles.items():
        row = assets.get(asset_id)
        if row is None:
            continue
        meta = loads_text(row.metadata) if row.metadata else {}
        named = [str(o) for o in (meta.get("owners") or [])] if isinstance(meta, dict) else []
        who = list(dict.fromkeys([*named, *sorted(owners.get(row.project, []))]))
        published = row.state == "published" and role in ("source", "alias", "published")
        out[node] = Stewardship(
            asset_id, row.project, tuple(who), tuple(sorted(set(subscribers.get(asset_id, [])))), published
        )
    return out


def _current_writers(
    conn: sa.Connection, ds: str, job: str | None, t: int | None
) -> tuple[dict[str, set[str]], set[str]]:
    """What the graph holds for the writers of ``ds`` (or ``job`` alone): per output column its DIRECT
    source field ids; and the jobs found."""
    query = field_ids.edge_select().where(valid_at(column_edges, t))
    per_column: dict[str, set[str]] = {}
    jobs: set[str] = set()
    for r in select_in(conn, query, field_ids.DST_DATASET, [ds]):
        if job is not None and r.job != job:
            continue
        jobs.add(r.job)
        if not r.dst_field:
            continue
        sources = per_column.setdefault(r.dst_field, set())
        if edge_kind(loads_text(r.transformations))[0]:
            sources.add(field_id(r.src_dataset, r.src_field))
    return per_column, jobs


def _roots_of(
    conn: sa.Connection, change: Change, result: ChangeResult, t: int | None
) -> tuple[list[_Root], list[str]]:
    """The changed columns of ``change`` (and, for a dropped dataset, the jobs reading it)."""
    ds = change.dataset_id
    types = dataset_field_types(conn, [ds], t)
    known = {f for _, f in types}
    lower = {f.lower(): f for f in known}
    roots: list[_Root] = []
    readers: list[str] = []

    def same(column: str) -> str:
        return column if column in known else lower.get(column.lower(), column)

    if change.kind in (DROP_COLUMN, RENAME_COLUMN):
        assert change.column is not None
        col = same(change.column)
        if col not in known:
            result.notes.append(f"column {change.column!r} is not in the graph's schema of {ds}")
        roots.append(_Root((ds, col), GONE))
    elif change.kind == RETYPE_COLUMN:
        assert change.column is not None and change.new_type is not None
        col = same(change.column)
        old = types.get((ds, col))
        if old is not None and old.lower() == change.new_type.lower():
            result.notes.append(f"column {col!r} already has type {old}: nothing changes")
        else:
            roots.append(_Root((ds, col), RETYPED))
            result.notes.append(f"column {col!r}: {old or 'unknown type'} -> {change.new_type}")
    elif change.kind == DROP_DATASET:
        roots.extend(_Root(f, GONE) for f in sorted(root_fields(conn, parse_node_id(ds), t)))
        query = sa.select(edges.c.job).where(valid_at(edges, t), edges.c.direction == "INPUT")
        readers = sorted({r.job for r in select_in(conn, query, edges.c.dataset, [ds])})
    elif change.kind == NEW_SCHEMA:
        proposed = {f.name.lower(): f for f in change.fields}
        for col in sorted(known):
            new = proposed.get(col.lower())
            if new is None:
                roots.append(_Root((ds, col), GONE))
            elif new.type and types[(ds, col)] and new.type.lower() != str(types[(ds, col)]).lower():
                roots.append(_Root((ds, col), RETYPED))
                result.notes.append(f"column {col!r}: {types[(ds, col)]} -> {new.type}")
        result.added = sorted(f.name for f in change.fields if f.name.lower() not in lower)
    elif change.kind == NEW_LINEAGE:
        per_column, jobs = _current_writers(conn, ds, change.job, t)
        if change.job is not None and not jobs:
            result.notes.append(f"the graph holds no column lineage of {change.job} writing {ds}")
        written = set(per_column) | (known if change.replaces else set())
        proposed_cols = {c.name.lower(): c for c in change.columns}
        for col in sorted(written):
            new_col = proposed_cols.get(col.lower())
            if new_col is None:
                roots.append(_Root((ds, col), GONE))
                continue
            after = sorted(
                {
                    field_id(format_node_id("dataset", s.namespace, s.name), s.field)
                    for s in new_col.sources
                    if s.type == "DIRECT"
                }
            )
            before = sorted(per_column.get(col, set()))
            if col in per_column and {a.lower() for a in after} != {b.lower() for b in before}:
                roots.append(_Root((ds, col), VALUES))
                result.values.append(ValuesChange(col, before, after))
        result.added = sorted(c.name for c in change.columns if c.name.lower() not in {w.lower() for w in written})
    result.gone = [field_id(*r.field) for r in roots if r.effect == GONE]
    result.retyped = [field_id(*r.field) for r in roots if r.effect == RETYPED]
    return roots, readers


def _tagged_flows(conn: sa.Connection, change: Change, index: int, policy: Policy, t: int | None) -> list[Affected]:
    """Published datasets a ``new_lineage`` change would make a tagged column flow into (warnings): a proposed
    column reading a tagged column by value that does not carry the tag today, followed downstream as the
    tag would flow (graph/classify.py), reaching a published asset (the changed dataset included)."""
    ds = change.dataset_id
    sources = {
        c.name: [
            (format_node_id("dataset", s.namespace, s.name), s.field)
            for s in c.sources
            if s.type == "DIRECT" and not s.masking
        ]
        for c in change.columns
    }
    wanted = {f for fs in sources.values() for f in fs} | {(ds, c) for c in sources}
    if not wanted:
        return []
    tags = column_tags(conn, policy, sorted(wanted), t)
    out: list[Affected] = []
    for column, reads in sorted(sources.items()):
        have = {tc.tag for tc in tags.get((ds, column), [])}
        for src in reads:
            for carried in tags.get(src, []):
                if carried.tag in have:
                    continue
                have.add(carried.tag)
                start = field_id(ds, column)
                seed = {((ds, column), carried.tag): [TagSource("impact check", f"from {field_id(*src)}")]}
                reached, _stops, _cut = propagate(conn, seed, policy, t)
                paths = {tc.dataset: [field_id(*src), start, *tc.path[1:]] for tc in reached.values()}
                paths[ds] = [field_id(*src), start]
                steward = stewardship(conn, paths)
                for target, path in sorted(paths.items()):
                    if not (s := steward.get(target)) or not s.published:
                        continue
                    out.append(
                        Affected(
                            target, "DATASET", "", "", None, WARNING, "TAGGED",
                            f"would carry {carried.tag} from {carried.origin or carried.id} into a published asset",
                            index, len(path) - 1, [*path[:-1], target] if target != ds else [*path, target], [],
                            s.project, list(s.owners), list(s.subscribers), True,
                        )
                    )  # fmt: skip
    if out:
        names = node_names(conn, {a.id for a in out}, t)
        for a in out:
            a.namespace, a.name = names.get(a.id) or split_dataset_id(a.id)
    return out


def check(
    conn: sa.Connection,
    changes: Sequence[Change],
    *,
    t: int | None = None,
    depth: int = 20,
    max_nodes: int = 5000,
    hidden: Callable[[str], bool] = lambda _id: False,
    policy: Policy | None = None,
) -> ImpactReport:
    """Everything downstream that ``changes`` affect, as of ``t`` (the store's microseconds; None: now).

    ``hidden(node_id)``: a changed dataset for which it is true is answered as one the graph does not hold
    (the visibility policy's "not found"); redacting the items is the caller's (GraphReader's) business.
    ``policy``: the classification settings; a ``new_lineage`` change then also warns where it would make a
    tagged column flow into a published asset (:func:`_tagged_flows`)."""
    items: dict[str, Affected] = {}
    results: list[ChangeResult] = []
    truncated = False
    present = dataset_nodes(conn, {c.dataset_id for c in changes}, t, lenient=False)  # existing at t
    for index, change in enumerate(changes):
        result = ChangeResult(index, change.to_json(), False, NONE, notes=list(change.notes))
        results.append(result)
        if change.dataset_id not in present or hidden(change.dataset_id):
            result.notes.append(f"{change.dataset_id} is not in the graph: nothing downstream is known")
            continue
        result.found = True
        roots, readers = _roots_of(conn, change, result, t)
        root_ids = {field_id(*r.field) for r in roots}
        walked: dict[str, Affected] = {}
        for job in readers:
            walked[job] = Affected(
                job, "JOB", "", "", None, BREAKING, "READS", f"reads {change.dataset_id}, which would be dropped",
                index, 1, [change.dataset_id, job], [],
            )  # fmt: skip

        def why(root: _Root, kind: str = change.kind) -> str:
            return f"{root.effect}: {kind}"

        truncated |= _walk_roots(conn, roots, index, walked, t, depth, max_nodes, why)
        for rid in root_ids:
            walked.pop(rid, None)
        _breaking_writes(conn, walked, t)
        _dataset_rollup(walked)
        if roots and change.kind != DROP_DATASET:
            _opaque_readers(conn, change.dataset_id, [field_id(*roots[0].field)], index, walked, t)
        walked.pop(change.dataset_id, None)
        _describe(conn, walked, t)
        if change.kind == NEW_LINEAGE and policy is not None:
            for item in _tagged_flows(conn, change, index, policy, t):
                _Walk(index, walked).add(item)
        for item in walked.values():
            _Walk(index, items).add(item)
        result.severity = worst(*(i.severity for i in walked.values()))
    ordered = sorted(items.values(), key=lambda i: (-RANK[i.severity], i.depth, i.type, i.id))
    summary = {s: sum(i.severity == s for i in ordered) for s in SEVERITIES}
    summary.update(type_counts(ordered))
    return ImpactReport(
        iso(t),
        worst(*(i.severity for i in ordered)),
        results,
        ordered,
        sorted(i.id for i in ordered if i.type == "DATASET" and i.published),
        summary,
        truncated,
    )


def _describe(conn: sa.Connection, items: dict[str, Affected], t: int | None) -> None:
    """Names, and the catalog's stewardship of each affected dataset (and its columns)."""
    ds_of = {i.id: (_dataset_of(i) if i.type == "FIELD" else i.id) for i in items.values() if i.type != "JOB"}
    names = node_names(conn, {*ds_of.values(), *(i.id for i in items.values() if i.type == "JOB")}, t)
    steward = stewardship(conn, set(ds_of.values()))
    for item in items.values():
        ds = ds_of.get(item.id)
        key = ds or item.id
        if key in names:
            item.namespace, item.name = names[key]
        elif key.startswith(DATASET):
            item.namespace, item.name = split_dataset_id(key)
        s = steward.get(ds) if ds else None
        if s is None:
            continue
        item.project, item.owners, item.subscribers, item.published = (
            s.project,
            list(s.owners),
            list(s.subscribers),
            s.published,
        )
        if s.published and item.severity == INFO:
            item.severity = WARNING
            item.reason += "; reaches a published asset"


__all__ = [
    "BREAKING",
    "INFO",
    "NONE",
    "SEVERITIES",
    "WARNING",
    "Affected",
    "ChangeResult",
    "ImpactReport",
    "Stewardship",
    "ValuesChange",
    "at_least",
    "check",
    "redact",
    "report_from_json",
    "stewardship",
    "worst",
]
