"""One table of meanings shared with Spark capture: an expression over ``people(id, name, dept, pay)`` → the
transformation kinds of each input column, by the rules of :mod:`headwater.model.column_lineage`.

``spark`` names the Spark golden case and output field (tests/capture/lineage/golden/<case>.spark3.expected.json)
that computes the same expression with the DataFrame API; test_meanings checks the SQL engine gives this table's
answer for every row and that Spark capture gives it too where a case is named (Spark 3.5's analysis). Dataset-wide kinds (FILTER, JOIN,
GROUP_BY, SORT) are in Spark's ``dataset`` list and in the SQL engine's dataset list too: rows without a
Spark case check those.
"""

from __future__ import annotations

D_ID, D_TR, D_AGG = "DIRECT/IDENTITY", "DIRECT/TRANSFORMATION", "DIRECT/AGGREGATION"
MASKED_TR, MASKED_AGG = "DIRECT/TRANSFORMATION/masked", "DIRECT/AGGREGATION/masked"
COND, WIN = "INDIRECT/CONDITIONAL", "INDIRECT/WINDOW"

# (SQL select item, {input column: kinds}, Spark golden (case, field) or None)
MEANINGS: list[tuple[str, dict[str, set[str]], tuple[str, str] | None]] = [
    ("id", {"id": {D_ID}}, ("union_window", "id")),
    ("pay * 12", {"pay": {D_TR}}, ("ctas_table", "yearly")),
    ("UPPER(name)", {"name": {D_TR}}, ("sql_cte_subquery", "name")),
    ("CAST(pay AS INT)", {"pay": {D_TR}}, None),
    (
        "CASE WHEN pay > 10 THEN 'hi' WHEN dept = 'ops' THEN name ELSE 'lo' END",
        {"pay": {COND}, "dept": {COND}, "name": {D_TR}},
        ("case_coalesce_hash", "band"),
    ),
    ("COALESCE(pay, 0.0)", {"pay": {D_TR, COND}}, ("case_coalesce_hash", "pay0")),
    ("MD5(name)", {"name": {MASKED_TR}}, ("case_coalesce_hash", "h")),
    ("AVG(pay)", {"pay": {D_AGG}}, ("join_aggregate", "avg_pay")),
    ("COUNT(DISTINCT id)", {"id": {MASKED_AGG}}, ("join_aggregate", "n")),
    ("ROW_NUMBER() OVER (PARTITION BY dept ORDER BY pay DESC)", {"dept": {WIN}, "pay": {WIN}}, ("union_window", "rk")),
    (
        "SUM(pay) OVER (PARTITION BY dept ORDER BY pay DESC)",
        {"dept": {WIN}, "pay": {D_AGG, WIN}},
        ("union_window", "total"),
    ),
    ("LAG(pay) OVER (ORDER BY id)", {"pay": {D_TR}, "id": {WIN}}, None),
    ("CONCAT(name, '-', dept)", {"name": {D_TR}, "dept": {D_TR}}, None),
]

# dataset-wide meanings: (statement over people, input column, kind on every output column)
ROW_MEANINGS: list[tuple[str, str, str]] = [
    ("SELECT id FROM people WHERE pay > 10", "pay", "INDIRECT/FILTER"),
    ("SELECT dept, SUM(pay) AS s FROM people GROUP BY dept HAVING SUM(id) > 1", "id", "INDIRECT/FILTER"),
    ("SELECT dept FROM people GROUP BY dept", "dept", "INDIRECT/GROUP_BY"),
    ("SELECT id FROM people ORDER BY name", "name", "INDIRECT/SORT"),
    ("SELECT p.id FROM people p JOIN people q ON p.dept = q.name", "dept", "INDIRECT/JOIN"),
]
