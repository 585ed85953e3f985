"""Column types: Arrow types in Hive/Glue notation, and merging the schemas of several files (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from headwater.crawl.model import Column

if TYPE_CHECKING:
    import pyarrow as pa

_NUMERIC_ORDER = ["tinyint", "smallint", "int", "bigint", "float", "double"]


def arrow_type(t: pa.DataType) -> str:
    """A ``pyarrow.DataType`` → ``bigint``, ``decimal(10,2)``, ``array<string>``, ``struct<a:int,b:string>``."""
    import pyarrow as pa
    import pyarrow.types as pt

    if pt.is_boolean(t):
        return "boolean"
    for check, name in (
        (pt.is_int8, "tinyint"),
        (pt.is_int16, "smallint"),
        (pt.is_int32, "int"),
        (pt.is_int64, "bigint"),
        (pt.is_uint8, "smallint"),
        (pt.is_uint16, "int"),
        (pt.is_uint32, "bigint"),
        (pt.is_uint64, "bigint"),
        (pt.is_float16, "float"),
        (pt.is_float32, "float"),
        (pt.is_float64, "double"),
    ):
        if check(t):
            return name
    if pt.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pt.is_string(t) or pt.is_large_string(t) or (hasattr(pt, "is_string_view") and pt.is_string_view(t)):
        return "string"
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_fixed_size_binary(t):
        return "binary"
    if pt.is_date(t):
        return "date"
    if pt.is_timestamp(t):
        return "timestamp"
    if pt.is_time(t):
        return "string"
    if pt.is_dictionary(t):
        return arrow_type(t.value_type)
    if pt.is_list(t) or pt.is_large_list(t) or pt.is_fixed_size_list(t):
        return f"array<{arrow_type(t.value_type)}>"
    if pt.is_map(t):
        return f"map<{arrow_type(t.key_type)},{arrow_type(t.item_type)}>"
    if pt.is_struct(t):
        return (
            "struct<" + ",".join(f"{t.field(i).name}:{arrow_type(t.field(i).type)}" for i in range(t.num_fields)) + ">"
        )
    if t == pa.null():
        return "string"
    return str(t)


def arrow_column(f: pa.Field) -> Column:
    """A ``pyarrow.Field`` → :class:`Column` (struct fields, and an array's struct elements, nested)."""
    import pyarrow.types as pt

    t = f.type
    inner = t.value_type if (pt.is_list(t) or pt.is_large_list(t)) else t
    nested = tuple(arrow_column(inner.field(i)) for i in range(inner.num_fields)) if pt.is_struct(inner) else ()
    return Column(f.name, arrow_type(t), bool(f.nullable), None, nested)


def arrow_columns(schema: pa.Schema) -> tuple[Column, ...]:
    return tuple(arrow_column(schema.field(i)) for i in range(len(schema.names)))


def widen(a: str, b: str) -> str | None:
    """The type both values fit in, or None when they do not share one (then the table takes ``string``)."""
    if a == b or b == "null":
        return a
    if a == "null":
        return b
    if a in _NUMERIC_ORDER and b in _NUMERIC_ORDER:
        return max(a, b, key=_NUMERIC_ORDER.index)
    if {a, b} == {"date", "timestamp"}:
        return "timestamp"
    if a.startswith("decimal") and b in _NUMERIC_ORDER or b.startswith("decimal") and a in _NUMERIC_ORDER:
        return "double"
    return None


def merge_column(a: Column, b: Column) -> Column:
    if b.type == "null" or a.type == "null":  # JSON null: the other side's type, made nullable
        kept = a if b.type == "null" else b
        return Column(kept.name, kept.type, True, kept.description, kept.fields, False)
    if "array<null>" in (a.type, b.type) and a.type.startswith("array<") and b.type.startswith("array<"):
        kept = a if b.type == "array<null>" else b  # an empty JSON array says nothing of its elements
        return Column(kept.name, kept.type, a.nullable or b.nullable, kept.description, kept.fields, False)
    type_ = widen(a.type, b.type)
    if type_ is None:
        type_ = "string"
        fields: tuple[Column, ...] = ()
    else:
        fields = merge_columns([a.fields, b.fields]) if (a.fields or b.fields) else ()
        if fields and type_.startswith("struct<"):
            type_ = struct_type(fields)
        elif fields and type_.startswith("array<struct<"):
            type_ = f"array<{struct_type(fields)}>"
    return Column(
        a.name, type_, a.nullable or b.nullable, a.description or b.description, fields, a.primary_key and b.primary_key
    )


def struct_type(fields: Sequence[Column]) -> str:
    return "struct<" + ",".join(f"{f.name}:{f.type}" for f in fields) + ">"


def merge_columns(schemas: Iterable[Sequence[Column]]) -> tuple[Column, ...]:
    """Union of columns in first-seen order; a column missing from some schema becomes nullable."""
    merged: dict[str, Column] = {}
    seen_in: dict[str, int] = {}
    count = 0
    for schema in schemas:
        count += 1
        for col in schema:
            seen_in[col.name] = seen_in.get(col.name, 0) + 1
            merged[col.name] = merge_column(merged[col.name], col) if col.name in merged else col
    return tuple(
        c if seen_in[c.name] == count else Column(c.name, c.type, True, c.description, c.fields)
        for c in merged.values()
    )


def compatible(a: Sequence[Column], b: Sequence[Column], threshold: float = 0.5) -> bool:
    """Two files belong to one table when their column names overlap enough (Jaccard ≥ ``threshold``)."""
    names_a, names_b = {c.name for c in a}, {c.name for c in b}
    if not names_a or not names_b:
        return names_a == names_b
    return len(names_a & names_b) / len(names_a | names_b) >= threshold
