"""Write and DDL commands → the lifecycle change they make to their target (pure).

CREATE on table creation (CTAS, CREATE TABLE, saveAsTable of a new table), OVERWRITE on any
overwrite (mode("overwrite"), INSERT OVERWRITE, REPLACE TABLE, OverwriteByExpression), DROP,
TRUNCATE, RENAME (with the previous identifier) and ALTER; plain appends change nothing.

What each command does is its handler's knowledge (:mod:`.handlers`, ``lifecycle`` and ``ddl``);
these functions look the handler up by the command's class name.
"""

from __future__ import annotations

from .handlers import REGISTRY, Registry, by_mode
from .model import CommandInfo


def lifecycle_of(cmd: CommandInfo, registry: Registry = REGISTRY) -> str | None:
    handler = registry.command_for(cmd.name)
    return (handler.lifecycle if handler is not None else by_mode)(cmd)


def is_ddl(cmd: CommandInfo, registry: Registry = REGISTRY) -> bool:
    """Whether the command only changes metadata (no column lineage, no output statistics)."""
    handler = registry.command_for(cmd.name)
    return handler is not None and handler.ddl
