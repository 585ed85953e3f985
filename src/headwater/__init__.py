"""Headwater: self-hosted data lineage built on OpenLineage.

The package is laid out as the architecture (see ARCHITECTURE.md):

- ``headwater.capture`` — the PySpark agent that turns query executions into OpenLineage events;
- ``headwater.ingest``  — parsing and validation of incoming OpenLineage events;
- ``headwater.store``   — the append-only event log and the versioned graph derived from it;
- ``headwater.graph``   — read-side graph queries (lineage, column lineage, impact, as-of, compare);
- ``headwater.api``     — the HTTP API (OpenLineage ingest, Headwater reads, Marquez compatibility);
- ``headwater.ui``      — the built web UI, served at ``/``;
- ``headwater.cli``     — the ``headwater`` command.
"""

__version__ = "0.1.0"
