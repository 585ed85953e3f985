"""The store's tables (SQLAlchemy Core). Alembic migrations in ``migrations/`` create them.

Times are ``BIGINT`` microseconds since the epoch (UTC). JSON values are ``TEXT`` holding
compact JSON, so the same SQL runs on SQLite and PostgreSQL.

- ``events``: the append-only event log (source of truth), one row per distinct event; its text is
  kept zstd-compressed (``body``, ``dictionary``; store/codec.py) or, for rows written before
  migration 0011, as it came (``raw``).
- ``event_dictionaries``: the zstd dictionaries the log's bodies were compressed with.
- ``observations``: index event ↔ node (dataset/job/run) with what the event said about the node; its large
  JSON values (and those of ``runs``) kept once each in ``derived_parts`` (store/parts.py).
- everything else is derived from those two and can be rebuilt (``Store.rebuild``).
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# An auto-incrementing 64-bit key (SQLite needs INTEGER for its rowid alias).
SEQ = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def event_id_bytes(text: str) -> bytes:
    """An event id as the observation index stores it: its 32 bytes for the usual id (64 lowercase hex digits,
    a SHA-256), any other text as ``\\x00`` + its UTF-8 (``\\x00\\x00`` when that would be 32 bytes long)."""
    if len(text) == 64:
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            pass
        else:
            if raw.hex() == text:
                return raw
    body = text.encode("utf-8", "surrogatepass")
    return (b"\x00\x00" if len(body) == 31 else b"\x00") + body


def event_id_text(stored: bytes) -> str:
    """The event id :func:`event_id_bytes` stored."""
    if len(stored) == 32:
        return stored.hex()
    return stored.lstrip(b"\x00").decode("utf-8", "surrogatepass")


class EventId(sa.TypeDecorator[str]):
    """An event id kept as bytes (:func:`event_id_bytes`: half the hex text), read and written as its text."""

    impl = sa.LargeBinary
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: sa.Dialect) -> bytes | None:
        return None if value is None else event_id_bytes(value)

    def process_result_value(self, value: bytes | None, dialect: sa.Dialect) -> str | None:
        return None if value is None else event_id_text(bytes(value))


events = sa.Table(
    "events",
    metadata,
    sa.Column("seq", SEQ, primary_key=True, autoincrement=True),
    sa.Column("id", sa.String(64), nullable=False, unique=True),
    # The event's text as sent, or '' when it is kept compressed in ``body`` (read through store/codec.py).
    sa.Column("raw", sa.Text, nullable=False),
    sa.Column("received_at", sa.BigInteger, nullable=False),
    sa.Column("event_time", sa.BigInteger, nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("event_type", sa.String(16)),
    sa.Column("job", sa.Text),
    sa.Column("run_id", sa.Text),
    # migration 0011: the text's UTF-8 bytes as one zstd frame (content size and checksum in it), and how it
    # was compressed: NULL = not compressed (``raw`` holds the text), 0 = zstd without a dictionary,
    # n = zstd with ``event_dictionaries`` row n.
    sa.Column("body", sa.LargeBinary),
    sa.Column("dictionary", sa.Integer),
    sa.Index("ix_events_time", "event_time", "seq"),
)

# The zstd dictionaries trained on the log's own events (store/codec.py, migration 0011): immutable once
# written, never removed while a row may name them; new events use the newest. In the log's file on SQLite.
event_dictionaries = sa.Table(
    "event_dictionaries",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("body", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("trained_seq", sa.BigInteger, nullable=False),  # the log's head when it was trained
    sa.Column("samples", sa.Integer, nullable=False),  # events it was trained on
)

# One row per event and (node, role); the projector writes each event's rows once, in the step that derives it.
# Found by node and role (every derivation and read) or by log position (the watermark, a rebuild, a prune).
# Migration 0014: no primary key, the node's index without the log position, so on PostgreSQL its entries are
# deduplicated (a node's rows of one role share one key: a few bytes a row instead of the node id's text again);
# the event id as its 32 bytes.
observations = sa.Table(
    "observations",
    metadata,
    sa.Column("node", sa.Text, nullable=False),
    sa.Column("event_seq", sa.BigInteger, nullable=False),
    sa.Column("role", sa.String(8), nullable=False),  # run | job | jobevent | jobrun | input | output | dataset | error
    sa.Column("time", sa.BigInteger, nullable=False),
    sa.Column("event_id", EventId, nullable=False),  # migration 0014: 32 bytes, not 64 hex digits
    sa.Column("data", sa.Text, nullable=False),
    sa.Index("ix_observations_node", "node", "role"),
    sa.Index("ix_observations_event", "event_seq"),
)

# The large JSON texts of the observation index and of ``runs`` (store/parts.py, migration 0013), each distinct
# text once: ``key`` hashes it; stored in the event log's three forms (store/codec.py: ``raw``, or ``body``
# compressed with ``dictionary``). Immutable; rows name them by key. Derived, but not emptied by a rebuild:
# the observations a prune keeps name them too.
derived_parts = sa.Table(
    "derived_parts",
    metadata,
    sa.Column("key", sa.String(32), primary_key=True),
    sa.Column("raw", sa.Text, nullable=False),
    sa.Column("body", sa.LargeBinary),
    sa.Column("dictionary", sa.Integer),
)

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("run_id", sa.Text, primary_key=True),
    sa.Column("job", sa.Text, nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=False),
    sa.Column("ended_at", sa.BigInteger),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    sa.Column("error_message", sa.Text),
    sa.Column("stack_trace", sa.Text),
    sa.Column("parent_run_id", sa.Text),
    sa.Column("parent_job", sa.Text),
    sa.Column("facets", sa.Text, nullable=False),
    sa.Column("job_facets", sa.Text, nullable=False),
    sa.Column("inputs", sa.Text, nullable=False),
    sa.Column("outputs", sa.Text, nullable=False),
    sa.Column("column_lineage", sa.Text, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Index("ix_runs_job_started", "job", "started_at"),
)

# ``jobs`` and ``datasets`` are updated by every projection step that touches them (``updated_at``, indexed for the
# most recently updated nodes), so each update adds entries to all their indexes: on PostgreSQL the name's trigram
# index (migration 0003) takes them straight into its compressed posting lists (migration 0014: ``fastupdate`` off;
# its pending list kept every trigram of every update as an entry of its own until the next vacuum).
jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("namespace", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    sa.Column("facets", sa.Text, nullable=False),
    sa.Column("parent_job", sa.Text),
    sa.Index("ix_jobs_namespace_name", "namespace", "name"),
    sa.Index("ix_jobs_updated", "updated_at"),
)

job_versions = sa.Table(
    "job_versions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("job", sa.Text, nullable=False),
    sa.Column("valid_from", sa.BigInteger, nullable=False),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("run_id", sa.Text),
    sa.Column("inputs", sa.Text, nullable=False),
    sa.Column("outputs", sa.Text, nullable=False),
    sa.Column("facets", sa.Text, nullable=False),
    sa.Column("column_lineage", sa.Text, nullable=False),
    sa.Column("changes", sa.Text, nullable=False),
    sa.Index("ix_job_versions_job", "job", "valid_from"),
)

datasets = sa.Table(
    "datasets",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("namespace", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    sa.Column("deleted", sa.Boolean, nullable=False),
    sa.Index("ix_datasets_namespace_name", "namespace", "name"),
    sa.Index("ix_datasets_updated", "updated_at"),
)

dataset_versions = sa.Table(
    "dataset_versions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("dataset", sa.Text, nullable=False),
    sa.Column("valid_from", sa.BigInteger, nullable=False),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("run_id", sa.Text),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("fields", sa.Text, nullable=False),
    sa.Column("facets", sa.Text, nullable=False),
    sa.Column("changes", sa.Text, nullable=False),
    sa.Column("deleted", sa.Boolean, nullable=False),
    sa.Index("ix_dataset_versions_dataset", "dataset", "valid_from"),
)

dataset_fields = sa.Table(
    "dataset_fields",
    metadata,
    sa.Column("dataset", sa.Text, primary_key=True),
    sa.Column("field", sa.Text, primary_key=True),
    sa.Column("valid_from", sa.BigInteger, primary_key=True),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("type", sa.Text),
    sa.Column("namespace", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Index("ix_dataset_fields_field", "field"),
)

edges = sa.Table(
    "edges",
    metadata,
    sa.Column("job", sa.Text, primary_key=True),
    sa.Column("dataset", sa.Text, primary_key=True),
    sa.Column("direction", sa.String(8), primary_key=True),  # INPUT: dataset -> job, OUTPUT: job -> dataset
    sa.Column("valid_from", sa.BigInteger, primary_key=True),
    sa.Column("valid_to", sa.BigInteger),
    # covering indexes for one-hop lookups by either end, now or as of a time (migration 0002)
    sa.Index("ix_edges_job_at", "job", "valid_to", "valid_from", "dataset", "direction"),
    sa.Index("ix_edges_dataset_at", "dataset", "valid_to", "valid_from", "job", "direction"),
)

# The field dictionary (store/fields.py, migration 0012): every (dataset node id, field name) that column lineage
# names, once, under a 64-bit id that hashes the pair (the same id in every store, whatever the events' order).
# Written by the projector beside the column edges naming it; never changed; ``db rebuild`` clears and refills it.
fields = sa.Table(
    "fields",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=False),
    sa.Column("dataset", sa.Text, nullable=False),
    sa.Column("field", sa.Text, nullable=False),  # '' = the whole dataset (an INDIRECT dependency's target)
    # by dataset (a dataset's fields); on PostgreSQL a hash index: 4-byte codes instead of the dataset id's text again
    sa.Index("ix_fields_dataset", "dataset", postgresql_using="hash"),
)

# The transformation lists column edges carry (store/fields.py, migration 0012): each distinct list's JSON text once,
# under a 64-bit id that hashes it. A graph has a few dozen distinct lists and millions of edges.
column_transformations = sa.Table(
    "column_transformations",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=False),
    sa.Column("body", sa.Text, nullable=False),
)

# Column lineage edges, their ends as ``fields`` ids and their transformations as a ``column_transformations`` id
# (migration 0012; the texts were repeated on every edge before); read joined with the texts through
# store/fields.py.
column_edges = sa.Table(
    "column_edges",
    metadata,
    sa.Column("job", sa.Text, primary_key=True),
    sa.Column("src_field_id", sa.BigInteger, primary_key=True),
    sa.Column("dst_field_id", sa.BigInteger, primary_key=True),
    sa.Column("valid_from", sa.BigInteger, primary_key=True),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("transformations_id", sa.BigInteger, nullable=False),
    sa.Index("ix_column_edges_src", "src_field_id"),
    sa.Index("ix_column_edges_dst", "dst_field_id"),
)

# Spline execution plans as they arrived (api/spline.py): a plan comes before the execution events that
# reference it; each event is converted with its plan into OpenLineage events appended to ``events``.
# Not derived: the raw foreign payload, kept beside the events it became (GET /spline/producer/execution-plans/{id}).
spline_plans = sa.Table(
    "spline_plans",
    metadata,
    sa.Column("plan_id", sa.String(36), primary_key=True),
    sa.Column("raw", sa.Text, nullable=False),
    sa.Column("api_version", sa.String(8), nullable=False),
    sa.Column("received_at", sa.BigInteger, nullable=False),
)

# What a leniently accepted event did not satisfy (setting ``validation``): one row per event, the
# problems as a JSON list of {path, message}; kept beside the log, not derived (migration 0006).
event_warnings = sa.Table(
    "event_warnings",
    metadata,
    sa.Column("event_id", sa.String(64), primary_key=True),
    sa.Column("event_seq", sa.BigInteger, nullable=False),
    sa.Column("warnings", sa.Text, nullable=False),
    sa.Index("ix_event_warnings_seq", "event_seq"),
)

# The catalog (docs/catalog.md, migration 0007): domains, projects, users and members, the
# glossary, assets (one per dataset node) and their versions, the graph nodes the catalog answers for
# (an asset's source dataset and aliases, its published node and publish job, subscription targets and
# their jobs), subscriptions, data-source runs and the audit log. Written only by headwater.catalog;
# not derived from the log: ``db rebuild`` leaves them alone. The graph layer reads catalog_nodes,
# catalog_assets, catalog_subscriptions and catalog_members for visibility (graph/visibility.py).
catalog_domains = sa.Table(
    "catalog_domains",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("created_by", sa.Text, nullable=False),
)

catalog_projects = sa.Table(
    "catalog_projects",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("domain", sa.String(64), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("created_by", sa.Text, nullable=False),
    sa.Index("ix_catalog_projects_domain", "domain"),
)

catalog_users = sa.Table(
    "catalog_users",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),  # SHA-256 hex of the user's token
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("created_by", sa.Text, nullable=False),
)

catalog_members = sa.Table(
    "catalog_members",
    metadata,
    sa.Column("project", sa.String(64), primary_key=True),
    sa.Column("user", sa.String(64), primary_key=True),
    sa.Column("role", sa.String(16), nullable=False),  # owner | contributor | viewer
    sa.Column("added_at", sa.BigInteger, nullable=False),
    sa.Column("added_by", sa.Text, nullable=False),
    sa.Index("ix_catalog_members_user", "user"),
)

catalog_glossary = sa.Table(
    "catalog_glossary",
    metadata,
    sa.Column("domain", sa.String(64), primary_key=True),
    sa.Column("term", sa.String(200), primary_key=True),
    sa.Column("definition", sa.Text, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    sa.Column("updated_by", sa.Text, nullable=False),
)

catalog_assets = sa.Table(
    "catalog_assets",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("project", sa.String(64), nullable=False),
    sa.Column("dataset", sa.Text, nullable=False, unique=True),  # the inventory node: dataset:<ns>:<name>
    sa.Column("state", sa.String(16), nullable=False),  # inventory | published | unpublished
    sa.Column("custom", sa.Boolean, nullable=False),  # made by hand for a dataset no producer reported
    sa.Column("published_node", sa.Text),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("metadata", sa.Text, nullable=False),  # the business metadata of the current version (JSON)
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("created_by", sa.Text, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    sa.Column("updated_by", sa.Text, nullable=False),
    sa.Index("ix_catalog_assets_project", "project"),
)

catalog_asset_versions = sa.Table(
    "catalog_asset_versions",
    metadata,
    sa.Column("asset", sa.String(64), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("metadata", sa.Text, nullable=False),
    sa.Column("change", sa.String(32), nullable=False),
    sa.Column("changed_at", sa.BigInteger, nullable=False),
    sa.Column("changed_by", sa.Text, nullable=False),
    # the lineage event this version sent (publish, unpublish, metadata of a published asset)
    sa.Column("event_id", sa.String(64)),
)

catalog_nodes = sa.Table(
    "catalog_nodes",
    metadata,
    sa.Column("node", sa.Text, primary_key=True),  # a dataset or job node id
    sa.Column("asset", sa.String(64), nullable=False),
    # source | alias | published | publish_job | target | subscribe_job
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("subscription", sa.String(64)),
    sa.Index("ix_catalog_nodes_asset", "asset"),
)

catalog_subscriptions = sa.Table(
    "catalog_subscriptions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("asset", sa.String(64), nullable=False),
    sa.Column("project", sa.String(64), nullable=False),  # the consumer project
    sa.Column("state", sa.String(16), nullable=False),  # requested | approved | rejected | revoked
    sa.Column("target", sa.Text, nullable=False),  # where the consumer gets it (an environment, a database)
    sa.Column("target_node", sa.Text),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("requested_at", sa.BigInteger, nullable=False),
    sa.Column("requested_by", sa.Text, nullable=False),
    sa.Column("decided_at", sa.BigInteger),
    sa.Column("decided_by", sa.Text),
    sa.Column("event_id", sa.String(64)),
    sa.Index("ix_catalog_subscriptions_asset", "asset"),
    sa.Index("ix_catalog_subscriptions_project", "project"),
)

catalog_source_runs = sa.Table(
    "catalog_source_runs",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("project", sa.String(64), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("created_by", sa.Text, nullable=False),
    sa.Index("ix_catalog_source_runs_project", "project"),
)

catalog_source_run_items = sa.Table(
    "catalog_source_run_items",
    metadata,
    sa.Column("run", sa.String(64), primary_key=True),
    sa.Column("dataset", sa.Text, primary_key=True),
    sa.Column("asset", sa.String(64), nullable=False),
    sa.Column("action", sa.String(16), nullable=False),  # added | updated
    sa.Column("event_id", sa.String(64), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # SUCCESS | FAILED
    sa.Column("error", sa.Text),
)

catalog_audit = sa.Table(
    "catalog_audit",
    metadata,
    sa.Column("seq", SEQ, primary_key=True, autoincrement=True),
    sa.Column("at", sa.BigInteger, nullable=False),
    sa.Column("actor", sa.Text, nullable=False),
    sa.Column("project", sa.String(64)),
    sa.Column("action", sa.String(40), nullable=False),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("detail", sa.Text, nullable=False),
    sa.Index("ix_catalog_audit_project", "project", "seq"),
)

DERIVED_TABLES = (runs, jobs, job_versions, datasets, dataset_versions, dataset_fields, edges, column_edges)

# The DataZone lineage API's own records (api/datazone.py, migration 0008): which domain each event was
# posted to with PostLineageEvent, with its Client-Token, sender and time (the event itself is in
# ``events``); and the DataZone node id of each graph node id handed out. Not derived from the log.
datazone_events = sa.Table(
    "datazone_events",
    metadata,
    sa.Column("domain_id", sa.String(64), primary_key=True),
    sa.Column("event_id", sa.String(64), primary_key=True),
    sa.Column("event_time", sa.BigInteger, nullable=False),
    sa.Column("client_token", sa.String(128)),
    sa.Column("created_by", sa.String(128)),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Index("ix_datazone_events_time", "domain_id", "event_time", "event_id"),
    sa.Index("ix_datazone_events_token", "domain_id", "client_token", unique=True),
)

datazone_nodes = sa.Table(
    "datazone_nodes",
    metadata,
    sa.Column("id", sa.String(36), primary_key=True),
    sa.Column("node", sa.Text, nullable=False),
)

# How far back the history goes after ``headwater db prune`` (migration 0009, store/retention.py): ``pruned_before``,
# the event time before which raw events and finished runs were removed (as-of reads before it answer "history
# pruned"), and ``pruned_seq``, the log position at that prune. No rows: never pruned. Not derived: ``db rebuild``
# leaves it alone.
api_tokens = sa.Table(  # migration 0010: server tokens managed by ``headwater token`` (catalog/tokens.py)
    "api_tokens",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),  # write | read
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),  # SHA-256 hex of the token
    sa.Column("project", sa.String(64)),  # a write token's events are bound to this project at ingest
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("created_by", sa.Text, nullable=False),
    sa.Column("expires_at", sa.BigInteger),
    sa.Column("revoked_at", sa.BigInteger),
    sa.Column("last_used_at", sa.BigInteger),
)

store_horizon = sa.Table(
    "store_horizon",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.BigInteger, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
)

# Which rules of derivation the graph was derived by (store/rules.py, migration 0015): one row, or none when the
# graph was derived before they were recorded. Not derived from the log: a rebuild writes it.
graph_rules = sa.Table(
    "graph_rules",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),  # always 1: one row
    sa.Column("rules", sa.Integer, nullable=False),
    sa.Column("set_at", sa.BigInteger, nullable=False),
)
