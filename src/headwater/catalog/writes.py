"""Owners write their own: which datasets an event sent through an ingest door may describe (docs/catalog.md,
"Who may write a node").

- No event from a door (HTTP, DataZone, Spline) may name a node the catalog draws (namespace
  ``headwater-catalog://``) as its job, an output or a DatasetEvent's dataset, nor carry dataset facets for such
  a node as an input: published assets and subscription targets change only through catalog actions of their
  project. A plain input (what a consumer's job read) is lineage and is accepted.
- An event sent with a catalog user's token may not write (output, DatasetEvent) or describe (an input with
  dataset facets) a dataset another project catalogued, unless the user is an owner or contributor of that
  project in the request's project context. The server's write token (an admin), and anyone on a server without
  write tokens, reports for every project.

A refused event answers 403 with the JSON path of each such dataset; nothing of the request is stored. The
message names only what the sender sent and says that another project holds it — never which project, nor
anything of the dataset.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from headwater.catalog import tables
from headwater.catalog.access import Principal
from headwater.catalog.lineage import SCHEME
from headwater.model.catalog_roles import WRITERS
from headwater.model.nodeid import NodeRef


@dataclass(frozen=True)
class Described:
    """A dataset (or job) an event writes or describes: its JSON path, node id and whether it is written."""

    path: str
    node: str
    written: bool


def described(payload: Mapping[str, Any], where: str = "$") -> Iterator[Described]:
    """The job, the outputs, a DatasetEvent's dataset (written) and the inputs with dataset facets (described)."""
    job = payload.get("job")
    if isinstance(job, Mapping) and isinstance(job.get("namespace"), str) and isinstance(job.get("name"), str):
        yield Described(f"{where}.job", NodeRef("job", job["namespace"], job["name"]).id, True)
    items: list[tuple[str, Any, bool]] = [("dataset", payload.get("dataset"), True)]
    for key, written in (("outputs", True), ("inputs", False)):
        found = payload.get(key)
        if isinstance(found, list):
            items.extend((f"{key}[{i}]", item, written) for i, item in enumerate(found))
    for path, item, written in items:
        if not isinstance(item, Mapping):
            continue
        ns, name = item.get("namespace"), item.get("name")
        if not isinstance(ns, str) or not isinstance(name, str):
            continue
        if written or item.get("facets"):
            yield Described(f"{where}.{path}", NodeRef("dataset", ns, name).id, written)


def might_name_catalog(raw: str) -> bool:
    """A cheap look at an event's text: False when it cannot name a catalog node (no escapes, no scheme)."""
    return "headwater-catalog" in raw or "\\u" in raw


_CATALOG_NAME = SCHEME.partition(":")[0]  # a node id's rest starts with SCHEME only if its namespace starts so


def value_might_name_catalog(payload: Mapping[str, Any]) -> bool:
    """:func:`might_name_catalog` for a parsed event, without reading its text: False when neither its job's nor
    any of its datasets' namespaces starts with the catalog's scheme name (a node id ``<kind>:<namespace>:<name>``
    starts its rest with ``headwater-catalog://`` only then)."""
    items = [payload.get("job"), payload.get("dataset")]
    for key in ("outputs", "inputs"):
        found = payload.get(key)
        if isinstance(found, list):
            items.extend(found)
    for item in items:
        if isinstance(item, Mapping):
            ns = item.get("namespace")
            if isinstance(ns, str) and ns.startswith(_CATALOG_NAME):
                return True
    return False


def refused_writes(
    conn: sa.Connection | None,
    who: Principal,
    payloads: Sequence[Mapping[str, Any]],
    roots: Sequence[str] | None = None,
) -> list[tuple[str, str]]:
    """``(path, why)`` of each dataset or job ``who`` may not send in ``payloads`` (see the module docstring);
    empty: all may be sent. ``roots``: each payload's JSON path in the request (default ``$`` for one payload,
    ``$[i]`` for several). ``conn`` reads which project catalogued each dataset (asked only for a catalog
    user)."""
    refused: list[tuple[str, str]] = []
    others: dict[str, list[str]] = {}
    for i, payload in enumerate(payloads):
        where = roots[i] if roots is not None else ("$" if len(payloads) == 1 else f"$[{i}]")
        for item in described(payload, where):
            kind, _, rest = item.node.partition(":")
            if rest.startswith(SCHEME):
                refused.append(
                    (
                        item.path,
                        f"{kind} {item.node!r} is drawn by the catalog; it changes only through catalog actions of "
                        "its project",
                    )
                )
            elif kind == "dataset" and not who.admin and who.memberships:
                others.setdefault(item.node, []).append(item.path)
    if others and conn is not None:
        owners = {n.node: n.project for n in tables.nodes(conn, sorted(others))}
        for node, paths in others.items():
            project = owners.get(node)
            if project is not None and who.role(project) not in WRITERS:
                refused.extend(
                    (
                        path,
                        f"dataset {node!r} is cataloged by another project; only its owners and contributors send "
                        "events that write or describe it",
                    )
                    for path in paths
                )
    return refused
