"""Partition directories trimmed from file dataset names, as the OpenLineage Java client does by default
(``DatasetConfig``'s default ``DatasetNameTrimmer`` list: ``DateTrimmer``, ``KeyValueTrimmer``,
``MultiDirDateTrimmer``, ``YearMonthTrimmer``, applied until none applies): ``/data/out/20251030`` →
``/data/out``, ``/data/out/2025/10/30`` → ``/data/out``, ``/data/out/2025-10`` → ``/data/out``,
``/data/out/day=1`` → ``/data/out``. Pure; the Spark integration names every file dataset this way
(``DatasetReducerUtils``), and so does the agent.

``trim_name(name, disabled)`` can leave trimmers out by their Java class name (the integration's
``spark.openlineage.dataset.disabledTrimmers``; not wired to the configuration yet, see docs/capture.md);
``extraTrimmers`` (Java classes) has no Python counterpart.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime

SEP = "/"


def _split(name: str) -> list[str]:
    """Java's ``String.split("/")``: trailing empty strings dropped."""
    parts = name.split(SEP)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _multiple_dirs(name: str) -> bool:
    if SEP not in name:
        return False
    return len(_split(name[1:] if name.startswith(SEP) else name)) > 1


def _last_part(name: str) -> str:
    if SEP not in name:
        return name
    return name[name.rstrip(SEP).rfind(SEP) :].replace(SEP, "")


def _remove_last(name: str) -> str:
    return name[: name.rfind(SEP)]


def _parses(text: str, fmt: str) -> bool:
    try:
        datetime.strptime(text, fmt)
    except ValueError:
        return False
    return True


_DATE_FORMATS = (
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "%Y-%m-%d"),
    (re.compile(r"\d{2}\.\d{2}\.\d{4}"), "%d.%m.%Y"),
    (re.compile(r"\d{8}"), "%Y%m%d"),
)
_LEFTOVER = re.compile(r"[\s:.\-\d]")


def _date(name: str) -> bool:
    """DateTrimmer: the last directory is a date (possibly with a time: ``2025-10-30T12:00Z``)."""
    if not _multiple_dirs(name):
        return False
    last = _last_part(name)
    for pattern, fmt in _DATE_FORMATS:
        for m in pattern.finditer(last):
            if _parses(m.group(), fmt):
                rest = last.replace(m.group(), "", 1).replace("T", "", 1).replace("Z", "", 1)
                return _LEFTOVER.sub("", rest) == ""
    return False


def _key_value(name: str) -> bool:
    """KeyValueTrimmer: the last directory is one ``key=value``."""
    if not _multiple_dirs(name):
        return False
    return _last_part(name).count("=") == 1


def _year_month(name: str) -> bool:
    """YearMonthTrimmer: the last directory is ``yyyyMM`` or ``yyyy-MM``."""
    if not _multiple_dirs(name):
        return False
    last = _last_part(name)
    return (len(last) == 6 and last.isdigit() and _parses(last, "%Y%m")) or (
        re.fullmatch(r"\d{4}-\d{2}", last) is not None and _parses(last, "%Y-%m")
    )


def _multi_dir_levels(name: str) -> int:
    """MultiDirDateTrimmer: ``.../yyyy/MM`` (2 levels) or ``.../yyyy/MM/dd`` (3 levels), else 0."""
    dirs = _split(name[1:] if name.startswith(SEP) else name)
    if len(dirs) >= 3 and re.fullmatch(r"\d{6}", dirs[-2] + dirs[-1]) and _parses(dirs[-2] + dirs[-1], "%Y%m"):
        return 2
    if len(dirs) >= 4 and re.fullmatch(r"\d{8}", "".join(dirs[-3:])) and _parses("".join(dirs[-3:]), "%Y%m%d"):
        return 3
    return 0


def _trim_multi_dir(name: str) -> str:
    levels = _multi_dir_levels(name)
    dirs = name.split(SEP)
    return SEP.join(dirs[: len(dirs) - levels]) if levels else name


Trimmer = tuple[str, Callable[[str], bool], Callable[[str], str]]
TRIMMERS: tuple[Trimmer, ...] = (
    ("io.openlineage.client.dataset.partition.trimmer.DateTrimmer", _date, _remove_last),
    ("io.openlineage.client.dataset.partition.trimmer.KeyValueTrimmer", _key_value, _remove_last),
    (
        "io.openlineage.client.dataset.partition.trimmer.MultiDirDateTrimmer",
        lambda n: _multi_dir_levels(n) > 0,
        _trim_multi_dir,
    ),
    ("io.openlineage.client.dataset.partition.trimmer.YearMonthTrimmer", _year_month, _remove_last),
)


def trim_name(name: str, disabled: Iterable[str] = ()) -> str:
    """``name`` with trailing partition directories removed (every enabled trimmer, until none applies)."""
    off = set(disabled)
    active = [t for t in TRIMMERS if t[0] not in off and t[0].rsplit(".", 1)[-1] not in off]
    trimmed = name
    for _ in range(64):  # each pass removes at least one directory
        changed = False
        for _cls, can_trim, trim in active:
            if trimmed and can_trim(trimmed):
                trimmed = trim(trimmed)
                changed = True
        if not changed:
            break
    return trimmed
