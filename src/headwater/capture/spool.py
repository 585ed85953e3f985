"""A durable local spool for events the backend did not take (yet).

Layout: one directory (``<data dir>/spool`` by default), holding segment files
``seg-<time_ns>-<pid>-<random>.ndjson`` with one JSON event per line. Rules:

- a process appends only to its own *active* segment, holding an exclusive ``flock`` on it while it
  is open, and ``fsync``s after each append: an event is either fully on disk or was never acknowledged;
- draining (sending spooled events, oldest segment first, oldest line first) happens under the
  directory's ``.drain.lock`` so only one process drains at a time; a segment still locked by a live
  writer is skipped (its owner drains it), a segment whose writer is gone (an earlier run, a crash) is
  drained by whoever comes next — "sent once the backend is back, on the next run too";
- after a partial drain the unsent rest replaces the segment atomically (write, fsync, rename), so a
  crash mid-drain can re-send an event (the Headwater server answers ``duplicate``) but never loses one;
- the spool is bounded (``max_bytes``): beyond it, events are dropped and counted, never blocking.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

log = logging.getLogger(__name__)

SEGMENT_GLOB = "seg-*.ndjson"
REJECTED = "rejected.ndjson"


class Rejected(Exception):
    """The backend refused this event for good (e.g. 400/422: invalid); retrying cannot help."""


class Spool:
    def __init__(self, directory: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.dropped = 0
        self._active: IO[str] | None = None
        self._active_path: Path | None = None
        self._own: set[Path] = set()

    # -- writing -------------------------------------------------------------------------------
    def append(self, lines: list[str]) -> int:
        """Append JSON lines durably; returns how many were written (the rest were dropped: spool full)."""
        if not lines:
            return 0
        self.directory.mkdir(parents=True, exist_ok=True)
        room = self.max_bytes - self.size()
        keep: list[str] = []
        for line in lines:
            cost = len(line.encode("utf-8")) + 1
            if cost > room:
                self.dropped += 1
                continue
            room -= cost
            keep.append(line)
        if not keep:
            return 0
        stream = self._open_active()
        stream.write("".join(line + "\n" for line in keep))
        stream.flush()
        os.fsync(stream.fileno())
        return len(keep)

    def _open_active(self) -> IO[str]:
        if self._active is None:
            name = f"seg-{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.ndjson"
            path = self.directory / name
            stream = open(path, "a", encoding="utf-8")  # noqa: SIM115 - held open while active
            fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._active, self._active_path = stream, path
            self._own.add(path)
            _fsync_dir(self.directory)
        return self._active

    def rotate(self) -> None:
        """Close the active segment (new appends start a new one); releases its lock."""
        if self._active is not None:
            self._active.close()
            self._active = None
            self._active_path = None

    def close(self) -> None:
        self.rotate()

    # -- reading -------------------------------------------------------------------------------
    def segments(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(self.directory.glob(SEGMENT_GLOB))

    def size(self) -> int:
        total = 0
        for path in self.segments():
            try:
                total += path.stat().st_size
            except FileNotFoundError:
                pass
        return total

    def pending(self) -> bool:
        """Are there spooled events this process should send (its own, or orphans of a finished writer)?"""
        return any(path in self._own or _unlocked(path) for path in self.segments())

    def count(self) -> int:
        """Events currently spooled (all segments)."""
        n = 0
        for path in self.segments():
            try:
                with open(path, encoding="utf-8") as f:
                    n += sum(1 for line in f if line.strip())
            except FileNotFoundError:
                pass
        return n

    def drain(self, send: Callable[[dict[str, Any]], None]) -> bool:
        """Send spooled events in order until one fails. True when nothing of ours is left to send."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with _try_lock(self.directory / ".drain.lock", create=True) as locked:
            if not locked:
                return False
            self.rotate()
            for path in self.segments():
                with _try_lock(path) as free:
                    if not free:
                        continue  # a live writer still appends to it
                    if not self._drain_segment(path, send):
                        return False
            return True

    def _drain_segment(self, path: Path, send: Callable[[dict[str, Any]], None]) -> bool:
        try:
            with open(path, encoding="utf-8") as f:
                lines = [line for line in f.read().splitlines() if line.strip()]
        except FileNotFoundError:
            return True
        for i, line in enumerate(lines):
            try:
                event = json.loads(line)
            except ValueError:
                log.warning("headwater: skipping a corrupt line %d in spool segment %s", i + 1, path)
                continue
            try:
                send(event)
            except Rejected as exc:
                self.reject(line, str(exc))
            except Exception:  # noqa: BLE001 - any failure to send: keep the rest of the segment for later
                self._rewrite(path, lines[i:])
                return False
        path.unlink(missing_ok=True)
        self._own.discard(path)
        _fsync_dir(self.directory)
        return True

    def reject(self, line: str, reason: str) -> None:
        """Keep an event the backend refused for good in ``rejected.ndjson`` (for a human to look at), so it
        does not block the events behind it."""
        self.directory.mkdir(parents=True, exist_ok=True)
        record = json.dumps({"reason": reason, "event": json.loads(line)}, sort_keys=True)
        with open(self.directory / REJECTED, "a", encoding="utf-8") as f:
            f.write(record + "\n")
            f.flush()
            os.fsync(f.fileno())

    def _rewrite(self, path: Path, rest: list[str]) -> None:
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in rest))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(self.directory)


def _unlocked(path: Path) -> bool:
    with _try_lock(path) as free:
        return free


@contextmanager
def _try_lock(path: Path, *, create: bool = False) -> Iterator[bool]:
    try:
        fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
    except FileNotFoundError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
