"""The column-lineage vocabulary: transformation kinds of the columnLineage facet, what each means,
and how they combine along a path (pure). Spark capture and the SQL engine both use it.

Meanings (a dependency of an output column on an input column):

- DIRECT: the output's value is computed from the input's value.
  ``IDENTITY`` — the value as it is (a column passed through, renamed or re-typed losslessly);
  ``TRANSFORMATION`` — a function of it (arithmetic, string functions, CASE/COALESCE branches, casts);
  ``AGGREGATION`` — a function of many rows of it (SUM, COUNT, AVG...).
- INDIRECT: the input decides *which* rows or *how* the output is made, not its value.
  ``JOIN`` (join keys), ``FILTER`` (WHERE/HAVING), ``GROUP_BY``, ``SORT`` (ORDER BY),
  ``WINDOW`` (PARTITION BY/ORDER BY of a window), ``CONDITIONAL`` (a CASE/IF condition).
- ``masking``: the value went through a hash or mask on the way (the output does not reveal it).

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

DIRECT_SUBTYPES = (IDENTITY, TRANSFORMATION, AGGREGATION)
INDIRECT_SUBTYPES = (JOIN, FILTER, GROUP_BY, SORT, WINDOW, CONDITIONAL)

_DIRECT_RANK = {AGGREGATION: 0, TRANSFORMATION: 1, IDENTITY: 2}


@dataclass(frozen=True, order=True)
class TInfo:
    type: str
    subtype: str
    masking: bool = False

    def merge(self, inner: TInfo) -> TInfo:
        """The transformation of ``a ← c`` given ``a ← b`` (self) and ``b ← c`` (inner)."""
        if self.type == INDIRECT:
            res = self
        elif inner.type == INDIRECT or _DIRECT_RANK.get(inner.subtype, 9) < _DIRECT_RANK.get(self.subtype, 9):
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
