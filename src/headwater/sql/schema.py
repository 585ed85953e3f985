"""Table schemas the engine resolves ``SELECT *``, unqualified columns and ``INSERT`` without a column list with.

A :class:`Catalog` answers the columns of a dataset (by its name in the run's namespace), asking in order:

1. what earlier statements of the same script made (``CREATE TABLE``, ``CREATE TABLE AS``, views, temp tables);
2. the providers it was given: a live database connection when harvesting
   (:mod:`headwater.harvest`), the Headwater server's graph (:func:`headwater.client.dataset_fields`),
   a fixed mapping (tests, ``--schema-from`` a JSON file).

Answers (including "unknown") are cached for the catalog's life: one look-up per table per run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

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
