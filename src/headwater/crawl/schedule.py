"""``--every``: crawl again on a schedule until interrupted; SIGTERM and Ctrl-C end it cleanly."""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

T = TypeVar("T")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_interval(text: str) -> float:
    """``90s``, ``15m``, ``1h30m``, ``2d`` or plain seconds → seconds (> 0)."""
    value = text.strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        seconds = float(value)
    else:
        parts = re.findall(r"(\d+(?:\.\d+)?)([smhd])", value)
        if not parts or "".join(n + u for n, u in parts) != value:
            raise ValueError(f"not an interval: {text!r} (use e.g. 30s, 15m, 1h, 1h30m)")
        seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise ValueError(f"the interval must be positive: {text!r}")
    return seconds


def crawl_every(
    interval: float, once: Callable[[], T], on_result: Callable[[T], None], stop: threading.Event | None = None
) -> int:
    """Run ``once`` every ``interval`` seconds (measured start to start) until ``stop`` is set or the
    process gets SIGTERM/SIGINT; a signal during a crawl lets that crawl finish. Answers the crawls run."""
    stop = stop or threading.Event()
    previous: dict[int, object] = {}

    def interrupted(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, interrupted)
    count = 0
    try:
        while not stop.is_set():
            began = time.monotonic()
            on_result(once())
            count += 1
            stop.wait(max(0.0, interval - (time.monotonic() - began)))
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
    return count
