"""Transformation kinds of the columnLineage facet and how they combine along a path (pure).

The rules are the OpenLineage Spark integration's (``TransformationInfo.merge``), so that where
both produce lineage the dependencies and their types agree:

1. an INDIRECT step stays INDIRECT whatever follows (the outer one wins when both are);
2. otherwise the stronger DIRECT subtype wins: AGGREGATION > TRANSFORMATION > IDENTITY;
3. masking is sticky: once a value went through a hash, every later step is masked.
"""

from __future__ import annotations

from dataclasses import dataclass

DIRECT = "DIRECT"
INDIRECT = "INDIRECT"

IDENTITY = "IDENTITY"
TRANSFORMATION = "TRANSFORMATION"
AGGREGATION = "AGGREGATION"
JOIN = "JOIN"
FILTER = "FILTER"
GROUP_BY = "GROUP_BY"
SORT = "SORT"
WINDOW = "WINDOW"
CONDITIONAL = "CONDITIONAL"

_DIRECT_RANK = {AGGREGATION: 0, TRANSFORMATION: 1, IDENTITY: 2}


@dataclass(frozen=True, order=True)
class TInfo:
    type: str
    subtype: str
    masking: bool = False

    def merge(self, inner: "TInfo") -> "TInfo":
        """The transformation of ``a ← c`` given ``a ← b`` (self) and ``b ← c`` (inner)."""
        if self.type == INDIRECT:
            res = self
        elif inner.type == INDIRECT:
            res = inner
        elif _DIRECT_RANK.get(inner.subtype, 9) < _DIRECT_RANK.get(self.subtype, 9):
            res = inner
        else:
            res = self
        masking = self.masking or inner.masking
        return res if res.masking == masking else TInfo(res.type, res.subtype, masking)


def direct(subtype: str = IDENTITY, masking: bool = False) -> TInfo:
    return TInfo(DIRECT, subtype, masking)


def indirect(subtype: str) -> TInfo:
    return TInfo(INDIRECT, subtype, False)


IDENTITY_T = direct(IDENTITY)
TRANSFORMATION_T = direct(TRANSFORMATION)
AGGREGATION_T = direct(AGGREGATION)
