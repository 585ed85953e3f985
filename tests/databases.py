"""Databases for tests on the real servers: fresh ones, made fast.

- :func:`pg_database` — a new PostgreSQL database for one test (or one module), dropped afterwards. Empty by
  default; with ``migrated=True`` it is a copy of a template migrated once per test process (``CREATE DATABASE
  … TEMPLATE``), so a test store does not run every migration again (about a second on PostgreSQL).
- :func:`sqlite_store_file` — a SQLite store at the newest schema (both files: the main one and the log's),
  copied from one migrated once per test process.
- :func:`downgrade` — a store taken back to an older revision, for the tests of a migration.

A dropped database is handed to one background thread that drops it while the next test runs (a ``DROP
DATABASE`` waits for the server to remove its files: 0.5–2 s on a loaded machine); :func:`finish` waits for
those drops and removes the templates, at the end of the test session (tests/conftest.py).

The templates are made by :func:`headwater.store.migrate.upgrade` on an empty database — what ``Store.open``
does to a new store — so a copy is the same schema, the same Alembic revision and the same rows.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    import sqlalchemy as sa

_lock = threading.Lock()
_pg_templates: dict[str, str] = {}  # server URL -> migrated template database's name
_sqlite_template: Path | None = None
_drops: queue.Queue[tuple[str, str]] = queue.Queue()
_dropper: threading.Thread | None = None


def _url(server_url: str, name: str) -> str:
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


def _create(server_url: str, name: str, template: str | None = None) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))


def _drop_now(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _drop_loop() -> None:
    while True:
        server_url, name = _drops.get()
        try:
            _drop_now(server_url, name)
        except Exception:  # noqa: BLE001 — a database left behind must not fail a later, unrelated test
            pass
        finally:
            _drops.task_done()


def _drop_later(server_url: str, name: str) -> None:
    global _dropper
    with _lock:
        if _dropper is None:
            _dropper = threading.Thread(target=_drop_loop, name="test-db-dropper", daemon=True)
            _dropper.start()
    _drops.put((server_url, name))


def _pg_template(server_url: str) -> str:
    """The name of this process's migrated template database on the server of ``server_url`` (made once)."""
    with _lock:
        name = _pg_templates.get(server_url)
        if name is None:
            from headwater.store.engine import create_store_engine
            from headwater.store.migrate import upgrade

            name = f"hw_template_{os.getpid()}_{uuid.uuid4().hex[:8]}"
            _create(server_url, name)
            engine = create_store_engine(_url(server_url, name))
            try:
                upgrade(engine)
            finally:
                engine.dispose()  # a template must have no connection when it is copied
            _pg_templates[server_url] = name
        return name


@contextmanager
def pg_database(server_url: str, prefix: str = "hw_test", *, migrated: bool = False) -> Iterator[str]:
    """The URL of a new database ``<prefix>_<random>`` on the server of ``server_url``, dropped on exit:
    empty, or with ``migrated`` at the store's newest schema (a copy of this process's template)."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    _create(server_url, name, _pg_template(server_url) if migrated else None)
    try:
        yield _url(server_url, name)
    finally:
        _drop_later(server_url, name)


def sqlite_store_file(folder: Path, name: str = "headwater.db") -> Path:
    """``folder/name``: a SQLite store at the newest schema, no events (a copy of this process's template)."""
    global _sqlite_template
    from headwater.store.engine import create_store_engine, events_file

    with _lock:
        if _sqlite_template is None:
            import tempfile

            template = Path(tempfile.mkdtemp(prefix="hw-sqlite-template-")) / "headwater.db"
            from headwater.store.migrate import upgrade

            engine = create_store_engine(f"sqlite:///{template}")
            try:
                upgrade(engine)
            finally:
                engine.dispose()  # the last connection's close checkpoints the WAL into both files
            _sqlite_template = template
        template = _sqlite_template
    target = folder / name
    for source, copy in ((template, target), (events_file(template), events_file(target))):
        shutil.copyfile(source, copy)
        for suffix in ("-wal", "-shm"):
            if Path(f"{source}{suffix}").exists():
                shutil.copyfile(f"{source}{suffix}", f"{copy}{suffix}")
    return target


def downgrade(engine: sa.Engine, revision: str) -> None:
    """Migrate the store behind ``engine`` back to ``revision`` (the tests of a migration: the store as an older
    server left it)."""
    from alembic import command

    from headwater.store.migrate import alembic_config

    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), revision)


def finish() -> None:
    """Wait for the databases handed to the dropper, then drop the templates (the end of a test session)."""
    global _sqlite_template
    if _dropper is not None:
        _drops.join()
    for server_url, name in list(_pg_templates.items()):
        try:
            _drop_now(server_url, name)
        except Exception:  # noqa: BLE001 — the server may be gone at the end of the session
            pass
    _pg_templates.clear()
    if _sqlite_template is not None:
        shutil.rmtree(_sqlite_template.parent, ignore_errors=True)
        _sqlite_template = None
