"""How the derived tables keep their large JSON texts: content-addressed parts, each stored once, compressed.

A daily job says the same things run after run: its inputs' and outputs' schemas, its Spark properties, its
column lineage. The observation index (``observations.data``) and the runs (``runs.facets``, ``runs.job_facets``,
``runs.column_lineage``) kept that text again for every run and every node; here each distinct piece is kept
once, in ``derived_parts``, keyed by the hash of its text and compressed by :mod:`headwater.store.codec` (the
event log's dictionaries and its three stored forms), and the rows hold the key.

Contract:

- **Same values back.** :meth:`Parts.observations` / :meth:`Parts.column` give back exactly what
  ``loads_text(dumps(value))`` gave before (key order included); a row written before migration 0013 (plain
  JSON) reads as it did. Everyone who reads these columns reads through them.
- **Observation texts** (:func:`pack_observation`): the observation's JSON object, where a top-level list whose
  text has :data:`MIN_PART` characters or more becomes ``"<key>#": "<part>"`` and a top-level object with such
  a member becomes ``"<key>#": {member: "<part>" | [value]}`` (a part, or the value inline in a one-element
  list), in the same places; the other values stay as they are. Observation keys never end with ``#``. Then,
  for an observation with a ``runId`` (a dataset's or a job's, a pruned run's sample) or an ``eventType`` (a
  run's), what is left but that value (set to null, so the keys keep their order) is one part too when it is
  long enough: ``{"#": "<part>", "runId": ...}`` (what every run of a daily job says again is stored once).
- **Column texts** (:func:`pack_column`): a JSON text of :data:`MIN_PART` characters or more is ``#<part>``
  (JSON text never starts with ``#``); the ``runs`` columns :data:`RUN_COLUMNS`, but a run's facets that name
  ``"tags"`` (the classification selects those runs by their text).
- **Parts** are immutable: a key is the URL-safe base64 of the first 24 bytes of the SHA-256 of the part's
  UTF-8 text (32 characters; 192 bits, so no two texts share one by accident or by design). Written with the
  rows that name them, in the same transaction (:meth:`Parts.write`: only keys not stored yet, "insert or
  ignore" against a concurrent writer). ``headwater db compact`` recompresses them with the newest dictionary
  (:func:`compact`) and removes the parts no row names any more (after a prune).
- A value many events share (``ingest.shared``: a facet the door parsed, an observation memo's answer) has its
  text and key noted on it the first time: the same text and key, computed once per value, not per event; an
  object made only of such values (a run's facets, job facets, column lineage) has its text and key remembered
  by the values' identities (bounded: :class:`_ObjectTexts`).
- Parsed parts are cached per engine (bounded, LRU); values are shared between readers, who must not mutate
  them (as with the projector's other memos).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from headwater.ingest.shared import notes
from headwater.model.jsontext import dumps, loads_text
from headwater.model.jsontypes import JSONValue
from headwater.model.perkey import PerKey
from headwater.store import codec
from headwater.store.schema import derived_parts, event_id_bytes, observations, runs

MIN_PART = 128  # characters: a shorter value stays inline (a key costs 34)
# the values of an observation that change from run to run: a dataset's or job's run id, a run's event type
VARYING = ("runId", "eventType")
CACHE = 8192  # parsed parts kept per engine
CHUNK = 500  # keys per lookup
RUN_COLUMNS = ("facets", "job_facets", "column_lineage")  # the runs columns kept as parts
# A run's facets text holding this stays as it is: the classification finds the runs that carry tags by it, in SQL.
KEPT_INLINE = '"tags"'


class MissingPart(RuntimeError):
    """A row names a part the store does not hold (damage, or a part removed while a row still named it)."""


def part_key(text: str) -> str:
    """The key of a part's text (32 characters)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:24]
    return base64.urlsafe_b64encode(digest).decode("ascii")


# The rests of observations repeat (a COMPLETE says its START's again, a daily run yesterday's): their keys are
# remembered by text (at most this many texts of a few hundred characters each).
_rest_key = functools.lru_cache(maxsize=4096)(part_key)


def _part(value: JSONValue, found: dict[str, str]) -> str | None:
    noted = notes(value)  # a value many events share (a facet, a memo's answer): its text and key once
    known: tuple[str | None, str] | None = None if noted is None else noted.get("part")
    if known is None:
        text = dumps(value)
        known = (part_key(text) if len(text) >= MIN_PART else None, text)
        if noted is not None:
            noted["part"] = known
    key, text = known
    if key is not None:
        found[key] = text
    return key


def pack_observation(data: Mapping[str, Any], found: dict[str, str]) -> str:
    """An observation's stored text; the parts it names are added to ``found`` (key -> text)."""
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name.endswith("#"):
            raise ValueError(f"an observation key may not end with '#': {name!r}")
        if isinstance(value, list) and value:
            key = _part(value, found)
            if key is not None:
                out[name + "#"] = key
                continue
        elif isinstance(value, dict) and value:
            members: dict[str, Any] = {}
            parted = False
            for member, inner in value.items():
                key = _part(inner, found)
                members[member] = [inner] if key is None else key
                parted = parted or key is not None
            if parted:
                out[name + "#"] = members
                continue
        out[name] = value
    varying = next((name for name in VARYING if name in out), None)
    if varying is not None and len(out) > 1:  # the rest is what every run says again
        rest = dumps({**out, varying: None})
        if len(rest) >= MIN_PART:
            key = _rest_key(rest)
            found[key] = rest
            return dumps({"#": key, varying: out[varying]})
    return dumps(out)


def pack_column(text: str, found: dict[str, str]) -> str:
    """A JSON column's stored text: ``#<part>`` for a long one (added to ``found``), else the text itself."""
    if len(text) < MIN_PART:
        return text
    key = part_key(text)
    found[key] = text
    return "#" + key


def pack_run_column(column: str, text: str, found: dict[str, str]) -> str:
    """A ``runs`` JSON column's stored text (:func:`pack_column`; run facets naming tags stay inline)."""
    if column == "facets" and KEPT_INLINE in text:
        return text
    return pack_column(text, found)


def _keys_of(stored: JSONValue, into: set[str]) -> None:
    """The part keys an observation's stored (parsed) object names."""
    if not isinstance(stored, dict):
        return
    for name, value in stored.items():
        if not name.endswith("#"):
            continue
        if isinstance(value, str):
            into.add(value)
        elif isinstance(value, dict):
            into.update(v for v in value.values() if isinstance(v, str))


_PART_COLUMNS = ("key", "raw", "body", "dictionary")


COPY_ROWS = 64  # from this many rows an insert into PostgreSQL goes by COPY


def insert_many(
    conn: sa.Connection, table: sa.Table, columns: Sequence[str], rows: Sequence[Sequence[Any]], on_conflict: str = ""
) -> None:
    """Insert ``rows`` (tuples in ``columns``' order) straight through the driver, without SQLAlchemy's per-row
    compilation (a step of a big load writes thousands); ``on_conflict``: a unique column whose duplicates are
    skipped. The driver's executemany; on PostgreSQL, for many rows, a ``COPY`` (:func:`_copy_rows`),
    into a temporary table first when duplicates are to be skipped (then one ``INSERT ... SELECT ... ON
    CONFLICT``)."""
    quote = conn.dialect.identifier_preparer.quote
    names = ", ".join(quote(c) for c in columns)
    skip = f" ON CONFLICT ({quote(on_conflict)}) DO NOTHING" if on_conflict else ""
    if len(rows) >= COPY_ROWS and conn.dialect.name == "postgresql":
        if not on_conflict:
            _copy_rows(conn, f"{quote(table.name)} ({names})", rows)
            return
        # this transaction's own, private to the session: dropped at its end (committed or rolled back)
        staged = quote(f"hw_staged_{table.name}")
        conn.exec_driver_sql(f"CREATE TEMPORARY TABLE IF NOT EXISTS {staged} (LIKE {quote(table.name)}) ON COMMIT DROP")
        _copy_rows(conn, f"{staged} ({names})", rows)
        conn.exec_driver_sql(f"INSERT INTO {quote(table.name)} ({names}) SELECT {names} FROM {staged}{skip}")
        conn.exec_driver_sql(f"TRUNCATE {staged}")
        return
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    conn.exec_driver_sql(
        f"INSERT INTO {quote(table.name)} ({names}) VALUES ({', '.join(mark for _ in columns)}){skip}", rows
    )


def _copy_rows(conn: sa.Connection, target: str, rows: Iterable[Sequence[Any]]) -> None:
    """PostgreSQL: ``rows`` into ``target`` (``table (a, b)``) by ``COPY ... FROM STDIN`` in ``conn``'s
    transaction: psycopg's executemany sends one prepared INSERT per row (its Python per row and the server's
    per statement were 39 % of a bulk load's main process); a COPY streams them. Finished before it returns:
    leaving it open until the connection's next statement, its rows sent by psycopg's queued writer thread so
    that the server inserts while the caller derives on, made the 100k load 4-6 % slower (the thread takes the
    GIL)."""
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        with cursor.copy(f"COPY {target} FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    finally:
        cursor.close()


def select_in(conn: sa.Connection, table: sa.Table, key: str, values: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows of ``table`` (every column, in its order) whose ``key`` is one of ``values`` (plain texts or
    integers), straight through the driver: SQLAlchemy's expanding ``IN`` cost more than the query itself on the
    thousands of look-ups of a big load's steps. On PostgreSQL the values go as one array (``= ANY``): one
    statement text whatever their number, prepared once by the driver and planned once by the server, instead of
    a new ``IN`` list of parameters to parse and plan each time."""
    if not values:
        return []
    quote = conn.dialect.identifier_preparer.quote
    head = f"SELECT {', '.join(quote(c.name) for c in table.columns)} FROM {quote(table.name)} WHERE {quote(key)}"
    if conn.dialect.name == "postgresql":
        array = f"{table.c[key].type.compile(conn.dialect)}[]"
        return [tuple(r) for r in conn.exec_driver_sql(f"{head} = ANY(%s::{array})", (_array_literal(values),))]
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    return [tuple(r) for r in conn.exec_driver_sql(f"{head} IN ({', '.join(mark for _ in values)})", tuple(values))]


def _array_literal(values: Sequence[Any]) -> str:
    """PostgreSQL's text form of an array of ``values`` (integers, or texts each quoted): the driver's own dumping
    of a list went through Python per element, 3 % of a bulk load's main process."""
    if all(type(v) is int for v in values):
        return "{" + ",".join(map(str, values)) + "}"
    return "{" + ",".join('"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


_PARTS_OF = sa.select(derived_parts.c.key, derived_parts.c.raw, derived_parts.c.body, derived_parts.c.dictionary).where(
    derived_parts.c.key.in_(sa.bindparam("keys", expanding=True))
)


class Parts:
    """One database's parts: the parsed-part cache, reads and writes (one per engine: :func:`parts_of`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[str, JSONValue] = {}

    # -- writes ------------------------------------------------------------------------------------

    def write(self, conn: sa.Connection, found: Mapping[str, str | codec.Encoded]) -> None:
        """Store the parts in ``found`` (key -> text, or its stored form made ahead by a bulk load's worker: kept as
        made, or compressed again: :func:`codec.kept_as_made`) that the store does not hold yet, in ``conn``'s
        transaction."""
        if not found:
            return
        keys = sorted(found)
        stored: set[str] = set()
        for start in range(0, len(keys), CHUNK):
            stored.update(r[0] for r in select_in(conn, derived_parts, "key", keys[start : start + CHUNK]))
        held = codec.codec_of(conn.engine)
        newest = held.newest(conn)[0]
        rows = []
        for k in keys:
            if k not in stored:
                value = found[k]
                if isinstance(value, str):
                    encoded = codec.encode(conn, value)
                elif not codec.kept_as_made(value.dictionary, newest):
                    encoded = codec.encode(conn, held.text(conn, value.raw, value.body, value.dictionary))
                else:
                    encoded = value
                rows.append((k, encoded.raw, encoded.body, encoded.dictionary))
        if rows:  # straight to the driver's executemany (a step of a big load writes thousands)
            insert_many(conn, derived_parts, _PART_COLUMNS, rows, on_conflict="key")

    # -- reads -------------------------------------------------------------------------------------

    def _cached(self, key: str) -> Any:
        with self._lock:
            found = self._cache.pop(key, _MISSING)
            if found is not _MISSING:
                self._cache[key] = found  # most recently used
            return found

    def _remember(self, key: str, value: JSONValue) -> None:
        with self._lock:
            if len(self._cache) >= CACHE:
                del self._cache[next(iter(self._cache))]
            self._cache[key] = value

    def values(self, conn: sa.Connection, keys: Iterable[str]) -> dict[str, JSONValue]:
        """The parsed parts of ``keys`` (from the cache, the rest in one query per :data:`CHUNK` keys)."""
        out: dict[str, JSONValue] = {}
        missing: list[str] = []
        for key in set(keys):
            found = self._cached(key)
            if found is _MISSING:
                missing.append(key)
            else:
                out[key] = found
        missing.sort()
        for start in range(0, len(missing), CHUNK):
            for row in conn.execute(_PARTS_OF, {"keys": missing[start : start + CHUNK]}):
                value = loads_text(codec.text(conn, row))
                self._remember(row.key, value)
                out[row.key] = value
        lost = [k for k in missing if k not in out]
        if lost:
            raise MissingPart(f"the derived tables name {len(lost)} part(s) the store does not hold, e.g. {lost[0]}")
        return out

    def observations(self, conn: sa.Connection, texts: Sequence[str]) -> list[Any]:
        """Observations' stored texts → their data, as :func:`pack_observation` was given it."""
        return unpack_observations(texts, lambda keys: self.values(conn, keys))

    def observation(self, conn: sa.Connection, text: str) -> Any:
        """One observation's stored text → its data."""
        return self.observations(conn, [text])[0]

    def column(self, conn: sa.Connection, text: str | None, loads: Callable[[str], Any] = loads_text) -> Any:
        """A JSON column's stored text → its value (``loads`` parses a text kept inline, e.g. a memo's)."""
        if text is None:
            return None
        if text.startswith("#"):
            key = text[1:]
            return self.values(conn, [key])[key]
        return loads(text)


def unpack_observations(texts: Sequence[str], fetch: Callable[[set[str]], Mapping[str, JSONValue]]) -> list[Any]:
    """Observations' stored texts → their data, with ``fetch`` giving the parsed parts of a set of keys."""
    parsed = [loads_text(t) for t in texts]
    rests = {s["#"] for s in parsed if isinstance(s, dict) and isinstance(s.get("#"), str)}
    if rests:  # first the rest of each observation, then the parts it names
        found = fetch(rests)
        parsed = [_with_rest(s, found) for s in parsed]
    keys: set[str] = set()
    for stored in parsed:
        _keys_of(stored, keys)
    if not keys:
        return parsed
    values = fetch(keys)
    return [_unpack(stored, values) for stored in parsed]


def _with_rest(stored: Any, rests: Mapping[str, JSONValue]) -> Any:
    """``{"#": key, "runId": x}`` → the rest of the observation (the part ``key``) with its ``runId`` (or
    ``eventType``) x, in place."""
    if not isinstance(stored, dict) or not isinstance(stored.get("#"), str):
        return stored
    rest = rests[stored["#"]]
    assert isinstance(rest, dict)
    return {**rest, **{k: v for k, v in stored.items() if k != "#"}}


def _unpack(stored: Any, values: Mapping[str, JSONValue]) -> Any:
    if not isinstance(stored, dict) or not any(name.endswith("#") for name in stored):
        return stored
    out: dict[str, Any] = {}
    for name, value in stored.items():
        if not name.endswith("#"):
            out[name] = value
        elif isinstance(value, str):
            out[name[:-1]] = values[value]
        else:
            out[name[:-1]] = {m: (values[v] if isinstance(v, str) else v[0]) for m, v in value.items()}
    return out


_MISSING = object()
_PARTS: PerKey[sa.Engine, Parts] = PerKey(Parts)


def parts_of(engine: sa.Engine) -> Parts:
    """The :class:`Parts` of the database behind ``engine`` (one per engine, for its life)."""
    return _PARTS.of(engine)


# -- the one way in and out, for every reader and writer ---------------------------------------------


def observation_rows(conn: sa.Connection, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Observation rows to insert (``data`` a JSON-able object) → their stored form; writes the parts they name."""
    found: dict[str, str] = {}
    out = [{**row, "data": pack_observation(row["data"], found)} for row in rows]
    parts_of(conn.engine).write(conn, found)
    return out


_OBSERVATION_COLUMNS = ("node", "event_seq", "role", "time", "event_id", "data")


def _packed(
    data: Mapping[str, Any],
    stored: tuple[str, Mapping[str, str | codec.Encoded]] | None,
    found: dict[str, str | codec.Encoded],
) -> str:
    """:func:`pack_observation` of ``data``, or its result made ahead (``stored``: the text and the parts it names)."""
    if stored is None:
        texts: dict[str, str] = {}
        packed = pack_observation(data, texts)
        found.update(texts)
        return packed
    text, named = stored
    found.update(named)
    return text


def _id_bytes(event_id: str, known: dict[str, bytes]) -> bytes:
    """:func:`~headwater.store.schema.event_id_bytes`, once per event id in ``known``."""
    found = known.get(event_id)
    if found is None:
        found = known[event_id] = event_id_bytes(event_id)
    return found


def insert_observations(conn: sa.Connection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert observation rows (every column of ``observations``; ``data`` a JSON-able object; ``stored``, when
    given, its stored text and parts made ahead: :func:`pack_observation`) in their stored form, with the parts
    they name. Straight to the driver's executemany (a step inserts a row per node an event
    touches: SQLAlchemy's per-row parameter processing cost more than the insert); the event id as
    :class:`~headwater.store.schema.EventId` binds it."""
    if not rows:
        return
    found: dict[str, str | codec.Encoded] = {}
    ids: dict[str, bytes] = {}  # an event's id as stored, once per event (it has a row per node it touches)
    values = [
        (
            r["node"],
            r["event_seq"],
            r["role"],
            r["time"],
            _id_bytes(r["event_id"], ids),
            _packed(r["data"], r.get("stored"), found),
        )
        for r in rows
    ]
    parts_of(conn.engine).write(conn, found)
    insert_many(conn, observations, _OBSERVATION_COLUMNS, values)


def read_observations(conn: sa.Connection, texts: Sequence[str]) -> list[Any]:
    """Stored ``observations.data`` texts → their data (every reader of the column reads through this)."""
    return parts_of(conn.engine).observations(conn, texts)


def read_observation(conn: sa.Connection, text: str) -> Any:
    return parts_of(conn.engine).observation(conn, text)


class _ObjectTexts:
    """The JSON text and part key of objects whose members are all shared values (``ingest.shared``): a run's facets,
    job facets and column lineage are a fresh object per run, made of the same facets and observation-memo answers
    run after run, and writing (kilobytes of column lineage) and hashing them again was much of deriving a run.
    Keyed by the member names and the values' identities (the entry keeps the values alive, so that no other object
    takes their ids; shared values are never mutated), so the answer is the object's own. Bounded in entries and in
    text (the oldest goes first; a text over ``MAX_TEXT`` is not kept: a very wide job's lineage would hold its
    values alive long after their owners let them go); thread-safe."""

    SIZE = 1024
    MAX_BYTES = 16 * 1024 * 1024  # characters of text kept in all
    MAX_TEXT = 1024 * 1024

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[tuple[object, ...], tuple[str, str | None, list[object]]] = {}
        self._size = 0

    def of(self, value: object) -> tuple[str, str | None]:
        """``value``'s JSON text and, when it is :data:`MIN_PART` characters or more, its part key."""
        if type(value) is not dict or not value or any(notes(v) is None for v in value.values()):
            text = dumps(value)
            return text, (part_key(text) if len(text) >= MIN_PART else None)
        key = tuple(m for name, v in value.items() for m in (name, id(v)))
        with self._lock:
            found = self._known.get(key)
        if found is None:
            text = dumps(value)
            found = (text, part_key(text) if len(text) >= MIN_PART else None, list(value.values()))
            if len(text) <= self.MAX_TEXT:
                with self._lock:
                    if key not in self._known:
                        self._known[key] = found
                        self._size += len(text)
                    while len(self._known) > self.SIZE or self._size > self.MAX_BYTES:
                        self._size -= len(self._known.pop(next(iter(self._known)))[0])
        return found[0], found[1]


_OBJECT_TEXTS = _ObjectTexts()
_RUN_TABLE_COLUMNS = tuple(runs.c.keys())
_RUN_PLAIN_JSON = ("inputs", "outputs")  # the runs columns kept as JSON text, never as parts


def insert_runs(conn: sa.Connection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``runs`` rows (every column; the JSON columns as values, :func:`headwater.store.derive_runs.derive_run`'s
    answer) in their stored form (the :data:`RUN_COLUMNS` as :func:`pack_run_column` packs their JSON text), with the
    parts they name; straight to the driver's executemany."""
    if not rows:
        return
    found: dict[str, str] = {}
    values = []
    for row in rows:
        stored = dict(row)
        for column in RUN_COLUMNS:
            text, key = _OBJECT_TEXTS.of(row[column])
            if key is None or (column == "facets" and KEPT_INLINE in text):
                stored[column] = text
            else:
                found[key] = text
                stored[column] = "#" + key
        for column in _RUN_PLAIN_JSON:
            stored[column] = dumps(row[column])
        values.append(tuple(stored[c] for c in _RUN_TABLE_COLUMNS))
    parts_of(conn.engine).write(conn, found)
    insert_many(conn, runs, _RUN_TABLE_COLUMNS, values)


def read_column(conn: sa.Connection, text: str | None, loads: Callable[[str], Any] = loads_text) -> Any:
    """A stored ``runs.facets`` / ``runs.job_facets`` / ``runs.column_lineage`` text → its value (every reader reads
    through this)."""
    return parts_of(conn.engine).column(conn, text, loads)


# -- converting, compacting -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Packed:
    """What :func:`pack_stored` / :func:`compact` did."""

    rows: int  # rows rewritten into parts
    parts: int  # parts recompressed
    removed: int  # parts no row named
    bytes_before: int
    bytes_after: int


def pack_stored(conn: sa.Connection, batch: int = 500) -> int:
    """Rewrite the observation and run rows still kept as plain JSON into parts (migration 0013, and ``db compact``
    for rows a pre-0013 server wrote); answers how many rows were rewritten."""
    done = 0
    obs_key = OBSERVATION_KEY
    for rows in _observation_pages(conn, (*obs_key, observations.c.data), batch):
        found: dict[str, str] = {}
        for row in rows:
            if not row.data.startswith("{"):
                continue
            stored = loads_text(row.data)
            if not isinstance(stored, dict) or any(k.endswith("#") for k in stored):
                continue
            text = pack_observation(stored, found)
            if text != row.data:
                conn.execute(
                    observations.update()
                    .where(*(c == v for c, v in zip(obs_key, row[:3], strict=True)))
                    .values(data=text)
                )
                done += 1
        parts_of(conn.engine).write(conn, found)
    last_run: str | None = None
    while True:
        rquery = sa.select(runs.c.run_id, *(runs.c[c] for c in RUN_COLUMNS)).order_by(runs.c.run_id).limit(batch)
        if last_run is not None:
            rquery = rquery.where(runs.c.run_id > last_run)
        rrows = conn.execute(rquery).all()
        if not rrows:
            break
        found = {}
        for r in rrows:
            values = {
                c: pack_run_column(c, getattr(r, c), found) for c in RUN_COLUMNS if not getattr(r, c).startswith("#")
            }
            if any(values[c] != getattr(r, c) for c in values):
                conn.execute(runs.update().where(runs.c.run_id == r.run_id).values(**values))
                done += 1
        parts_of(conn.engine).write(conn, found)
        last_run = rrows[-1].run_id
    return done


# What tells observation rows apart (they have no primary key since migration 0014): an event's rows differ by role
# and node.
OBSERVATION_KEY = (observations.c.event_seq, observations.c.role, observations.c.node)


def _observation_pages(
    conn: sa.Connection, columns: Sequence[sa.ColumnElement[Any]], events: int
) -> Iterable[Sequence[sa.Row[Any]]]:
    """The observation rows, ``columns`` of each, a page per ``events`` log positions (every row of an event in one
    page; each page two range reads of the log position's index)."""
    seq = observations.c.event_seq
    last: int | None = None
    while True:
        query = sa.select(seq).distinct().order_by(seq).limit(events)
        seqs = list(conn.scalars(query if last is None else query.where(seq > last)))
        if not seqs:
            return
        yield conn.execute(sa.select(*columns).where(seq >= seqs[0], seq <= seqs[-1])).all()
        last = seqs[-1]


def named_keys(conn: sa.Connection, batch: int = 2000) -> set[str]:
    """Every part key a row names (read in pages)."""
    keys: set[str] = set()
    rests: set[str] = set()
    texts = (row.data for rows in _observation_pages(conn, (observations.c.data,), batch // 5) for row in rows)
    for text in texts:
        if "#" in text:
            stored = loads_text(text)
            if isinstance(stored, dict) and isinstance(stored.get("#"), str):
                rests.add(stored["#"])
            else:
                _keys_of(stored, keys)
    found = parts_of(conn.engine).values(conn, rests)  # the rests name parts of their own
    for rest in found.values():
        _keys_of(rest, keys)
    keys |= rests
    for column in RUN_COLUMNS:
        for text in _run_column_pages(conn, runs.c[column], batch):
            if text.startswith("#"):
                keys.add(text[1:])
    return keys


def _run_column_pages(conn: sa.Connection, column: sa.Column[Any], batch: int) -> Iterable[str]:
    last: str | None = None
    while True:
        query = sa.select(runs.c.run_id, column).order_by(runs.c.run_id).limit(batch)
        rows = conn.execute(query if last is None else query.where(runs.c.run_id > last)).all()
        if not rows:
            return
        for row in rows:
            yield row[1]
        last = rows[-1].run_id


def compact(engine: sa.Engine, batch: int = 500) -> Packed:
    """``headwater db compact`` for the derived texts: rows still plain (written before migration 0013) into
    parts; every part not on the log's newest dictionary recompressed with it (only when smaller), ``batch``
    per transaction; then the parts no row names any more (after a prune) removed, in one transaction that
    holds the graph's writers (so no projection step names a part between the look and the removal)."""
    from headwater.store.store import PG_WRITER_LOCK  # the store's lock of the graph's writers

    def lock(conn: sa.Connection) -> None:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_WRITER_LOCK})

    with engine.connect().execution_options(hw_write="graph") as conn, conn.begin():
        lock(conn)
        rows = pack_stored(conn, batch)
    owner = codec.codec_of(engine)
    owner.look_now()
    with engine.connect() as conn:
        newest, _ = owner.newest(conn)
    recompressed = before = after = 0
    last = ""
    off = sa.or_(derived_parts.c.dictionary.is_(None), derived_parts.c.dictionary != newest)
    while True:
        with engine.connect().execution_options(hw_write="graph") as conn, conn.begin():
            page = conn.execute(
                sa.select(derived_parts)
                .where(derived_parts.c.key > last, off)
                .order_by(derived_parts.c.key)
                .limit(batch)
            ).all()
            if not page:
                break
            for row in page:
                old = len(row.body) if row.body is not None else len(row.raw.encode("utf-8", "surrogatepass"))
                new = owner.encode_with(conn, codec.text(conn, row), newest)
                size = len(new.body) if new.body is not None else len(new.raw.encode("utf-8", "surrogatepass"))
                before += old
                if size < old:
                    conn.execute(derived_parts.update().where(derived_parts.c.key == row.key).values(**new.columns()))
                    recompressed += 1
                    after += size
                else:
                    after += old
            last = page[-1].key
    removed = 0
    with engine.connect().execution_options(hw_write="graph") as conn, conn.begin():
        lock(conn)
        named = named_keys(conn)
        unnamed = [k for k in conn.scalars(sa.select(derived_parts.c.key)) if k not in named]
        for start in range(0, len(unnamed), CHUNK):
            conn.execute(derived_parts.delete().where(derived_parts.c.key.in_(unnamed[start : start + CHUNK])))
        removed = len(unnamed)
    return Packed(rows, recompressed, removed, before, after)
