"""The catalog over one store: :class:`Catalog`, its rooms side by side (docs/catalog.md).

Each room is one concept in a module of its own, over one table-access module (``catalog/tables.py``):

- ``organisation``: domains, projects, users, members, glossaries (:mod:`headwater.catalog.organisation`);
- ``assets``: cataloging, curating, publishing, the catalog's graph nodes (:mod:`headwater.catalog.assets`);
- ``subscriptions``: requests, decisions, revocations (:mod:`headwater.catalog.subscriptions`);
- ``source_runs``: data-source runs imported or sent for a project (:mod:`headwater.catalog.sourceruns`);
- ``audit``: the audit log (:mod:`headwater.catalog.audit`).

Every change checks the principal's role, writes the catalog's tables in one transaction with an audit entry,
and — for what is lineage — appends OpenLineage events through the server's ingest door; the catalog never
writes a graph table. Reads answer what the principal may see (the graph layer's visibility rules); refusals
are :mod:`headwater.catalog.errors`, which the API maps to its answers. Answers are typed records
(:mod:`headwater.catalog.records`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from headwater.catalog.assets import Assets
from headwater.catalog.audit import AuditLog
from headwater.catalog.organisation import Organisation
from headwater.catalog.sourceruns import SourceRuns
from headwater.catalog.subscriptions import Subscriptions

if TYPE_CHECKING:
    from headwater.graph import GraphReader
    from headwater.ingest import Door
    from headwater.store import Store


class Catalog:
    """The catalog's rooms over ``store``; ``graph`` reads the whole graph (the catalog filters), ``door`` is the
    server's ingest door (the catalog's events are accepted as any other)."""

    def __init__(self, store: Store, graph: GraphReader, door: Door) -> None:
        self.organisation = Organisation(store, graph, door)
        self.assets = Assets(store, graph, door)
        self.subscriptions = Subscriptions(store, graph, door)
        self.source_runs = SourceRuns(store, graph, door)
        self.audit = AuditLog(store, graph, door)


__all__ = ["Catalog"]
