"""OpenLineage events found in log files → Headwater, each sent once.

:func:`find_events` finds the events of one log line: the whole line (the file transport's JSON lines), the JSON
after a logger's prefix (an Airflow task log written through the console transport: ``[2026-11-24, 10:00:00 UTC]
{console.py:29} INFO - {"eventTime": ...}``), or an event inside a JSON envelope (a JSON logger's ``{"message":
"...", ...}`` with the event as text or as an object under any key). A JSON object is an event when it has
``eventTime``, ``producer`` and a ``run`` + ``job`` (RunEvent), a ``job`` (JobEvent) or a ``dataset`` (DatasetEvent).

:class:`LogHarvester` reads files from the positions of a state file (:class:`~.checkpoint.FileReader`: rotation and
truncation safe), posts the events in batches through :mod:`headwater.client`, and moves a file's position only past
lines whose events were acknowledged or refused: nothing is sent twice (and a resend would be stored once: an event's
id is its content), nothing is skipped. A refused batch is sent again one event at a time to find the refused events,
reported with the server's reason and their ``file:line``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from headwater.client import LineageClient, SendError
from headwater.model.jsontypes import JSONObject, JSONValue

from .checkpoint import Checkpoint, FileReader, Line, prune_files, rotated_away

_DECODER = json.JSONDecoder()
_HINTS = ('"eventTime"', '\\"eventTime\\"')


def is_event(obj: JSONValue) -> bool:
    if not isinstance(obj, dict) or "eventTime" not in obj or "producer" not in obj:
        return False
    return ("run" in obj and "job" in obj) or "job" in obj or "dataset" in obj


def _from_object(obj: JSONValue, depth: int) -> list[JSONObject]:
    if is_event(obj):
        return [obj]
    if depth > 3:
        return []
    found: list[dict[str, Any]] = []
    if isinstance(obj, dict):
        values: Iterable[Any] = obj.values()
    elif isinstance(obj, list):
        values = obj
    else:
        return []
    for value in values:
        if isinstance(value, (dict, list)):
            found.extend(_from_object(value, depth + 1))
        elif isinstance(value, str) and "eventTime" in value:
            found.extend(_from_text(value, depth + 1)[0])
    return found


def _from_text(text: str, depth: int = 0) -> tuple[list[JSONObject], str | None]:
    """(events, why a line that looks like it holds one could not be read)."""
    problem = None
    start = text.find("{")
    tries = 0
    while start >= 0 and tries < 8:
        tries += 1
        try:
            obj, _end = _DECODER.raw_decode(text, start)
        except ValueError as exc:
            problem = problem or f"not valid JSON: {exc}"
            start = text.find("{", start + 1)
            continue
        found = _from_object(obj, depth)
        if found:
            return found, None
        start = text.find("{", _end)
    return [], problem


def find_events(line: str) -> tuple[list[JSONObject], str | None]:
    """The OpenLineage events held by one log line, and a problem when it looks like one but cannot be read."""
    if "eventTime" not in line:
        return [], None
    events, problem = _from_text(line)
    if events:
        return events, None
    return [], problem or "no complete OpenLineage event"


@dataclass
class LogSummary:
    lines: int = 0
    found: int = 0
    sent: int = 0
    known: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (file:line, reason)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # lines that looked like events

    def text(self) -> list[str]:
        out = [
            f"{self.lines:,} lines read, {self.found:,} events found, {self.sent - self.known:,} sent, "
            f"{self.known:,} already known, {len(self.rejected):,} rejected, {len(self.unreadable):,} unreadable"
        ]
        out += [f"  rejected {where}: {reason}" for where, reason in self.rejected[:50]]
        out += [f"  unreadable {where}: {reason}" for where, reason in self.unreadable[:50]]
        return out


@dataclass
class _Found:
    event: dict[str, Any]
    where: str


def log_files(paths: list[str], also: Iterable[str] = ()) -> list[str]:
    """The files to read: each path that is a file, and every file below each path that is a folder (Airflow's
    ``dag_id=…/run_id=…/task_id=…/attempt=N.log`` tree), sorted, hidden ones (``.name``) left out; plus ``also``
    (files already being read, which a rotation may have moved out of sight)."""
    found: dict[str, None] = {}
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    full = os.path.join(folder, name)
                    if not name.startswith(".") and os.path.isfile(full):
                        found[full] = None
        else:
            found[path] = None
    for path in also:
        found.setdefault(path, None)
    return list(found)


class LogHarvester:
    def __init__(
        self,
        client: LineageClient,
        checkpoint: Checkpoint,
        *,
        batch_size: int = 500,
        progress: Callable[[LogSummary], None] | None = None,
    ) -> None:
        self.client = client
        self.checkpoint = checkpoint
        self.files = checkpoint.section("files")
        self.batch_size = batch_size
        self.summary = LogSummary()
        self.readers: dict[str, FileReader] = {}
        self._progress = progress
        self._last = time.monotonic()

    def read_file(self, path: str, *, final: bool, rotate: bool = False) -> None:
        """Send the events of the lines of ``path`` not read yet (first what a rotation moved away)."""
        reader = self.readers.get(path)
        if reader is None:  # first read: what was rotated away since the last run first
            for moved in rotated_away(path, self.files):
                if moved not in self.readers:
                    self.readers[moved] = FileReader(moved, self.files)
                    self._drain(self.readers[moved], moved, final=True)
            reader = self.readers[path] = FileReader(path, self.files)
        self._drain(reader, path, final=final, rotate=rotate)

    def _drain(self, reader: FileReader, path: str, *, final: bool, rotate: bool = False) -> None:
        batch: list[_Found] = []
        last: Line | None = None
        for line in reader.lines(final=final):
            self.summary.lines += 1
            events, problem = find_events(line.text)
            where = f"{path}:{line.number}"
            if problem:
                self.summary.unreadable.append((where, problem))
            for event in events:
                batch.append(_Found(event, where))
            last = line
            if len(batch) >= self.batch_size:
                self._send(batch)
                reader.commit(line)
                self.checkpoint.save()
                batch = []
            self._tick()
        if batch:
            self._send(batch)
        if last is not None:
            reader.commit(last)
            self.checkpoint.save()
        if rotate and reader.switch_if_replaced():  # rotated while followed: the old file was read to its end
            self._drain(reader, path, final=final)

    def read_stream(self, stream: TextIO, name: str = "-") -> None:
        """Standard input: no positions are kept."""
        batch: list[_Found] = []
        for number, text in enumerate(stream, start=1):
            self.summary.lines += 1
            events, problem = find_events(text.rstrip("\n"))
            if problem:
                self.summary.unreadable.append((f"{name}:{number}", problem))
            batch.extend(_Found(e, f"{name}:{number}") for e in events)
            if len(batch) >= self.batch_size:
                self._send(batch)
                batch = []
        if batch:
            self._send(batch)

    def _send(self, batch: list[_Found]) -> None:
        self.summary.found += len(batch)
        try:
            result = self.client.send([f.event for f in batch])
        except SendError as exc:
            if "refused" not in str(exc):
                raise
        else:
            self.summary.sent += result.sent
            self.summary.known += result.duplicates
            return
        for f in batch:  # find the refused ones
            try:
                result = self.client.send([f.event])
            except SendError as exc:
                if "refused" not in str(exc):
                    raise
                self.summary.rejected.append((f.where, str(exc).split("refused the events: ", 1)[-1]))
            else:
                self.summary.sent += result.sent
                self.summary.known += result.duplicates

    def _tick(self) -> None:
        if self._progress is not None and time.monotonic() - self._last >= 2.0:
            self._last = time.monotonic()
            self._progress(self.summary)


class LogFiles:
    """Log files (``-``: standard input, read in the first pass) as a harvest source
    (:class:`headwater.harvest.loop.Source`): a folder means every file below it, new files included as they
    appear; each pass sends what was appended (a rotated file is read to its end first), the last look of a
    followed harvest also takes a last line written without its newline."""

    name = "logs"
    errors: tuple[type[Exception], ...] = ()

    def __init__(
        self,
        paths: list[str],
        client: LineageClient,
        checkpoint: Checkpoint,
        *,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.harvester = LogHarvester(
            client, checkpoint, progress=None if progress is None else (lambda s: progress(s.text()[0]))
        )
        self._given = [p for p in paths if p != "-"]
        self._stdin = "-" in paths
        self._files: list[str] = []
        self._passes = 0

    def read(self, *, final: bool) -> None:
        first = self._passes == 0
        self._passes += 1
        if first and self._stdin:
            self.harvester.read_stream(sys.stdin)
        self._files = log_files(self._given, also=self._files)  # a folder's new files (a new task attempt's log)
        for path in self._files:
            self.harvester.read_file(path, final=final, rotate=not first)

    def finish(self, *, followed: bool) -> None:
        if followed:  # a last line written without its newline
            for path in self._files:
                self.harvester.read_file(path, final=True, rotate=True)
        prune_files(self.harvester.files)
        self.harvester.checkpoint.save()

    def close(self) -> None:
        for reader in self.harvester.readers.values():
            reader.close()

    def summary(self) -> list[str]:
        return self.harvester.summary.text()

    def refused(self) -> int:
        return len(self.harvester.summary.rejected)
