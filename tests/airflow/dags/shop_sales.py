"""The DAG of the Airflow end-to-end test, written as an Airflow user writes one: SQL tasks on PostgreSQL
(SQLExecuteQueryOperator, lineage from the OpenLineage provider's SQL parser and the database's schemas) and a
Python task whose lineage is declared with inlets and outlets.

It runs inside the Airflow environment (.venv-airflow), not Headwater's: the test copies it into a DAGs folder.
``SHOP_PG`` is the database's OpenLineage namespace and name prefix (``postgres://127.0.0.1:5432/<db>``); the
connection ``shop_pg`` comes from ``AIRFLOW_CONN_SHOP_PG``.
"""

from __future__ import annotations

import datetime
import os

from airflow.providers.common.compat.lineage.entities import Column, Table
from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator
from airflow.sdk import DAG, Asset, task

SHOP_PG = os.environ["SHOP_PG"]

with DAG(dag_id="shop_sales", schedule=None, start_date=datetime.datetime(2026, 11, 1), catchup=False):
    create_tables = SQLExecuteQueryOperator(
        task_id="create_tables",
        conn_id="shop_pg",
        sql="""
        CREATE TABLE IF NOT EXISTS customers (customer_id int, name text, region text);
        CREATE TABLE IF NOT EXISTS orders (order_id int, customer_id int, amount numeric(10, 2), ordered_at date);
        """,
    )
    load_orders = SQLExecuteQueryOperator(
        task_id="load_orders",
        conn_id="shop_pg",
        sql="""
        INSERT INTO customers VALUES (1, 'Ada', 'north'), (2, 'Grace', 'south');
        INSERT INTO orders VALUES (10, 1, 12.50, '2026-11-01'), (11, 2, 30.00, '2026-11-02');
        """,
    )
    region_sales = SQLExecuteQueryOperator(
        task_id="region_sales",
        conn_id="shop_pg",
        sql="""
        CREATE TABLE region_sales AS
        SELECT c.region, SUM(o.amount) AS total_amount, COUNT(o.order_id) AS order_count
        FROM orders o JOIN customers c ON o.customer_id = c.customer_id
        GROUP BY c.region
        """,
    )

    @task(
        inlets=[Asset(f"{SHOP_PG}/public/region_sales")],
        outlets=[
            Table(
                cluster="mysql://reports:3306",
                database="reports",
                name="region_summary",
                columns=[Column(name="region", data_type="text"), Column(name="total_amount", data_type="decimal")],
            )
        ],
    )
    def publish_report() -> None:
        """Copies region_sales to the reporting database (here: only says so; the lineage is declared)."""
        print("published region_sales to reports.region_summary")

    create_tables >> load_orders >> region_sales >> publish_report()
