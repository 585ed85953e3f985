"""Alembic environment: the store passes its open connection in ``config.attributes``."""

from __future__ import annotations

from alembic import context

from headwater.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only when someone runs the alembic CLI directly
    raise RuntimeError("run migrations through headwater (Store.open or `headwater db upgrade`)")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
