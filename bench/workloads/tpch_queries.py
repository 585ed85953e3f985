"""Twenty SQL queries over the TPC-H-like tables: joins, aggregations, windows, CTEs, subqueries.

Adapted from TPC-H (Q1, Q3, Q4, Q5, Q6, Q10, Q12, Q13, Q14, Q18, Q19, Q22) plus window, CTE, union,
rollup and set-operation queries. Each is run as ``spark.sql(q).write.parquet(...)``: one action with
an output and column lineage per query.
"""

from __future__ import annotations

QUERIES: list[tuple[str, str]] = [
    (
        "q01_pricing_summary",
        """
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_discount) AS avg_disc, count(*) AS count_order
FROM lineitem WHERE l_shipdate <= date '1998-09-02'
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus""",
    ),
    (
        "q03_shipping_priority",
        """
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer JOIN orders ON c_custkey = o_custkey JOIN lineitem ON l_orderkey = o_orderkey
WHERE c_mktsegment = 'BUILDING' AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate LIMIT 100""",
    ),
    (
        "q04_order_priority",
        """
SELECT o_orderpriority, count(*) AS order_count FROM orders
WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-10-01'
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority ORDER BY o_orderpriority""",
    ),
    (
        "q05_local_supplier",
        """
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer JOIN orders ON c_custkey = o_custkey JOIN lineitem ON l_orderkey = o_orderkey
JOIN supplier ON l_suppkey = s_suppkey AND c_nationkey = s_nationkey
JOIN nation ON s_nationkey = n_nationkey JOIN region ON n_regionkey = r_regionkey
WHERE r_name = 'ASIA' AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1995-01-01'
GROUP BY n_name ORDER BY revenue DESC""",
    ),
    (
        "q06_forecast_revenue",
        """
SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""",
    ),
    (
        "q10_returned_items",
        """
SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal, n_name, c_address, c_phone
FROM customer JOIN orders ON c_custkey = o_custkey JOIN lineitem ON l_orderkey = o_orderkey
JOIN nation ON c_nationkey = n_nationkey
WHERE o_orderdate >= date '1993-10-01' AND o_orderdate < date '1994-01-01' AND l_returnflag = 'R'
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address ORDER BY revenue DESC LIMIT 20""",
    ),
    (
        "q12_shipping_modes",
        """
SELECT l_shipmode,
       sum(CASE WHEN o_orderpriority IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS high_line_count,
       sum(CASE WHEN o_orderpriority NOT IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS low_line_count
FROM orders JOIN lineitem ON o_orderkey = l_orderkey
WHERE l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
  AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1995-01-01'
GROUP BY l_shipmode ORDER BY l_shipmode""",
    ),
    (
        "q13_customer_distribution",
        """
SELECT c_count, count(*) AS custdist FROM (
  SELECT c_custkey, count(o_orderkey) AS c_count FROM customer
  LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%red%'
  GROUP BY c_custkey) c_orders
GROUP BY c_count ORDER BY custdist DESC, c_count DESC""",
    ),
    (
        "q14_promotion_effect",
        """
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM lineitem JOIN part ON l_partkey = p_partkey
WHERE l_shipdate >= date '1995-09-01' AND l_shipdate < date '1995-10-01'""",
    ),
    (
        "q18_large_volume_customer",
        """
SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) AS total_qty
FROM customer JOIN orders ON c_custkey = o_custkey JOIN lineitem ON o_orderkey = l_orderkey
WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 150)
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate LIMIT 100""",
    ),
    (
        "q19_discounted_revenue",
        """
SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem JOIN part ON p_partkey = l_partkey
WHERE (p_brand = 'Brand#12' AND p_container IN ('SM CASE', 'SM BOX') AND l_quantity BETWEEN 1 AND 11
       AND p_size BETWEEN 1 AND 5 AND l_shipmode IN ('AIR', 'REG AIR'))
   OR (p_brand = 'Brand#23' AND p_container IN ('MED BAG', 'MED BOX') AND l_quantity BETWEEN 10 AND 20
       AND p_size BETWEEN 1 AND 10 AND l_shipmode IN ('AIR', 'REG AIR'))""",
    ),
    (
        "q22_global_sales",
        """
SELECT cntrycode, count(*) AS numcust, sum(c_acctbal) AS totacctbal FROM (
  SELECT substring(c_phone, 1, 2) AS cntrycode, c_acctbal FROM customer
  WHERE substring(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')
    AND c_acctbal > (SELECT avg(c_acctbal) FROM customer WHERE c_acctbal > 0.00)
    AND NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)) custsale
GROUP BY cntrycode ORDER BY cntrycode""",
    ),
    (
        "w01_top_customers_per_nation",
        """
SELECT * FROM (
  SELECT n_name, c_custkey, c_name, sum(o_totalprice) AS spent,
         rank() OVER (PARTITION BY n_name ORDER BY sum(o_totalprice) DESC) AS rk
  FROM customer JOIN orders ON c_custkey = o_custkey JOIN nation ON c_nationkey = n_nationkey
  GROUP BY n_name, c_custkey, c_name) WHERE rk <= 3""",
    ),
    (
        "w02_running_revenue",
        """
WITH daily AS (SELECT o_orderdate AS day, sum(o_totalprice) AS revenue FROM orders GROUP BY o_orderdate)
SELECT day, revenue, sum(revenue) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
       avg(revenue) OVER (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS week_avg,
       lag(revenue, 1) OVER (ORDER BY day) AS previous_day
FROM daily""",
    ),
    (
        "c01_supplier_share_cte",
        """
WITH part_rev AS (
  SELECT l_suppkey, l_partkey, sum(l_extendedprice) AS rev FROM lineitem GROUP BY l_suppkey, l_partkey),
supp_rev AS (SELECT l_suppkey, sum(rev) AS total FROM part_rev GROUP BY l_suppkey)
SELECT s_name, p.l_partkey, p.rev / s.total AS share
FROM part_rev p JOIN supp_rev s ON p.l_suppkey = s.l_suppkey JOIN supplier ON s_suppkey = p.l_suppkey
WHERE p.rev > 0.01 * s.total""",
    ),
    (
        "c02_customer_profile_cte",
        """
WITH orders_per_customer AS (
  SELECT o_custkey, count(*) AS n_orders, max(o_orderdate) AS last_order, avg(o_totalprice) AS avg_order
  FROM orders GROUP BY o_custkey),
lines_per_customer AS (
  SELECT o_custkey, count(*) AS n_lines, sum(CASE WHEN l_returnflag = 'R' THEN 1 ELSE 0 END) AS returned
  FROM orders JOIN lineitem ON o_orderkey = l_orderkey GROUP BY o_custkey)
SELECT c_custkey, upper(c_name) AS name, c_mktsegment, coalesce(n_orders, 0) AS n_orders, last_order, avg_order,
       coalesce(returned / n_lines, 0) AS return_rate, sha2(c_phone, 256) AS phone_hash
FROM customer LEFT JOIN orders_per_customer o ON c_custkey = o.o_custkey
LEFT JOIN lines_per_customer l ON c_custkey = l.o_custkey""",
    ),
    (
        "s01_parts_above_brand_avg",
        """
SELECT p_partkey, p_brand, p_retailprice FROM part p
WHERE p_retailprice > (SELECT avg(p2.p_retailprice) FROM part p2 WHERE p2.p_brand = p.p_brand)
  AND p_size IN (SELECT DISTINCT p_size FROM part WHERE p_container LIKE 'LG%')""",
    ),
    (
        "u01_contacts_union",
        """
SELECT 'customer' AS kind, c_custkey AS id, c_name AS name, c_phone AS phone, n_name AS nation
FROM customer JOIN nation ON c_nationkey = n_nationkey
UNION ALL
SELECT 'supplier' AS kind, s_suppkey AS id, s_name AS name, s_phone AS phone, n_name AS nation
FROM supplier JOIN nation ON s_nationkey = n_nationkey""",
    ),
    (
        "r01_revenue_rollup",
        """
SELECT r_name, n_name, year(o_orderdate) AS year, sum(o_totalprice) AS revenue, grouping_id() AS level
FROM orders JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey
JOIN region ON n_regionkey = r_regionkey
GROUP BY ROLLUP (r_name, n_name, year(o_orderdate))""",
    ),
    (
        "x01_idle_suppliers",
        """
SELECT s_suppkey, s_name FROM supplier
EXCEPT
SELECT s_suppkey, s_name FROM supplier JOIN lineitem ON s_suppkey = l_suppkey
WHERE l_shipdate >= date '1997-01-01'""",
    ),
]
