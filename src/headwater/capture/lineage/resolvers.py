"""Dataset namespace resolvers (``spark.openlineage.dataset.namespaceResolvers.*``), as the OpenLineage Java
client applies them: the first resolver that changes a namespace wins (``DatasetNamespaceCombinedResolver``).

- ``hostList``: a namespace containing one of ``hosts`` (case-insensitive) has it replaced by the resolver's name
  (``postgres://db-replica-2.internal:5432`` → ``postgres://orders-db:5432``);
- ``pattern``: every match of ``regex`` is replaced by the resolver's name;
- ``patternGroup``: every match of ``regex`` is replaced by its named group ``matchingGroup``;
- ``schema``, when given, limits a resolver to namespaces starting with ``<schema>://``.

Pure; applied to every dataset namespace and symlink namespace of an event (and so to column lineage).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

Resolver = tuple[str, str, tuple[str, ...], "str | None", "str | None", "str | None"]


def _python_regex(java: str) -> str:
    """Java named groups ``(?<name>...)`` → Python's ``(?P<name>...)`` (look-behinds left alone)."""
    return re.sub(r"\(\?<(?![=!])", "(?P<", java)


def _one(resolver: Sequence[Any], namespace: str) -> str:
    name, kind, hosts, regex, group, schema = resolver
    if schema and not namespace.startswith(f"{schema}://"):
        return namespace
    if kind == "hostList":
        low = namespace.lower()
        for host in hosts:
            at = low.find(host.lower()) if host else -1
            if at >= 0:
                return re.sub(re.escape(host), lambda _m: name, namespace, flags=re.IGNORECASE)
        return namespace
    if not regex:
        return namespace
    try:
        pattern = re.compile(_python_regex(regex))
    except re.error:
        return namespace
    if pattern.search(namespace) is None:
        return namespace
    if kind == "pattern":
        return pattern.sub(lambda _m: name, namespace)
    first = pattern.search(namespace)
    try:
        replacement = first.group(group) if first is not None and group else None
    except IndexError:
        replacement = None
    if replacement is None:
        return namespace
    return pattern.sub(lambda _m: replacement, namespace)


def resolve_namespace(resolvers: Sequence[Sequence[Any]], namespace: str) -> str:
    for resolver in resolvers:
        resolved = _one(resolver, namespace)
        if resolved != namespace:
            return resolved
    return namespace
