"""Statement executions → OpenLineage events, sent through :mod:`headwater.client` (what every query-history source
shares).

A source (pg_stat_statements, a PostgreSQL csvlog, MariaDB's general log, a Redshift export) yields
:class:`Execution` records: the statement text, its database, real start/end times where the source has them, and a
key that identifies the execution in its source. :class:`Harvester` runs each *distinct* statement text through the
SQL engine once (:mod:`headwater.sql`, with the database's schemas), and makes the events of each execution:

- job: namespace = the database namespace (:func:`headwater.model.naming.database_namespace`), name = the engine's
  stable name for the statement (``<verb>.<first output>.<digest of the normalised text>``, as ``headwater sql
  lineage`` names it), the ``sql`` job facet;
- run: id = uuid5 of (namespace, source, execution key) — the same execution always maps to the same events, so a
  re-harvest after a lost checkpoint stores nothing twice; START at the start time and COMPLETE (FAIL for a failed
  statement) at the end time when both are known, else one COMPLETE at the one time known (``start_events=False``:
  the COMPLETE only, half the events, the start in the facet); a ``headwater_harvest`` run facet (source, execution
  key, user, ``startTime``, and what the source counts, e.g. calls).

Statements that write nothing (SELECT, SET, BEGIN...) and statements the parser cannot read are skipped and counted
with their reason in the :class:`Summary`.
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from headwater.client import LineageClient
from headwater.model import openlineage as ol
from headwater.model import times
from headwater.model.jsontypes import JSONObject, JSONValue
from headwater.sql import PRODUCER, Catalog, Extractor, StatementLineage, get_dialect, parse_script, to_event

_RUN_NS = uuid.UUID("5a1d3c1e-6f0e-4c55-9f0b-6b7e0d2a9e11")  # Headwater's harvest run ids (uuid5 namespace)

# statements that can write lineage start with one of these words (the rest are skipped without parsing)
_WRITERS = {"insert", "create", "merge", "update", "copy", "unload", "replace", "upsert", "select", "with"}
_INTO = re.compile(r"(?is)\binto\b")
_WITH_WRITES = re.compile(r"(?is)\b(insert|update|merge)\b")
_FIRST_WORD = re.compile(r"^\s*(?:(?:--[^\n]*\n|/\*.*?\*/)\s*)*\(?\s*([A-Za-z]+)", re.S)


@dataclass(frozen=True)
class Execution:
    key: str  # identifies this execution in its source (query id, session + line, thread + time...)
    sql: str
    database: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    failed: bool = False
    error: str | None = None  # the server's message for a failed statement
    user: str | None = None
    details: tuple[tuple[str, Any], ...] = ()  # what the source counts (calls, rows, ...), in the run facet
    where: str = ""  # file:line or table, for messages


@dataclass
class Summary:
    read: int = 0  # statement executions read
    with_lineage: int = 0  # executions that produced events
    events: int = 0  # events acknowledged
    known: int = 0  # of those, already stored before
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> executions
    examples: dict[str, str] = field(default_factory=dict)  # reason -> one example (where: text)

    def skip(self, reason: str, example: str = "") -> None:
        self.skipped[reason] += 1
        if example and reason not in self.examples:
            self.examples[reason] = example[:300]

    def lines(self) -> list[str]:
        out = [
            f"{self.read:,} statements read, {self.with_lineage:,} with lineage, {self.events:,} events sent "
            f"({self.known:,} already known), {sum(self.skipped.values()):,} skipped"
        ]
        for reason, n in self.skipped.most_common():
            example = self.examples.get(reason)
            out.append(f"  skipped {n:,}: {reason}" + (f" (e.g. {example})" if example else ""))
        return out


def run_id(namespace: str, source: str, key: str) -> str:
    return str(uuid.uuid5(_RUN_NS, f"{namespace}|{source}|{key}"))


def statement_kind(sql: str) -> str | None:
    """None when the statement may write (worth parsing), else why it cannot."""
    m = _FIRST_WORD.match(sql)
    word = m.group(1).lower() if m else ""
    if word not in _WRITERS:
        return "no lineage: not a writing statement" if word else "empty statement"
    if word == "select" and not _INTO.search(sql):
        return "no lineage: reads only"
    if word == "with" and not (_WITH_WRITES.search(sql) or _INTO.search(sql)):
        return "no lineage: reads only"
    return None


class Harvester:
    """Executions in, events out (in batches) through a :class:`~headwater.client.LineageClient`."""

    def __init__(
        self,
        client: LineageClient,
        *,
        source: str,
        namespace: str,
        dialect: str,
        default_schema: str | None = None,
        providers: Sequence[Callable[..., Any]] = (),
        batch_size: int = 1000,
        progress: Callable[[Summary], None] | None = None,
        progress_every: float = 2.0,
        start_events: bool = True,
    ) -> None:
        self.client = client
        self.source = source
        self.namespace = namespace
        self.dialect = get_dialect(dialect)
        self.default_schema = default_schema
        self.providers = list(providers)
        self.batch_size = batch_size
        self.start_events = start_events  # False: one COMPLETE/FAIL per execution (half the events)
        self.summary = Summary()
        self._extractors: dict[str | None, Extractor] = {}
        self._analysed: dict[tuple[str | None, str], list[StatementLineage] | str] = {}
        self._buffer: list[dict[str, Any]] = []
        self._progress = progress
        self._progress_every = progress_every
        self._last_progress = time.monotonic()

    # --- analysis (once per distinct statement text and database) -----------------------------------------------

    def _extractor(self, database: str | None) -> Extractor:
        ex = self._extractors.get(database)
        if ex is None:
            catalog = Catalog(self.providers, namespace=self.namespace)
            ex = Extractor(
                self.dialect,
                self.namespace,
                default_database=database,
                default_schema=self.default_schema,
                catalog=catalog,
            )
            self._extractors[database] = ex
        return ex

    def analyse(self, sql: str, database: str | None) -> list[StatementLineage] | str:
        """The statement's writing records, or why it has none."""
        norm = " ".join(sql.split())
        cache_key = (database, norm)
        found = self._analysed.get(cache_key)
        if found is not None:
            return found
        result: list[StatementLineage] | str
        reason = statement_kind(sql)
        if reason is not None:
            result = reason
        else:
            ex = self._extractor(database)
            records: list[StatementLineage] = []
            errors: list[str] = []
            for stmt in parse_script(sql, self.dialect.sqlglot):
                for r in ex.run(stmt):
                    if r.error:
                        errors.append(r.error)
                    elif r.writes:
                        records.append(r)
            if records:
                result = records
            elif errors:
                result = f"unreadable: {errors[0].splitlines()[0][:160]}"
            else:
                result = "no lineage: writes no dataset"
        if len(self._analysed) > 50_000:
            self._analysed.clear()
        self._analysed[cache_key] = result
        return result

    # --- events -------------------------------------------------------------------------------------------------

    def events(self, ex: Execution) -> list[JSONObject] | str:
        analysed = self.analyse(ex.sql, ex.database)
        if isinstance(analysed, str):
            return analysed
        out: list[dict[str, Any]] = []
        catalog = self._extractor(ex.database).catalog
        end = ex.end or ex.start or datetime.now(UTC)
        for i, record in enumerate(analysed):
            key = ex.key if len(analysed) == 1 else f"{ex.key}#{i}"
            rid = run_id(self.namespace, self.source, key)
            facet = ol.facet(PRODUCER, "run", source=self.source, execution=key)
            if ex.database:
                facet["database"] = ex.database
            if ex.user:
                facet["user"] = ex.user
            if ex.error:
                facet["error"] = ex.error[:2000]
            if ex.start is not None:
                facet["startTime"] = ol.event_time(ex.start)
            facet.update(dict(ex.details))
            schemas = {name: cols for _ns, name in record.inputs if (cols := catalog.columns(name))}
            common: dict[str, Any] = {
                "dialect": self.dialect.name,
                "job_namespace": self.namespace,
                "run_id": rid,
                "input_schemas": schemas,
                "run_facets": {"headwater_harvest": facet},
                "query": ex.sql if len(analysed) == 1 else None,
            }
            if self.start_events and ex.start is not None and ex.end is not None:
                out.append(to_event(record, event_type="START", event_time=ex.start, **common))
            out.append(to_event(record, event_type="FAIL" if ex.failed else "COMPLETE", event_time=end, **common))
        return out

    def add(self, ex: Execution) -> None:
        self.summary.read += 1
        made = self.events(ex)
        if isinstance(made, str):
            self.summary.skip(
                made, f"{ex.where}: {' '.join(ex.sql.split())[:120]}" if ex.where else " ".join(ex.sql.split())[:120]
            )
        else:
            self.summary.with_lineage += 1
            self._buffer.extend(made)
            if len(self._buffer) >= self.batch_size:
                self.flush()
        self._tick()

    def add_all(self, executions: Iterable[Execution]) -> None:
        for ex in executions:
            self.add(ex)

    def skip(self, reason: str, example: str = "") -> None:
        """An execution read but not harvested (a hidden text, before --since, not finished...)."""
        self.summary.read += 1
        self.summary.skip(reason, example)
        self._tick()

    def flush(self) -> None:
        """Send what is buffered; raises :class:`headwater.client.SendError` when it is refused or undeliverable."""
        if not self._buffer:
            return
        result = self.client.send(self._buffer)
        self.summary.events += result.sent
        self.summary.known += result.duplicates
        self._buffer = []

    def _tick(self) -> None:
        if self._progress is None:
            return
        now = time.monotonic()
        if now - self._last_progress >= self._progress_every:
            self._last_progress = now
            self._progress(self.summary)


def parse_time(value: JSONValue) -> datetime | None:
    """A timestamp from a source (datetime, ISO text, ``2026-11-24 10:00:00.123 UTC``) → aware UTC datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    text = str(value).strip()
    for suffix in (" UTC", " GMT"):
        if text.endswith(suffix):
            text = text[: -len(suffix)] + "Z"
    return times.parse_time(text)  # InvalidTime is a ValueError naming the value
