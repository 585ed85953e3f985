"""How the event log keeps each event's text: zstd, with dictionaries trained on the log's own events.

Contract:

- **Byte-identical.** :func:`text` gives back exactly the text :func:`encode` was given (the frame holds the
  content size and a checksum; a body that does not decompress to its checksum raises
  :class:`CorruptEvent` naming the dictionary, never a different text). An event's id hashes the event,
  not its stored form, so compression changes no id.
- **Three forms of a row** (``events.raw``, ``events.body``, ``events.dictionary``): ``dictionary`` NULL —
  the text is in ``raw`` (rows from before migration 0011); 0 — ``body`` is zstd without a dictionary (a
  new store, before its first dictionary); n — zstd with ``event_dictionaries`` row n. ``raw`` is '' when
  ``body`` holds the text.
- **Dictionaries are immutable and kept**: a row names the dictionary it was written with for good, so
  reads never depend on which dictionary is newest. New events use the newest one this process knows (it
  looks for one trained by another server every :data:`REFRESH` seconds). A dictionary is committed
  before any event is written with it.
- **Training** (:func:`train`): on the newest :data:`TRAIN_SAMPLES` events; kept only when it compresses
  held-out recent events better than the dictionary in use. :class:`Trainer` trains in the background
  when the log reaches :data:`TRAIN_AT` events and each time it has grown :data:`TRAIN_GROWTH` times
  since the newest dictionary was trained, so a store has a handful of dictionaries in its life.
- **Compaction** (:func:`compact`, ``headwater db compact``): rewrites the rows not on the newest
  dictionary in short transactions of ``batch`` rows (appends wait for one batch at most), each row only
  when its new form is smaller.

- **Made ahead**: :class:`Encoder` makes the same stored forms without a database, from a dictionary's
  bytes (a bulk load's worker processes); the log and the parts keep such a form as made, or compress its
  text again when it was made without a dictionary while the store has one (:func:`kept_as_made`).

One :class:`Codec` per engine (:func:`codec_of`) caches the dictionaries; zstd objects are per thread (they
are not safe to share between threads).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import sqlalchemy as sa
import zstandard

from headwater.model.perkey import PerKey
from headwater.model.times import now_micros
from headwater.store.schema import event_dictionaries, events

LEVEL = 3  # zstd level: ~20 µs per 24 kB Spark event with a dictionary; higher levels cost 5x for ~1.5x
DICTIONARY_SIZE = 64 * 1024  # bytes; larger ones compressed these events no better
TRAIN_AT = 1000  # events in the log before the first dictionary is trained
TRAIN_GROWTH = 10  # a new dictionary each time the log has grown this many times since the newest was trained
TRAIN_SAMPLES = 2000  # newest events a dictionary is trained on (and a tenth more held out to judge it)
SAMPLE_EVENT_BYTES = 1 << 20  # events larger than this are left out of training
SAMPLE_BYTES = 64 << 20  # at most this much text is trained on
MIN_SAMPLES = 100  # fewer events than this train no useful dictionary
# fastCover's segment and d-mer sizes, fixed: zstd's search for them (the default) costs 4x the CPU (~0.34 s against
# ~0.08 s on 1,000 Spark events, taken from a server's second core) and chose about these on every sample we tried
# (k 1,511-1,998, d 8), whose dictionaries compressed held-out events no better (468 B against 437 B per event)
TRAIN_K = 2048
TRAIN_D = 8
REFRESH = 60.0  # seconds between two looks for a dictionary another server trained

log = logging.getLogger("headwater.store")

# The columns a reader of an event's text selects, then hands to :func:`text`.
TEXT_COLUMNS = (events.c.raw, events.c.body, events.c.dictionary)


class CorruptEvent(RuntimeError):
    """A stored body that does not decompress to its own checksum (damage at rest), or names a dictionary the
    store does not hold."""


class StoredText(Protocol):
    """A row with the :data:`TEXT_COLUMNS`."""

    @property
    def raw(self) -> str: ...
    @property
    def body(self) -> bytes | None: ...
    @property
    def dictionary(self) -> int | None: ...


@dataclass(frozen=True)
class Encoded:
    """The stored form of one event's text: the values of ``raw``, ``body`` and ``dictionary``."""

    raw: str
    body: bytes | None
    dictionary: int | None

    def columns(self) -> dict[str, Any]:
        return {"raw": self.raw, "body": self.body, "dictionary": self.dictionary}


class Codec:
    """One database's dictionaries (loaded once each; they never change) and the newest, which new events use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dicts: dict[int, zstandard.ZstdCompressionDict | None] = {0: None}
        self._newest = 0
        self._newest_trained = 0  # the log's head when the newest dictionary was trained (0: none yet)
        self._looked = -REFRESH  # monotonic time of the last look for a newer dictionary
        self._local = threading.local()

    # -- dictionaries ------------------------------------------------------------------------------

    def _load(self, conn: sa.Connection, n: int) -> zstandard.ZstdCompressionDict | None:
        with self._lock:
            if n in self._dicts:
                return self._dicts[n]
        body = conn.scalar(sa.select(event_dictionaries.c.body).where(event_dictionaries.c.id == n))
        if body is None:
            raise CorruptEvent(f"the event log names zstd dictionary {n}, which the store does not hold")
        found = zstandard.ZstdCompressionDict(bytes(body))
        with self._lock:
            return self._dicts.setdefault(n, found)

    def newest(self, conn: sa.Connection) -> tuple[int, int]:
        """(id, trained-at head) of the newest dictionary (0, 0 when none), looking in the store every
        :data:`REFRESH` seconds for one another server trained."""
        now = time.monotonic()
        if now - self._looked >= REFRESH:
            row = conn.execute(
                sa.select(event_dictionaries.c.id, event_dictionaries.c.trained_seq)
                .order_by(event_dictionaries.c.id.desc())
                .limit(1)
            ).first()
            self._looked = now
            if row is not None:
                self.adopt(int(row.id), int(row.trained_seq))
        return self._newest, self._newest_trained

    def look_now(self) -> None:
        """Make the next :meth:`newest` look in the store (not within :data:`REFRESH` seconds)."""
        self._looked = -REFRESH

    def adopt(self, n: int, trained_seq: int) -> None:
        """Use dictionary ``n`` (committed) for new events from now on, unless a newer one is in use."""
        with self._lock:
            if n > self._newest:
                self._newest, self._newest_trained = n, trained_seq

    # -- per-thread zstd objects -------------------------------------------------------------------

    def compressor(self, conn: sa.Connection, n: int) -> zstandard.ZstdCompressor:
        """This thread's compressor with dictionary ``n`` (0: none)."""
        cache: dict[int, zstandard.ZstdCompressor] = self._local.__dict__.setdefault("compressors", {})
        found = cache.get(n)
        if found is None:
            data = self._load(conn, n)
            found = cache[n] = zstandard.ZstdCompressor(level=LEVEL, dict_data=data, write_checksum=True)
        return found

    def _decompressor(self, conn: sa.Connection, n: int) -> zstandard.ZstdDecompressor:
        cache: dict[int, zstandard.ZstdDecompressor] = self._local.__dict__.setdefault("decompressors", {})
        found = cache.get(n)
        if found is None:
            found = cache[n] = zstandard.ZstdDecompressor(dict_data=self._load(conn, n))
        return found

    # -- text <-> stored form ----------------------------------------------------------------------

    def encode_with(self, conn: sa.Connection, text: str, n: int) -> Encoded:
        """``text``'s stored form with dictionary ``n`` (0: none): :func:`_encode`."""
        return _encode(text, n, self.compressor(conn, n), self._decompressor(conn, n))

    def dictionary(self, conn: sa.Connection, n: int) -> bytes | None:
        """Dictionary ``n``'s bytes (None for 0: none), for an :class:`Encoder` in another process."""
        found = self._load(conn, n)
        return None if found is None else found.as_bytes()

    def encode(self, conn: sa.Connection, text: str) -> Encoded:
        return self.encode_with(conn, text, self.newest(conn)[0])

    def text(self, conn: sa.Connection, raw: str, body: bytes | None, dictionary: int | None) -> str:
        if dictionary is None or body is None:
            return raw
        try:
            return self._decompressor(conn, dictionary).decompress(bytes(body)).decode("utf-8")
        except zstandard.ZstdError as exc:
            raise CorruptEvent(f"a stored event does not decompress with dictionary {dictionary}: {exc}") from exc


def _encode(
    text: str, n: int, compressor: zstandard.ZstdCompressor, decompressor: zstandard.ZstdDecompressor
) -> Encoded:
    """``text``'s stored form with dictionary ``n``; the plain form when the text has no UTF-8 encoding (never
    from a JSON body) or the frame would not read back as the same bytes."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return Encoded(text, None, None)
    body = compressor.compress(data)
    if decompressor.decompress(body) != data:  # cheap (~5 µs): byte-identical or not at all
        return Encoded(text, None, None)
    return Encoded("", body, n)


def kept_as_made(made_with: int | None, newest: int) -> bool:
    """Whether a stored form made ahead with dictionary ``made_with`` is stored as it is while ``newest`` is in use:
    when made with it or with any older trained one (about as small; ``compact`` moves it to the newest later);
    one made with none while the store has a dictionary is compressed again (several times the bytes)."""
    return made_with == newest or (made_with is not None and made_with > 0)


class Encoder:
    """Stored forms with one dictionary (``n``, its bytes from :meth:`Codec.dictionary`) without a database: what
    :meth:`Codec.encode_with` makes, in a bulk load's worker processes (store/bulkload.py)."""

    def __init__(self, n: int, data: bytes | None) -> None:
        held = None if data is None else zstandard.ZstdCompressionDict(data)
        self.n = n
        self._compressor = zstandard.ZstdCompressor(level=LEVEL, dict_data=held, write_checksum=True)
        self._decompressor = zstandard.ZstdDecompressor(dict_data=held)

    def encode(self, text: str) -> Encoded:
        return _encode(text, self.n, self._compressor, self._decompressor)


_CODECS: PerKey[sa.Engine, Codec] = PerKey(Codec)


def codec_of(engine: sa.Engine) -> Codec:
    """The :class:`Codec` of the database behind ``engine`` (one per engine, for its life)."""
    return _CODECS.of(engine)


def encode(conn: sa.Connection, text: str) -> Encoded:
    """The stored form of an event's text, with the newest dictionary."""
    return codec_of(conn.engine).encode(conn, text)


def text(conn: sa.Connection, row: StoredText) -> str:
    """An event's text as it was sent, from a row with the :data:`TEXT_COLUMNS`."""
    return codec_of(conn.engine).text(conn, row.raw, row.body, row.dictionary)


class LogRow(NamedTuple):
    """A log row with its text as sent (what the projector observes)."""

    seq: int
    id: str
    raw: str


def log_rows(conn: sa.Connection, rows: Sequence[Any]) -> list[LogRow]:
    """Rows with ``seq``, ``id`` and the :data:`TEXT_COLUMNS` → :class:`LogRow` s (texts decompressed)."""
    codec = codec_of(conn.engine)
    return [LogRow(int(r.seq), r.id, codec.text(conn, r.raw, r.body, r.dictionary)) for r in rows]


# -- training ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trained:
    """What :func:`train` did: the dictionary now in use (0: none), whether it is new, and the held-out
    events' compressed bytes with the new and with the previous one."""

    dictionary: int
    new: bool
    samples: int
    held_out_bytes: int
    with_new: int
    with_previous: int


def _sample(conn: sa.Connection, limit: int) -> tuple[list[bytes], int]:
    """The texts of the newest ``limit`` events of at most :data:`SAMPLE_EVENT_BYTES` each (a dictionary is for
    the many ordinary events; a huge one compresses well alone), oldest first, at most :data:`SAMPLE_BYTES` in
    all; and the log's head. Read in pages of 50 rows, so memory stays bounded whatever the events' sizes."""
    query = sa.select(events.c.seq, *TEXT_COLUMNS).order_by(events.c.seq.desc())
    head = int(conn.scalar(sa.select(sa.func.max(events.c.seq))) or 0)
    found: list[bytes] = []
    total = 0
    before = head + 1
    while len(found) < limit and total < SAMPLE_BYTES:
        rows = conn.execute(query.where(events.c.seq < before).limit(50)).all()
        if not rows:
            break
        for r in rows:
            data = text(conn, r).encode("utf-8")
            if len(data) <= SAMPLE_EVENT_BYTES and len(found) < limit:
                found.append(data)
                total += len(data)
        before = int(rows[-1].seq)
    return found[::-1], head


def train(engine: sa.Engine, *, samples: int = TRAIN_SAMPLES, size: int = DICTIONARY_SIZE) -> Trained:
    """Train a dictionary on the newest ``samples`` events and keep it when it compresses the newest tenth
    more (held out of training) into fewer bytes than the dictionary in use."""
    codec = codec_of(engine)
    with engine.connect() as conn:
        texts, head = _sample(conn, samples + samples // 10)
        current, _ = codec.newest(conn)
    held = max(1, len(texts) // 11)
    fit, judge = texts[:-held], texts[-held:]
    if len(fit) < MIN_SAMPLES:
        return Trained(current, False, len(fit), 0, 0, 0)
    try:
        made = zstandard.train_dictionary(
            size, list[bytes | bytearray | memoryview](fit), k=TRAIN_K, d=TRAIN_D, level=LEVEL
        )
    except zstandard.ZstdError as exc:  # samples too alike or too small to learn from
        log.warning("store: no zstd dictionary could be trained on %d events: %s", len(fit), exc)
        return Trained(current, False, len(fit), 0, 0, 0)
    new = zstandard.ZstdCompressor(level=LEVEL, dict_data=made, write_checksum=True)
    with engine.connect() as conn:
        old = codec.compressor(conn, current)
    judged = sum(map(len, judge))
    with_new = sum(len(new.compress(t)) for t in judge)
    with_old = sum(len(old.compress(t)) for t in judge)
    if with_new >= with_old:
        return Trained(current, False, len(fit), judged, with_new, with_old)
    try:
        with engine.connect().execution_options(hw_write="log") as conn, conn.begin():
            n = int(conn.scalar(sa.select(sa.func.max(event_dictionaries.c.id))) or 0) + 1
            conn.execute(
                event_dictionaries.insert().values(
                    id=n, body=made.as_bytes(), created_at=now_micros(), trained_seq=head, samples=len(fit)
                )
            )
    except sa.exc.IntegrityError:  # another server stored dictionary n a moment ago: use the newest from now on
        codec.look_now()
        return Trained(current, False, len(fit), judged, with_new, with_old)
    codec.adopt(n, head)  # only after its commit: no event is ever written with an uncommitted dictionary
    log.info(
        "store: zstd dictionary %d trained on %d events (held-out events %d → %d bytes)",
        n,
        len(fit),
        with_old,
        with_new,
    )
    return Trained(n, True, len(fit), judged, with_new, with_old)


def training_due(engine: sa.Engine, head: int) -> bool:
    """Whether the log (``head`` events) is due a new dictionary: at :data:`TRAIN_AT` events, then each time it
    has grown :data:`TRAIN_GROWTH` times since the newest was trained."""
    codec = codec_of(engine)
    with engine.connect() as conn:
        _, trained = codec.newest(conn)
    return head >= (TRAIN_AT if trained == 0 else trained * TRAIN_GROWTH)


class Trainer:
    """Trains in a background thread when :func:`training_due` (one training at a time, never on the append's
    path): the store pokes it with the log's head after each commit."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        self._thread: threading.Thread | None = None
        self._next = TRAIN_AT  # no look at the store before the log could be due
        self._lock = threading.Lock()

    def poke(self, head: int) -> None:
        if head < self._next:
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._run, args=(head,), name="headwater-dictionary", daemon=True)
            self._thread.start()

    def _run(self, head: int) -> None:
        try:
            if training_due(self._engine, head):
                train(self._engine)
                self._next = head * TRAIN_GROWTH  # kept or not, the next try when the log has grown as much again
            else:  # another server trained one meanwhile
                with self._engine.connect() as conn:
                    _, trained = codec_of(self._engine).newest(conn)
                self._next = max(head + 1, trained * TRAIN_GROWTH)
        except Exception:  # a failed training costs only compression: logged, tried again later
            log.exception("store: training a zstd dictionary failed; events are stored with the one in use")
            self._next = head * TRAIN_GROWTH

    def join(self, timeout: float) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)


# -- compaction ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compacted:
    """What :func:`compact` did: rows looked at and rewritten, their stored bytes before and after."""

    dictionary: int
    rows: int
    rewritten: int
    bytes_before: int
    bytes_after: int


def _stored_size(raw: str, body: bytes | None) -> int:
    return len(body) if body is not None else len(raw.encode("utf-8", "surrogatepass"))


def compact(
    engine: sa.Engine,
    *,
    batch: int = 500,
    progress: Callable[[Compacted], None] | None = None,
) -> Compacted:
    """Rewrite every row not on the newest dictionary with it, oldest first, ``batch`` rows per transaction;
    a row is rewritten only when its new form is smaller. Its text reads the same before, during and after
    (each row changes in one transaction, from one complete form to another)."""
    codec = codec_of(engine)
    codec.look_now()
    with engine.connect() as conn:
        newest, _ = codec.newest(conn)
    done = Compacted(newest, 0, 0, 0, 0)
    last = 0
    off = sa.or_(events.c.dictionary.is_(None), events.c.dictionary != newest)
    while True:
        with engine.connect().execution_options(hw_write="log") as conn, conn.begin():
            rows: Sequence[Any] = conn.execute(
                sa.select(events.c.seq, *TEXT_COLUMNS)
                .where(events.c.seq > last, off)
                .order_by(events.c.seq)
                .limit(batch)
            ).all()
            if not rows:
                break
            rewritten = before = after = 0
            for row in rows:
                old = _stored_size(row.raw, row.body)
                new = codec.encode_with(conn, codec.text(conn, row.raw, row.body, row.dictionary), newest)
                size = _stored_size(new.raw, new.body)
                before += old
                if size < old:
                    conn.execute(events.update().where(events.c.seq == row.seq).values(**new.columns()))
                    rewritten += 1
                    after += size
                else:
                    after += old
            last = int(rows[-1].seq)
        done = Compacted(
            newest,
            done.rows + len(rows),
            done.rewritten + rewritten,
            done.bytes_before + before,
            done.bytes_after + after,
        )
        if progress is not None:
            progress(done)
    return done


def vacuum(engine: sa.Engine) -> None:
    """Give the space compaction freed back to the file system: SQLite ``VACUUM`` of the log's file (holds the
    log's write lock while it copies the log: appends wait), PostgreSQL ``VACUUM`` of ``events`` (makes the
    space reusable; only ``VACUUM FULL``, not run here, shrinks the table's files)."""
    if engine.dialect.name != "sqlite":
        with engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM events")
        return
    raw = engine.raw_connection()  # outside any transaction (the store's connections begin one on first use)
    try:
        cursor = raw.cursor()
        cursor.execute("PRAGMA database_list")
        attached = any(row[1] == "log" for row in cursor.fetchall())
        cursor.execute("VACUUM log" if attached else "VACUUM")
        cursor.close()
    finally:
        raw.close()
