"""Table schemas the engine resolves ``SELECT *``, unqualified columns and ``INSERT`` without a column list with.

A :class:`Catalog` answers the columns of a dataset (by its name in the run's namespace), asking in order:

1. what earlier statements of the same script made (``CREATE TABLE``, ``CREATE TABLE AS``, views, temp tables);
2. the providers it was given: a live database connection when harvesting
   (:mod:`headwater.harvest`), the Headwater server's graph (:func:`headwater.client.dataset_fields`),
   a fixed mapping (tests, ``--schema-from`` a JSON file).

Answers (including "unknown") are cached for the catalog's life: one look-up per table per run. So is sqlglot's
schema object for each mapping of tables to columns a query reads (building it is a good part of a statement's cost;
the mapping is the key, so what a later statement defines is a new key).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Column = tuple[str, str | None]  # name, type (None: unknown)
Provider = Callable[[str, str], Sequence[Column] | None]  # (namespace, dataset name) → columns or None


class Catalog:
    def __init__(
        self,
        providers: Sequence[Provider] = (),
        tables: Mapping[str, Sequence[Column | str]] | None = None,
        namespace: str = "",
    ) -> None:
        self.namespace = namespace
        self._providers = list(providers)
        self._script: dict[str, list[Column]] = {}
        self._cache: dict[str, list[Column] | None] = {}
        self._schemas: dict[tuple[str, str], Any] = {}  # (dialect class, mapping) → sqlglot MappingSchema
        for name, cols in (tables or {}).items():
            self._cache[name] = [(c, None) if isinstance(c, str) else (c[0], c[1]) for c in cols]

    def columns(self, name: str) -> list[Column] | None:
        if name in self._script:
            return self._script[name]
        if name in self._cache:
            return self._cache[name]
        found: list[Column] | None = None
        for provider in self._providers:
            answer = provider(self.namespace, name)
            if answer:
                found = [(c[0], c[1]) for c in answer]
                break
        self._cache[name] = found
        return found

    def define(self, name: str, columns: Sequence[Column]) -> None:
        """A statement of the script created or replaced ``name`` with these columns."""
        self._script[name] = list(columns)

    def drop(self, name: str) -> None:
        self._script.pop(name, None)
        self._cache[name] = None

    def sqlglot_schema(self, mapping: dict[str, Any], dialect: Any) -> Any:
        """sqlglot's schema for ``mapping`` (nested names → columns) in ``dialect``, built once per mapping."""
        from sqlglot.schema import ensure_schema

        key = (type(dialect).__qualname__, json.dumps(mapping, sort_keys=True))
        found = self._schemas.get(key)
        if found is None:
            if len(self._schemas) > 1024:
                self._schemas.clear()
            found = self._schemas[key] = ensure_schema(mapping or None, dialect=dialect)
        return found
