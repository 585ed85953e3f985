"""Fresh PostgreSQL databases for tests: created on the real server, dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit


@contextmanager
def pg_database(server_url: str, prefix: str = "hw_test") -> Iterator[str]:
    """The URL of a new, empty database ``<prefix>_<random>`` on the server of ``server_url``; dropped on exit."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
