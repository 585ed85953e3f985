"""Graph reads that see every event appended before they began (the read barrier)."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from headwater.graph import GraphReader


class _CaughtUpReader(GraphReader):
    """A :class:`GraphReader` whose every answer first waits for the background projector."""

    def __init__(self, engine: sa.Engine, barrier: Callable[[], object]) -> None:
        super().__init__(engine)
        self._barrier = barrier

    def _connect(self) -> sa.Connection:  # every GraphReader answer opens its connection here
        self._barrier()
        return super()._connect()


def caught_up_reader(engine: sa.Engine, barrier: Callable[[], object]) -> GraphReader:
    return _CaughtUpReader(engine, barrier)
