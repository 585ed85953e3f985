"""Server tokens an operator manages without a restart (``headwater token create|list|revoke``, docs/deploy.md,
"Tokens"): kept in ``api_tokens`` (migration 0010) beside the ``write_tokens``/``read_tokens`` settings, which
keep working.

- A token is ``hw_`` + 32 random bytes (URL-safe base64); only its SHA-256 is stored, the text is shown once.
- ``kind``: ``write`` (sends events, acts as the server's write token) or ``read``.
- ``project`` (write tokens, optional): what the token sends is bound to that project at ingest (the token acts
  as the project's contributor: docs/catalog.md), so a producer's events are never public before they are bound.
- ``expires_at``: a token is refused from then on; ``revoked_at``: refused from then on (revocation is
  immediate: every request looks the token up). Rotation: create the new token, move producers to it, revoke
  the old one — both are valid in between.
- ``last_used_at``: written when a request uses the token, at most once per :data:`USE_RESOLUTION` seconds.
- Each creation and revocation is an entry in the catalog's audit log (``token.create``, ``token.revoke``).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import sqlalchemy as sa

from headwater.catalog import tables
from headwater.catalog.errors import Conflict, InvalidRequest, NotFound
from headwater.model.times import iso, now_micros
from headwater.store.schema import api_tokens

KINDS = ("write", "read")
PREFIX = "hw_"
USE_RESOLUTION = 60.0  # seconds: last_used_at is this precise (one small write per token per minute at most)
_ACTIVE_TTL = 1.0  # seconds an answer of :func:`active_kinds` is reused (every unauthenticated request asks)


def token_hash(token: str) -> str:
    """What is kept of a token (a managed one, a catalog user's): its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenRecord:
    """One managed token (never its text)."""

    id: str
    name: str
    kind: str
    project: str | None
    created_at: int
    created_by: str
    expires_at: int | None
    revoked_at: int | None
    last_used_at: int | None

    def valid(self, now: int) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def as_dict(self) -> dict[str, str | None]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "project": self.project,
            "createdAt": iso(self.created_at),
            "createdBy": self.created_by,
            "expiresAt": None if self.expires_at is None else iso(self.expires_at),
            "revokedAt": None if self.revoked_at is None else iso(self.revoked_at),
            "lastUsedAt": None if self.last_used_at is None else iso(self.last_used_at),
        }


def _record(row: sa.Row[object]) -> TokenRecord:
    m = row._mapping
    return TokenRecord(
        id=str(m["id"]),
        name=str(m["name"]),
        kind=str(m["kind"]),
        project=None if m["project"] is None else str(m["project"]),
        created_at=int(m["created_at"]),
        created_by=str(m["created_by"]),
        expires_at=None if m["expires_at"] is None else int(m["expires_at"]),
        revoked_at=None if m["revoked_at"] is None else int(m["revoked_at"]),
        last_used_at=None if m["last_used_at"] is None else int(m["last_used_at"]),
    )


def create_token(
    conn: sa.Connection,
    *,
    name: str,
    kind: str,
    actor: str,
    project: str | None = None,
    expires_at: int | None = None,
) -> tuple[str, TokenRecord]:
    """A new token (its text, shown once, and its record), audited; in the caller's transaction."""
    if kind not in KINDS:
        raise InvalidRequest(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    if not name.strip() or len(name) > 200:
        raise InvalidRequest("name: 1 to 200 characters that say where the token is used")
    if project is not None:
        if kind != "write":
            raise InvalidRequest("project: only a write token is bound to a project (a read token reads as anonymous)")
        if tables.project(conn, project) is None:
            raise NotFound(f"no project {project!r}")
    now = now_micros()
    if expires_at is not None and expires_at <= now:
        raise InvalidRequest(f"expires: {iso(expires_at)} is not in the future")
    text = PREFIX + secrets.token_urlsafe(32)
    token_id = "tok_" + secrets.token_hex(6)
    values = {
        "id": token_id,
        "name": name,
        "kind": kind,
        "token_hash": token_hash(text),
        "project": project,
        "created_at": now,
        "created_by": actor,
        "expires_at": expires_at,
        "revoked_at": None,
        "last_used_at": None,
    }
    conn.execute(api_tokens.insert().values(**values))
    detail = {
        "name": name,
        "kind": kind,
        "project": project,
        "expiresAt": None if expires_at is None else iso(expires_at),
    }
    tables.audit(conn, actor, project, "token.create", token_id, detail)
    _forget_active()
    return text, _record(conn.execute(sa.select(api_tokens).where(api_tokens.c.id == token_id)).one())


def list_tokens(conn: sa.Connection) -> list[TokenRecord]:
    """Every managed token, oldest first (revoked and expired ones too: what happened stays readable)."""
    rows = conn.execute(sa.select(api_tokens).order_by(api_tokens.c.created_at, api_tokens.c.id))
    return [_record(r) for r in rows]


def revoke_token(conn: sa.Connection, token_id: str, *, actor: str) -> TokenRecord:
    """Revoke ``token_id`` now (refused from the next request on), audited; :class:`NotFound` unknown,
    :class:`Conflict` revoked already."""
    row = conn.execute(sa.select(api_tokens).where(api_tokens.c.id == token_id)).first()
    if row is None:
        raise NotFound(f"no token {token_id!r} (headwater token list shows their ids)")
    record = _record(row)
    if record.revoked_at is not None:
        raise Conflict(f"token {token_id!r} was revoked at {iso(record.revoked_at)}")
    now = now_micros()
    conn.execute(api_tokens.update().where(api_tokens.c.id == token_id).values(revoked_at=now))
    tables.audit(conn, actor, record.project, "token.revoke", token_id, {"name": record.name, "kind": record.kind})
    _forget_active()
    return _record(conn.execute(sa.select(api_tokens).where(api_tokens.c.id == token_id)).one())


def resolve_token(conn: sa.Connection, token: str) -> TokenRecord | None:
    """The valid (not revoked, not expired) managed token ``token`` is, or None."""
    if not token.startswith(PREFIX):
        return None
    row = conn.execute(sa.select(api_tokens).where(api_tokens.c.token_hash == token_hash(token))).first()
    if row is None:
        return None
    record = _record(row)
    return record if record.valid(now_micros()) else None


def writing(engine: sa.Engine) -> sa.Connection:
    """A connection whose transactions write the tokens (on SQLite they take the write lock at ``BEGIN`` and
    wait for other writers, instead of failing when a read turns into a write)."""
    return engine.connect().execution_options(hw_write="graph")


_USES = ThreadPoolExecutor(max_workers=1, thread_name_prefix="headwater-token-use")
_MARKED: dict[str, int] = {}  # token id -> when this process last recorded its use
_MARKED_LOCK = threading.Lock()


def mark_used(engine: sa.Engine, record: TokenRecord) -> None:
    """Record that ``record`` was used now, unless that was recorded less than :data:`USE_RESOLUTION` ago.
    Written by a background thread: a request never waits for the store's write lock to say a token was used
    (best effort: a busy store skips the write; the next use after the minute writes it)."""
    now = now_micros()
    window = int(USE_RESOLUTION * 1_000_000)
    with _MARKED_LOCK:
        last = max(record.last_used_at or 0, _MARKED.get(record.id, 0))
        if now - last < window:
            return
        _MARKED[record.id] = now
    _USES.submit(_write_use, engine, record.id, now)


def settle_uses(timeout: float = 30.0) -> None:
    """Wait until the uses recorded so far are written (one worker, in order: a no-op queued behind them)."""
    _USES.submit(lambda: None).result(timeout)


def _write_use(engine: sa.Engine, token_id: str, now: int) -> None:
    try:
        with writing(engine) as conn, conn.begin():
            conn.execute(api_tokens.update().where(api_tokens.c.id == token_id).values(last_used_at=now))
    except sa.exc.SQLAlchemyError:
        pass  # a closed or busy store: the use after the next minute is recorded


_ACTIVE: dict[str, tuple[float, frozenset[str]]] = {}
_ACTIVE_LOCK = threading.Lock()


def _forget_active() -> None:
    with _ACTIVE_LOCK:
        _ACTIVE.clear()


def active_kinds(engine: sa.Engine) -> frozenset[str]:
    """The kinds (``write``, ``read``) of which a valid managed token exists: a server with one requires tokens
    for that kind of request, as with the settings. Reused for :data:`_ACTIVE_TTL` seconds (another server's new
    token is required within a second)."""
    key = engine.url.render_as_string(hide_password=True)
    with _ACTIVE_LOCK:
        found = _ACTIVE.get(key)
    if found is not None and time.monotonic() - found[0] < _ACTIVE_TTL:
        return found[1]
    now = now_micros()
    with engine.connect() as conn:
        kinds = frozenset(
            str(k)
            for k in conn.scalars(
                sa.select(api_tokens.c.kind)
                .where(
                    api_tokens.c.revoked_at.is_(None),
                    sa.or_(api_tokens.c.expires_at.is_(None), api_tokens.c.expires_at > now),
                )
                .distinct()
            )
        )
    with _ACTIVE_LOCK:
        _ACTIVE[key] = (time.monotonic(), kinds)
    return kinds
