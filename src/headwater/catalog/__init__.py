"""The catalog (docs/catalog.md): a layer over the lineage graph.

Domains hold projects; projects have members (users with a role: owner, contributor, viewer) and own
assets (one per dataset node) that they curate (business metadata, versioned, audited), keep in their
inventory and publish; other projects subscribe to published assets. Publishing and approved
subscriptions are lineage: the catalog appends OpenLineage events through the ingest path like any
producer (:mod:`~headwater.catalog.lineage`), so the published node and a subscription's target node
are ordinary versioned graph nodes. Who sees what is decided by the graph layer's visibility policy
(:mod:`headwater.graph.visibility`) from the rows this package writes.

- :mod:`~headwater.catalog.access`: who is asking (:class:`Principal`) from a token and a project context;
- :mod:`~headwater.catalog.service`: :class:`Catalog`, every catalog change and read;
- :mod:`~headwater.catalog.lineage`: the OpenLineage events the catalog sends;
- :mod:`~headwater.catalog.markdown`: asset descriptions rendered to safe HTML.
"""

from __future__ import annotations

from headwater.catalog.access import ROLES, Principal, resolve_user, token_hash
from headwater.catalog.errors import CatalogError
from headwater.catalog.service import Catalog

__all__ = ["ROLES", "Catalog", "CatalogError", "Principal", "resolve_user", "token_hash"]
