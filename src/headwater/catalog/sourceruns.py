"""Data-source runs: what a crawl, a harvest or a project's own producer reported becomes the project's inventory.

- :meth:`SourceRuns.import_run`: bind a run that already happened (its runs and their child runs, or single
  events) to a project: every dataset it wrote becomes (or stays) an inventory asset; the report lists each
  with the event that reported it and whether the graph holds it.
- :meth:`SourceRuns.claim_outputs` before events sent for a project are appended (the datasets they write
  become the project's, committed first: never visible to anyone else), :meth:`SourceRuns.record_ingest` after:
  one report per OpenLineage run (or one for the project's DatasetEvents).

A dataset another project catalogued, or an alias of another asset, is reported as skipped.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TypedDict

import sqlalchemy as sa

from headwater.catalog import lineage as cl
from headwater.catalog import tables
from headwater.catalog.access import Principal
from headwater.catalog.errors import InvalidRequest, NotFound
from headwater.catalog.records import Claim, ItemStatus, SourceRun, SourceRunItem, empty_metadata
from headwater.catalog.room import Payload, Room, member_view
from headwater.model.catalog_roles import SOURCE
from headwater.model.jsontext import loads
from headwater.model.nodeid import NodeRef

NOT_DERIVED = "not in the graph: its event was not derived (GET /api/v1/status lists such events)"
OTHER_PROJECT = "cataloged by another project"
ALIAS_OF_ANOTHER = "an alias of another asset of this project"


def _links(item: Mapping[str, object]) -> list[str]:
    """The datasets an input's or output's ``symlinks`` facet names."""
    facets = item.get("facets")
    symlinks = facets.get("symlinks") if isinstance(facets, Mapping) else None
    found = symlinks.get("identifiers") if isinstance(symlinks, Mapping) else None
    return [
        NodeRef("dataset", str(link["namespace"]), str(link["name"])).id
        for link in (found if isinstance(found, list) else [])
        if isinstance(link, Mapping) and "namespace" in link and "name" in link
    ]


def _items(event: Payload, key: str) -> list[Mapping[str, object]]:
    found = event.get(key)
    return (
        [i for i in found if isinstance(i, Mapping) and "namespace" in i and "name" in i]
        if isinstance(found, list)
        else []
    )


def written(event: Payload) -> dict[str, set[str]]:
    """The datasets an event writes (its outputs, a DatasetEvent's dataset), each with its aliases: the
    datasets its ``symlinks`` facet names, and the inputs whose ``symlinks`` name it (a crawler's storage
    location of a catalog table). The catalog's own nodes are left out."""
    outputs = _items(event, "outputs")
    dataset = event.get("dataset")
    if isinstance(dataset, Mapping) and "namespace" in dataset and "name" in dataset:
        outputs.append(dataset)
    out: dict[str, set[str]] = {}
    for o in outputs:
        if not str(o["namespace"]).startswith(cl.SCHEME):
            out.setdefault(NodeRef("dataset", str(o["namespace"]), str(o["name"])).id, set()).update(_links(o))
    for i in _items(event, "inputs"):
        for target in _links(i):
            if target in out:
                out[target].add(NodeRef("dataset", str(i["namespace"]), str(i["name"])).id)
    for ds, aliases in out.items():
        aliases.discard(ds)
        aliases.difference_update(out)
    return out


def _claim(
    conn: sa.Connection, by: str, project: str, dataset: str, aliases: Sequence[str], event_id: str | None
) -> Claim:
    """``dataset`` for ``project``: a new inventory asset when no project catalogued it, else what it is."""
    owner = next(iter(tables.nodes(conn, [dataset])), None)
    if owner is None:
        asset_id = tables.insert_asset(
            conn,
            by,
            project,
            dataset,
            custom=False,
            metadata=empty_metadata(),
            aliases=aliases,
            event_id=event_id,
            change="imported",
        )
        return Claim(asset_id, "added")
    if owner.project != project:
        return Claim("", "skipped", OTHER_PROJECT)
    if owner.role != SOURCE:
        return Claim(owner.asset, "skipped", ALIAS_OF_ANOTHER)
    return Claim(owner.asset, "updated")


def _failed(error: str | None) -> _Outcome:
    """An item's status and error: FAILED with ``error``, or SUCCESS without one."""
    return {"status": "FAILED", "error": error} if error else {"status": "SUCCESS", "error": None}


class _Outcome(TypedDict):
    status: ItemStatus
    error: str | None


class SourceRuns(Room):
    """Imports, ingest claims and the reports of data-source runs."""

    def import_run(
        self, who: Principal, project: str, name: str, run_ids: Sequence[str], event_ids: Sequence[str]
    ) -> SourceRun:
        """Bind a data-source run to ``project`` (see the module docstring); its report."""
        who.require(project, "contributor", "binding a data-source run")
        if not run_ids and not event_ids:
            raise InvalidRequest("runIds or eventIds: name the runs or events of the data-source run")
        with self._read_graph() as conn:  # waits until the graph holds what the log holds
            if tables.project(conn, project) is None:
                raise NotFound(f"no project {project!r}")
            logged = tables.logged_events(conn, tables.with_child_runs(conn, run_ids), set(event_ids))
            unknown = sorted(set(event_ids) - {event_id for event_id, _ in logged})
            if unknown:
                raise NotFound(f"eventIds: no event {', '.join(repr(u) for u in unknown[:5])}")
            if not logged:
                raise NotFound(f"runIds: no events of run {', '.join(repr(r) for r in sorted(run_ids)[:5])}")
            found: dict[str, str] = {}
            aliases: dict[str, set[str]] = {}
            for event_id, raw in logged:
                for ds, links in written(loads(raw)).items():
                    found[ds] = event_id  # the latest event that wrote it (events are in event time order)
                    aliases.setdefault(ds, set()).update(links)
            held = tables.in_graph(conn, found)
        run_id = uuid.uuid4().hex
        with self._write() as conn, conn.begin():
            tables.add_source_run(conn, run_id, project, name, who.user)
            for ds in sorted(found):
                others = sorted(a for a in aliases.get(ds, ()) if a not in found)
                claim = _claim(conn, who.user, project, ds, others, found[ds])
                outcome = _failed(claim.error or (None if ds in held else NOT_DERIVED))
                item = SourceRunItem(ds, claim.asset, claim.action, found[ds], **outcome)
                tables.put_source_run_item(conn, run_id, item)
            detail = {"name": name, "runIds": list(run_ids), "datasets": len(found)}
            tables.audit(conn, who.user, project, "source_run.import", run_id, detail)
        return self.run(who, run_id)

    def claim_outputs(self, who: Principal, project: str, payloads: Sequence[Payload]) -> dict[str, Claim]:
        """Before events sent for ``project`` are appended: every dataset they write that no project catalogued
        becomes an inventory asset of ``project``; what each dataset became, for :meth:`record_ingest`."""
        who.require(project, "contributor", "sending events for a project")
        wanted: dict[str, set[str]] = {}
        for payload in payloads:
            for ds, links in written(payload).items():
                wanted.setdefault(ds, set()).update(links)
        with self._write() as conn, conn.begin():
            if tables.project(conn, project) is None:
                raise NotFound(f"no project {project!r}")
            claimed = {
                ds: _claim(conn, who.user, project, ds, sorted(a for a in wanted[ds] if a not in wanted), None)
                for ds in sorted(wanted)
            }
            added = sum(c.action == "added" for c in claimed.values())
            if added:
                tables.audit(conn, who.user, project, "ingest.claim", project, {"datasets": added})
        return claimed

    def record_ingest(
        self,
        who: Principal,
        project: str,
        payloads: Sequence[Payload],
        event_ids: Sequence[str],
        claimed: Mapping[str, Claim],
    ) -> None:
        """After the append: the events' data-source run reports, each dataset with the latest event that wrote it."""
        with self._write() as conn, conn.begin():
            for payload, event_id in zip(payloads, event_ids):
                datasets_written = written(payload)
                if not datasets_written:
                    continue
                run = payload.get("run")
                job = payload.get("job")
                key = str((run.get("runId") if isinstance(run, Mapping) else None) or "dataset-events")
                run_id = uuid.uuid5(uuid.NAMESPACE_URL, f"headwater-catalog:{project}:{key}").hex
                if isinstance(job, Mapping) and job:
                    name = f"{job.get('namespace')}/{job.get('name')} run {key}"
                else:
                    name = "dataset events"
                tables.add_source_run(conn, run_id, project, name, who.user)
                for ds in datasets_written:
                    claim = claimed.get(ds, Claim("", "skipped", "not claimed"))
                    item = SourceRunItem(ds, claim.asset, claim.action, event_id, **_failed(claim.error))
                    tables.put_source_run_item(conn, run_id, item)

    def run(self, who: Principal, run_id: str) -> SourceRun:
        """A data-source run's report, with each dataset's import status now (is it in the graph)."""
        with self._read() as conn:
            row = tables.source_run(conn, run_id)
            if row is None or not member_view(who, row.project):
                raise NotFound(f"no data-source run {run_id!r}")
            stored = tables.source_run_items(conn, run_id)
        with self._read_graph() as conn:
            held = tables.in_graph(conn, {i.dataset for i in stored if i.dataset is not None})
        items = []
        for i in stored:
            shown = i.dataset if i.action != "skipped" or i.asset else None  # another project's is not named
            lost = i.status == "SUCCESS" and i.dataset not in held
            items.append(replace(i, dataset=shown, **_failed(NOT_DERIVED)) if lost else replace(i, dataset=shown))
        return SourceRun(row.id, row.project, row.name, row.created_at, row.created_by, tuple(items))

    def runs(self, who: Principal, project: str) -> list[SourceRun]:
        """The project's data-source runs, newest first."""
        if not member_view(who, project):
            raise NotFound(f"no project {project!r} among the principal's projects")
        with self._read() as conn:
            ids = tables.source_run_ids(conn, project)
        return [self.run(who, i) for i in ids]
