"""The catalog's audit log, read: every change (who, when, what), oldest first, paged by ``seq``.

An admin reads every entry; a catalog user those of the projects they see (in the request's project context,
that one); anyone else none. Entries are written by each change, in its own transaction
(:func:`headwater.catalog.tables.audit`).
"""

from __future__ import annotations

from headwater.catalog import tables
from headwater.catalog.access import Principal
from headwater.catalog.records import AuditPage
from headwater.catalog.room import Room, member_view


class AuditLog(Room):
    def page(self, who: Principal, *, project: str | None = None, after: int = 0, limit: int = 100) -> AuditPage:
        """Entries after ``after`` (a ``seq``), at most ``limit``; of ``project`` when given."""
        among = None if who.admin else [p for p in who.memberships if member_view(who, p)]
        with self._read() as conn:
            found = tables.audit_entries(conn, after=after, project=project, among=among, limit=limit + 1)
        entries = tuple(found[:limit])
        return AuditPage(entries, entries[-1].seq if len(found) > limit else None)
