"""The registry of plan-node handlers: for each Spark logical-plan class (by short name), everything
Headwater knows about it, in one place.

Two kinds of handlers, as in the OpenLineage Spark integration's ``QueryPlanVisitor`` s (a partial function
per node class, assembled into lists by a factory), but keyed by the node's class short name:

- a :class:`CommandHandler` for the *root* of an executed plan — a write, DDL or other command: which plan
  it runs (:class:`Query`), how to read its target, mode, output columns and schema over py4j
  (``describe``), and, for the pure analysis, the lifecycle change it makes and whether it only changes
  metadata (``ddl``);
- a :class:`LeafHandler` for a *leaf relation* — a read: how to read what it names over py4j
  (``describe``, or none when it names no dataset), and whether the optimized plan hides lineage the
  analyzed plan still shows (``analyzed_instead``).

A family module registers its handlers with the decorators of :data:`REGISTRY`::

    @REGISTRY.command("InsertIntoHadoopFsRelationCommand", query=Query.FIELD)
    def _insert_files(jvm: Jvm, root: Any, name: str) -> CommandInfo | None: ...

Supporting a new Spark command is one such function in the module of its family (or a new module listed
in ``handlers/__init__.py``). A root that is a command no handler knows is *unhandled*: the analysis logs
it once per class and the runtime puts a ``headwater_debug`` run facet on its events.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from headwater.capture.jvmtypes import JavaObject

from ..model import CommandInfo, RelationInfo
from .jvm import Jvm

log = logging.getLogger("headwater.capture.lineage")


class Query(Enum):
    """Which plan a root stands for, for the inputs and the column lineage."""

    ROOT = "root"  # the root itself: a plain query (or a command whose whole plan is read as it is)
    FIELD = "field"  # the command's ``query`` child (``root.query()``): what it writes
    NONE = "none"  # nothing is read: DDL, view definitions, commands that touch no data


CommandDescriber = Callable[[Jvm, Any, str], "CommandInfo | None"]
LeafDescriber = Callable[[Jvm, Any, str], RelationInfo]
Lifecycle = Callable[[CommandInfo], "str | None"]


def by_mode(cmd: CommandInfo) -> str | None:
    """OVERWRITE when the command's save mode is Overwrite, else no lifecycle change (appends)."""
    return "OVERWRITE" if (cmd.mode or "") == "Overwrite" else None


def always(change: str) -> Lifecycle:
    """A lifecycle that does not depend on the mode: ``always("DROP")``."""

    def lifecycle(cmd: CommandInfo) -> str | None:
        return change

    lifecycle.__qualname__ = f"always({change!r})"
    return lifecycle


def no_command(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """``describe`` of a command that writes no dataset Headwater names."""
    return None


@dataclass(frozen=True)
class CommandHandler:
    names: tuple[str, ...]
    describe: CommandDescriber = no_command  # py4j side: target, mode, output columns, schema (may raise)
    query: Query = Query.NONE
    lifecycle: Lifecycle = by_mode  # pure side: the lifecycleStateChange of the target
    ddl: bool = False  # metadata only: no column lineage, no output statistics
    pattern: Callable[[str], bool] | None = None  # for a family named by a pattern (AlterTable*Command)
    family: str = ""  # the module that registered it
    catalog: bool = False  # its target gets the Hive ``catalog`` dataset facet in a Hive session


@dataclass(frozen=True)
class LeafHandler:
    names: tuple[str, ...]
    describe: LeafDescriber | None = None  # None: names no dataset (described without a py4j call)
    analyzed_instead: bool = False  # in the optimized plan, it hides lineage the analyzed plan shows
    family: str = ""
    catalog: bool = False  # the dataset it reads gets the Hive ``catalog`` dataset facet


F = TypeVar("F", bound=Callable[..., Any])


def _family(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__module__", "")).rsplit(".", 1)[-1]


class Registry:
    """Handlers by Spark class short name. :data:`REGISTRY` is the one capture uses; tests may build their own."""

    def __init__(self) -> None:
        self._commands: dict[str, CommandHandler] = {}
        self._patterns: list[CommandHandler] = []
        self._leaves: dict[str, LeafHandler] = {}

    # -- registration --------------------------------------------------------------------------------
    def add(self, handler: CommandHandler | LeafHandler) -> None:
        """Register ``handler`` for its names; a name registered twice is an error (one home per node)."""
        table: dict[str, Any] = self._commands if isinstance(handler, CommandHandler) else self._leaves
        taken = [n for n in handler.names if n in table]
        if taken:
            raise ValueError(f"plan-node handler already registered for {taken}")
        for name in handler.names:
            table[name] = handler
        if isinstance(handler, CommandHandler) and handler.pattern is not None:
            self._patterns.append(handler)

    def command(
        self,
        *names: str,
        query: Query = Query.NONE,
        lifecycle: Lifecycle = by_mode,
        ddl: bool = False,
        pattern: Callable[[str], bool] | None = None,
        catalog: bool = False,
    ) -> Callable[[F], F]:
        """Decorator: register the decorated ``describe(jvm, root, name)`` for the commands ``names``.
        Stackable, to give commands read the same way their own lifecycle. ``catalog``: the target gets the
        Hive ``catalog`` dataset facet in a Hive session (the integration's visitors that call
        ``SparkDatasetBuilder.catalog()`` or ``dataset(CatalogTable)``)."""

        def register(describe: F) -> F:
            self.add(CommandHandler(tuple(names), describe, query, lifecycle, ddl, pattern, _family(describe), catalog))
            return describe

        return register

    def commands(
        self,
        *names: str,
        query: Query = Query.NONE,
        lifecycle: Lifecycle = by_mode,
        ddl: bool = False,
        family: str = "",
    ) -> None:
        """Register commands that write no dataset Headwater names (``describe`` is :func:`no_command`)."""
        self.add(CommandHandler(tuple(names), no_command, query, lifecycle, ddl, None, family))

    def leaf(self, *names: str, analyzed_instead: bool = False, catalog: bool = False) -> Callable[[F], F]:
        """Decorator: register the decorated ``describe(jvm, leaf, name) -> RelationInfo`` for the leaves ``names``
        (``catalog``: what it reads gets the Hive ``catalog`` dataset facet)."""

        def register(describe: F) -> F:
            self.add(LeafHandler(tuple(names), describe, analyzed_instead, _family(describe), catalog))
            return describe

        return register

    def leaves_without_dataset(self, *names: str, family: str = "") -> None:
        """Register leaves that name no dataset (local data, RDDs, ranges): the lineage simply starts there."""
        self.add(LeafHandler(tuple(names), None, False, family))

    def copy(self) -> Registry:
        """A new registry with the same handlers (to extend without touching this one)."""
        other = Registry()
        other._commands, other._patterns, other._leaves = dict(self._commands), list(self._patterns), dict(self._leaves)
        return other

    # -- lookup --------------------------------------------------------------------------------------
    def command_for(self, name: str) -> CommandHandler | None:
        found = self._commands.get(name)
        if found is None:
            found = next((h for h in self._patterns if h.pattern is not None and h.pattern(name)), None)
        return found

    def leaf_for(self, name: str) -> LeafHandler | None:
        return self._leaves.get(name)

    def query_of(self, name: str) -> Query:
        """The plan the root ``name`` stands for. Unhandled: none for a ``...Command`` (a command reads nothing
        Headwater would understand), else the root itself (a plain query)."""
        handler = self.command_for(name)
        if handler is not None:
            return handler.query
        return Query.NONE if name.endswith("Command") else Query.ROOT

    def is_unhandled_command(self, name: str, is_command: bool = False) -> bool:
        """Whether the root ``name`` is a command (``is_command``: Spark said so; or its name ends with
        ``Command``) that no handler knows."""
        return bool(name) and (is_command or name.endswith("Command")) and self.command_for(name) is None

    def catalog_command(self, name: str) -> bool:
        """Whether the target of the command ``name`` gets the Hive ``catalog`` dataset facet."""
        handler = self.command_for(name)
        return handler is not None and handler.catalog

    def catalog_leaf(self, name: str) -> bool:
        """Whether the dataset the leaf ``name`` reads gets the Hive ``catalog`` dataset facet."""
        handler = self._leaves.get(name)
        return handler is not None and handler.catalog

    def analyzed_instead(self) -> frozenset[str]:
        return frozenset(n for n, h in self._leaves.items() if h.analyzed_instead)

    def command_names(self) -> frozenset[str]:
        return frozenset(self._commands)

    def leaf_names(self) -> frozenset[str]:
        return frozenset(self._leaves)

    def describe_leaf(self, jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
        """What the leaf ``name`` (py4j object ``leaf``) names; unguarded (the caller guards the whole read)."""
        handler = self._leaves.get(name)
        if handler is None:
            return RelationInfo(kind="unknown", cls=name)
        if handler.describe is None:
            return RelationInfo(kind="none", cls=name)
        return handler.describe(jvm, leaf, name)


REGISTRY = Registry()

_reported: set[str] = set()
_reported_lock = threading.Lock()


def report_unhandled(name: str) -> None:
    """Log, once per class per process, that the root command ``name`` has no handler."""
    with _reported_lock:
        if name in _reported:
            return
        _reported.add(name)
    log.info(
        "headwater lineage: no handler for the Spark command %s; its lineage is not captured "
        "(the events of its executions carry a headwater_debug run facet naming it)",
        name,
    )


def iter_handlers(registry: Registry) -> Iterable[CommandHandler | LeafHandler]:
    """Every handler of ``registry`` once (for documentation and tests)."""
    seen: dict[int, CommandHandler | LeafHandler] = {}
    everything: list[CommandHandler | LeafHandler] = [
        *registry._commands.values(),
        *registry._patterns,
        *registry._leaves.values(),
    ]
    for handler in everything:
        seen.setdefault(id(handler), handler)
    return list(seen.values())
