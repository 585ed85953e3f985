"""Deterministic TPC-H-like tables (region, nation, supplier, customer, part, orders, lineitem) as Parquet.

Not the official dbgen: the same tables, keys and column kinds at ``scale`` (1.0 ≈ 6M lineitem rows),
with values derived from ``xxhash64(key, salt)`` so every run produces the same data without a random
generator. Sizes per scale factor: customer 150k, orders 1.5M (4 lines each), part 200k, supplier 10k.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TABLES = ("region", "nation", "supplier", "customer", "part", "orders", "lineitem")
_REGIONS = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]
_NATIONS = [
    "ALGERIA",
    "ARGENTINA",
    "BRAZIL",
    "CANADA",
    "EGYPT",
    "ETHIOPIA",
    "FRANCE",
    "GERMANY",
    "INDIA",
    "INDONESIA",
    "IRAN",
    "IRAQ",
    "JAPAN",
    "JORDAN",
    "KENYA",
    "MOROCCO",
    "MOZAMBIQUE",
    "PERU",
    "CHINA",
    "ROMANIA",
    "SAUDI ARABIA",
    "VIETNAM",
    "RUSSIA",
    "UNITED KINGDOM",
    "UNITED STATES",
]
_NATION_REGION = [0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1]
_SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"]
_PRIORITIES = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"]
_MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
_INSTRUCT = ["COLLECT COD", "DELIVER IN PERSON", "NONE", "TAKE BACK RETURN"]
_TYPES = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"]
_FINISH = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"]
_METAL = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"]
_CONTAINERS = ["SM CASE", "SM BOX", "MED BAG", "MED BOX", "LG CASE", "LG BOX", "JUMBO PKG", "WRAP DRUM"]
_COLORS = [
    "almond",
    "antique",
    "azure",
    "beige",
    "blue",
    "chartreuse",
    "forest",
    "green",
    "ivory",
    "khaki",
    "lavender",
    "lime",
    "magenta",
    "navy",
    "olive",
    "orange",
    "peach",
    "red",
    "rose",
    "tan",
]


def sizes(scale: float) -> dict[str, int]:
    return {
        "customer": max(10, int(150_000 * scale)),
        "orders": max(40, int(1_500_000 * scale)),
        "part": max(10, int(200_000 * scale)),
        "supplier": max(5, int(10_000 * scale)),
    }


def generate(spark: Any, out: Path, *, scale: float) -> dict[str, int]:
    """Write the seven tables under ``out/<table>``; returns the row counts."""
    from pyspark.sql import Column
    from pyspark.sql import functions as F

    n = sizes(scale)

    def h(col: str, salt: int, mod: int) -> Column:
        return F.pmod(F.xxhash64(F.col(col), F.lit(salt)), F.lit(mod))

    def pick(col: str, salt: int, values: list[str]) -> Column:
        return F.element_at(F.array(*[F.lit(v) for v in values]), (h(col, salt, len(values)) + 1).cast("int"))

    def money(col: str, salt: int, low: int, high: int) -> Column:
        return ((h(col, salt, (high - low) * 100) + low * 100) / 100).cast("decimal(12,2)")

    def day(col: str, salt: int, start: str, span: int) -> Column:
        return F.date_add(F.lit(start).cast("date"), h(col, salt, span).cast("int"))

    def write(name: str, df: Any, parts: int = 2) -> None:
        df.coalesce(parts).write.mode("overwrite").parquet(str(out / name))

    write(
        "region",
        spark.createDataFrame(
            [(i, r, f"region {r.lower()}") for i, r in enumerate(_REGIONS)],
            "r_regionkey long, r_name string, r_comment string",
        ),
        1,
    )
    write(
        "nation",
        spark.createDataFrame(
            [(i, nm, _NATION_REGION[i], f"nation {nm.lower()}") for i, nm in enumerate(_NATIONS)],
            "n_nationkey long, n_name string, n_regionkey long, n_comment string",
        ),
        1,
    )
    k = F.col("id")
    write(
        "supplier",
        spark.range(1, n["supplier"] + 1).select(
            k.alias("s_suppkey"),
            F.format_string("Supplier#%09d", k).alias("s_name"),
            F.concat(F.lit("addr "), h("id", 1, 99999).cast("string")).alias("s_address"),
            h("id", 2, 25).alias("s_nationkey"),
            F.format_string(
                "%02d-%03d-%04d", h("id", 3, 25) + 10, h("id", 4, 900) + 100, h("id", 5, 9000) + 1000
            ).alias("s_phone"),
            money("id", 6, -999, 9999).alias("s_acctbal"),
            pick("id", 7, _COLORS).alias("s_comment"),
        ),
        1,
    )
    write(
        "customer",
        spark.range(1, n["customer"] + 1).select(
            k.alias("c_custkey"),
            F.format_string("Customer#%09d", k).alias("c_name"),
            F.concat(F.lit("addr "), h("id", 1, 99999).cast("string")).alias("c_address"),
            h("id", 2, 25).alias("c_nationkey"),
            F.format_string(
                "%02d-%03d-%04d", h("id", 2, 25) + 10, h("id", 4, 900) + 100, h("id", 5, 9000) + 1000
            ).alias("c_phone"),
            money("id", 6, -999, 9999).alias("c_acctbal"),
            pick("id", 7, _SEGMENTS).alias("c_mktsegment"),
            pick("id", 8, _COLORS).alias("c_comment"),
        ),
    )
    write(
        "part",
        spark.range(1, n["part"] + 1).select(
            k.alias("p_partkey"),
            F.concat_ws(" ", pick("id", 1, _COLORS), pick("id", 2, _COLORS)).alias("p_name"),
            F.concat(F.lit("Manufacturer#"), (h("id", 3, 5) + 1).cast("string")).alias("p_mfgr"),
            F.concat(F.lit("Brand#"), (h("id", 3, 5) + 1).cast("string"), (h("id", 4, 5) + 1).cast("string")).alias(
                "p_brand"
            ),
            F.concat_ws(" ", pick("id", 5, _TYPES), pick("id", 6, _FINISH), pick("id", 7, _METAL)).alias("p_type"),
            (h("id", 8, 50) + 1).cast("int").alias("p_size"),
            pick("id", 9, _CONTAINERS).alias("p_container"),
            money("id", 10, 900, 2000).alias("p_retailprice"),
            pick("id", 11, _COLORS).alias("p_comment"),
        ),
    )
    write(
        "orders",
        spark.range(1, n["orders"] + 1).select(
            k.alias("o_orderkey"),
            (h("id", 1, n["customer"]) + 1).alias("o_custkey"),
            pick("id", 2, ["F", "O", "P"]).alias("o_orderstatus"),
            money("id", 3, 850, 500_000).alias("o_totalprice"),
            day("id", 4, "1992-01-01", 2400).alias("o_orderdate"),
            pick("id", 5, _PRIORITIES).alias("o_orderpriority"),
            F.format_string("Clerk#%09d", h("id", 6, 1000) + 1).alias("o_clerk"),
            F.lit(0).alias("o_shippriority"),
            pick("id", 7, _COLORS).alias("o_comment"),
        ),
    )
    line = spark.range(0, n["orders"] * 4).select(
        ((F.col("id") / 4).cast("long") + 1).alias("l_orderkey"),
        (F.col("id") % 4 + 1).cast("int").alias("l_linenumber"),
        F.col("id").alias("lid"),
    )
    quantity = (h("lid", 3, 50) + 1).cast("decimal(12,2)")
    price = money("lid", 4, 900, 2000)
    write(
        "lineitem",
        line.select(
            "l_orderkey",
            (h("lid", 1, n["part"]) + 1).alias("l_partkey"),
            (h("lid", 2, n["supplier"]) + 1).alias("l_suppkey"),
            "l_linenumber",
            quantity.alias("l_quantity"),
            (quantity * price).cast("decimal(12,2)").alias("l_extendedprice"),
            (h("lid", 5, 11) / 100).cast("decimal(12,2)").alias("l_discount"),
            (h("lid", 6, 9) / 100).cast("decimal(12,2)").alias("l_tax"),
            pick("lid", 7, ["A", "N", "R"]).alias("l_returnflag"),
            pick("lid", 8, ["F", "O"]).alias("l_linestatus"),
            day("lid", 9, "1992-01-02", 2500).alias("l_shipdate"),
            day("lid", 10, "1992-01-30", 2500).alias("l_commitdate"),
            day("lid", 11, "1992-01-03", 2530).alias("l_receiptdate"),
            pick("lid", 12, _INSTRUCT).alias("l_shipinstruct"),
            pick("lid", 13, _MODES).alias("l_shipmode"),
            pick("lid", 14, _COLORS).alias("l_comment"),
        ),
    )
    return {**n, "lineitem": n["orders"] * 4, "nation": 25, "region": 5}
