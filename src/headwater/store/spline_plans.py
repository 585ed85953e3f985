"""Spline execution plans as they were received (migration 0005's ``spline_plans``): the one module that reads
and writes them.

A plan is kept until its execution events arrive (the events name it by id); it is not derived from
the log, so ``headwater db rebuild`` leaves it alone. :meth:`SplinePlans.keep` is durable before it
returns and idempotent: the same plan again changes nothing, another plan under a known id raises
:class:`PlanConflict` (the caller compares the two by their JSON meaning, not their text).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa

from headwater.model.times import now_micros
from headwater.store.schema import spline_plans

if TYPE_CHECKING:
    from headwater.store.store import Store


class PlanConflict(Exception):
    """Another plan was received before under the same id."""

    def __init__(self, plan_id: str) -> None:
        super().__init__(f"execution plan {plan_id} was received before with different content")
        self.plan_id = plan_id


@dataclass(frozen=True)
class StoredPlan:
    plan_id: str
    raw: str  # the plan's JSON text
    api_version: str  # the producer API version it was sent with ("1.1", "1.2")
    received_at: int  # microseconds since the epoch


class SplinePlans:
    """The Spline plans of one store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def keep(self, plan_id: str, raw: str, api_version: str, same: Callable[[str, str], bool]) -> None:
        """Keep the plan (committed before the return). ``same(stored, raw)`` says whether a plan found under the
        id is this one; when it is not, :class:`PlanConflict`."""
        # a write connection: on SQLite its transaction begins IMMEDIATE and queues behind the projector,
        # where a read turning into a write would fail with "database is locked"
        with self._store.write_connection() as conn, conn.begin():
            found = conn.scalar(sa.select(spline_plans.c.raw).where(spline_plans.c.plan_id == plan_id))
            if found is None:
                try:
                    with conn.begin_nested():
                        conn.execute(
                            spline_plans.insert().values(
                                plan_id=plan_id, raw=raw, api_version=api_version, received_at=now_micros()
                            )
                        )
                    return
                except sa.exc.IntegrityError:  # the same plan posted concurrently
                    found = conn.scalar(sa.select(spline_plans.c.raw).where(spline_plans.c.plan_id == plan_id))
        if found is not None and not same(found, raw):
            raise PlanConflict(plan_id)

    def get(self, plan_id: str) -> StoredPlan | None:
        return self.get_many([plan_id]).get(plan_id)

    def get_many(self, plan_ids: Collection[str]) -> dict[str, StoredPlan]:
        """The stored plans among ``plan_ids``, by id."""
        if not plan_ids:
            return {}
        with self._store.engine.connect() as conn:
            rows = conn.execute(sa.select(spline_plans).where(spline_plans.c.plan_id.in_(sorted(plan_ids))))
            return {r.plan_id: StoredPlan(r.plan_id, r.raw, r.api_version, int(r.received_at)) for r in rows}
