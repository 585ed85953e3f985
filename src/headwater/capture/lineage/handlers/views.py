"""Views. A view is not a dataset: lineage passes through it to its sources when a query reads it, and
defining one (``CREATE [TEMP] VIEW``, ``createOrReplaceTempView``, ``ALTER VIEW ... AS``) reads and writes
nothing."""

from __future__ import annotations

from .registry import REGISTRY

REGISTRY.commands("CreateViewCommand", "AlterViewAsCommand", family="views")
