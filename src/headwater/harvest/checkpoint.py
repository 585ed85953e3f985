"""How far a harvester got: a small JSON state file, and positions in files that survive rotation and truncation.

A :class:`Checkpoint` is a JSON document written atomically (temporary file, fsync, rename) only after the events
of what it covers were acknowledged: a crash between the two re-reads a little (the events are deterministic, the
log stores them once) and never skips anything.

:class:`FileReader` reads a growing file line by line from a remembered position. A position is kept per file
identity (device + inode) with the path, the offset, the line number, the size seen and a fingerprint (SHA-256 of
the first bytes and of those just before the position): a file renamed by log rotation keeps its position under its new name, a new file at the old path
starts at 0, a truncated file (size below the offset, ``copytruncate``) or a reused inode (fingerprint differs)
starts again at 0.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from headwater.model.files import write_atomic
from headwater.model.jsontypes import JSONObject

_HEAD = 256  # bytes fingerprinted at the start of a file


class Checkpoint:
    """A JSON state document at ``path`` (None: kept in memory only)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.data: dict[str, Any] = {}
        if path is not None and path.exists():
            try:
                self.data = json.loads(path.read_text(encoding="utf-8")) or {}
            except (OSError, ValueError) as exc:
                raise ValueError(f"cannot read the state file {path}: {exc} (remove it to start over)") from None

    def section(self, name: str) -> JSONObject:
        value = self.data.setdefault(name, {})
        assert isinstance(value, dict)
        return value

    def save(self) -> None:
        if self.path is None:
            return
        write_atomic(self.path, json.dumps(self.data, sort_keys=True))


def _head(fd: int, upto: int) -> str:
    """Fingerprint of what was read: the first bytes and the bytes just before the position (a file truncated
    and written again past the old position differs in one of them)."""
    first = os.pread(fd, min(upto, _HEAD), 0)
    last = os.pread(fd, min(upto, _HEAD), max(0, upto - _HEAD))
    return hashlib.sha256(first + b"\0" + last).hexdigest()


@dataclass
class Line:
    number: int  # 1-based line number in the file
    text: str
    end: int  # byte offset just after the line


class FileReader:
    """One file read from its remembered position; :meth:`lines` yields complete lines, :meth:`commit` remembers."""

    def __init__(self, path: str, files: JSONObject) -> None:
        self.path = path
        self._files = files  # the checkpoint's "files" section: identity -> position
        self._fh: Any = None
        self._ident = ""
        self.offset = 0
        self.line = 0

    def _open(self) -> bool:
        try:
            fh = open(self.path, "rb")  # noqa: SIM115 - kept open while following
        except FileNotFoundError:
            return False
        st = os.fstat(fh.fileno())
        self._fh, self._ident = fh, f"{st.st_dev}:{st.st_ino}"
        known = self._files.get(self._ident)
        self.offset, self.line = 0, 0
        if (
            known
            and st.st_size >= known.get("offset", 0)
            and _head(fh.fileno(), known.get("offset", 0)) == known.get("head")
        ):
            self.offset, self.line = int(known["offset"]), int(known.get("line", 0))
        return True

    def switch_if_replaced(self) -> bool:
        """After the old file was read to its end and committed: a new file at the path (rotation) is opened,
        from its remembered position or 0. True when it switched."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return False
        if self._fh is None or f"{st.st_dev}:{st.st_ino}" == self._ident:
            return False
        self._fh.close()
        self._fh = None
        return self._open()

    def lines(self, *, final: bool) -> Iterator[Line]:
        """The complete lines from the position on; with ``final``, a last line without a newline too."""
        if self._fh is None and not self._open():
            return
        st = os.fstat(self._fh.fileno())
        if st.st_size < self.offset:  # truncated in place (copytruncate)
            self.offset, self.line = 0, 0
        self._fh.seek(self.offset)
        pos, number = self.offset, self.line
        rest = b""
        while True:
            chunk = self._fh.read(4 << 20)
            if not chunk:
                break
            data = rest + chunk
            start = 0
            while True:
                nl = data.find(b"\n", start)
                if nl < 0:
                    break
                number += 1
                pos += nl + 1 - start
                yield Line(number, data[start:nl].decode("utf-8", "replace").rstrip("\r"), pos)
                start = nl + 1
            rest = data[start:]
        if final and rest.strip():
            yield Line(number + 1, rest.decode("utf-8", "replace").rstrip("\r"), pos + len(rest))

    def commit(self, line: Line | None = None, *, offset: int | None = None, number: int | None = None) -> None:
        """Remember the position after ``line`` (or an explicit offset/line number)."""
        if line is not None:
            offset, number = line.end, line.number
        if offset is None or self._fh is None:
            return
        self.offset, self.line = offset, number or 0
        size = os.fstat(self._fh.fileno()).st_size
        self._files[self._ident] = {
            "path": self.path,
            "offset": offset,
            "line": self.line,
            "size": size,
            "head": _head(self._fh.fileno(), offset),
        }

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def prune_files(files: JSONObject) -> None:
    """Forget positions of files that no longer exist (by identity)."""
    for ident, known in list(files.items()):
        try:
            st = os.stat(known.get("path", ""))
        except OSError:
            del files[ident]
            continue
        if f"{st.st_dev}:{st.st_ino}" != ident:
            del files[ident]


def rotated_away(path: str, files: JSONObject) -> list[str]:
    """Files that were at ``path`` when last read, since renamed in the same folder (log rotation) and not read to
    their end: their remainder is read before the new file at ``path``."""
    try:
        current = os.stat(path)
        now = f"{current.st_dev}:{current.st_ino}"
    except FileNotFoundError:
        now = ""
    wanted = {ident: known for ident, known in files.items() if known.get("path") == path and ident != now}
    found: list[str] = []
    if not wanted:
        return found
    folder = os.path.dirname(os.path.abspath(path))
    for entry in os.scandir(folder):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        known = wanted.get(f"{st.st_dev}:{st.st_ino}")
        if known is not None and st.st_size > int(known.get("offset", 0)):
            found.append(entry.path)
    return sorted(found)
