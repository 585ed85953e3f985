"""Headwater's graph in graph databases: export files (:mod:`.formats`) and incremental sync (:mod:`.sync`).

Reads the derived graph through the store's read connection and :mod:`headwater.graph.export`'s elements;
never writes the store. docs/graph-export.md describes the model, the formats and the sync.
"""
