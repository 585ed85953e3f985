"""The catalog (docs/catalog.md): a layer over the lineage graph.

Domains hold projects; projects have members (users with a role: owner, contributor, viewer) and own
assets (one per dataset node) that they curate (business metadata, versioned, audited), keep in their
inventory and publish; other projects subscribe to published assets. Publishing and approved
subscriptions are lineage: the catalog appends OpenLineage events through the ingest path like any
producer (:mod:`~headwater.catalog.lineage`), so the published node and a subscription's target node
are ordinary versioned graph nodes. Who sees what is decided by the graph layer's visibility policy
(:mod:`headwater.graph.visibility`) from the rows this package writes.

- :mod:`~headwater.catalog.access`: who is asking (:class:`Principal`) from a token and a project context;
- :mod:`~headwater.catalog.service`: :class:`Catalog`, its rooms: :mod:`~headwater.catalog.organisation`,
  :mod:`~headwater.catalog.assets`, :mod:`~headwater.catalog.subscriptions`,
  :mod:`~headwater.catalog.sourceruns`, :mod:`~headwater.catalog.audit` (each a :class:`~headwater.catalog.room.Room`);
- :mod:`~headwater.catalog.tables`: the one module that reads and writes the catalog's tables;
- :mod:`~headwater.catalog.records`: the typed records the catalog answers;
- :mod:`~headwater.catalog.errors`: its refusals (the API maps them to HTTP answers);
- :mod:`~headwater.catalog.tokens`: the server's managed tokens;
- :mod:`~headwater.catalog.writes`: who may write which node through an ingest door;
- :mod:`~headwater.catalog.lineage`: the OpenLineage events the catalog sends;
- :mod:`~headwater.catalog.markdown`: asset descriptions rendered to safe HTML.
"""

from __future__ import annotations

from headwater.catalog.access import ROLES, Principal, token_hash
from headwater.catalog.errors import CatalogError
from headwater.catalog.service import Catalog

__all__ = ["ROLES", "Catalog", "CatalogError", "Principal", "token_hash"]
