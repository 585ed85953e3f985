"""Names for JSON whose shape is the sender's: OpenLineage events, their facets, parsed JSON text.

An OpenLineage document is open: every producer may add facets and keys, so what Headwater receives,
keeps and hands back verbatim (an event, a facet, a stored JSON column) has no record type of its
own. These names say so at each signature, in one place, instead of a bare ``Any``: the value is
checked where it is read (``isinstance`` on the part a reader needs), never trusted by its type.
Answers Headwater builds itself are typed records (``headwater.graph.answers`` and the like).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

JSONValue: TypeAlias = Any
"""A value parsed from JSON text: a dict, list, str, int, float, bool or None, not yet looked at."""

JSONObject: TypeAlias = dict[str, Any]
"""A JSON object built or parsed here (an OpenLineage event, a facet): keys are strings, values JSON."""

JSONMapping: TypeAlias = Mapping[str, Any]
"""A JSON object read only (an event as received, a facet as stored)."""

Facets: TypeAlias = dict[str, Any]
"""An OpenLineage facets object as the producer sent it: facet name -> facet (any producer's keys)."""
