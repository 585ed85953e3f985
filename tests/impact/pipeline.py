"""A four-table warehouse pipeline, three hops deep, as the SQL engine reports it (real SQL, real engine).

raw.customers ─► staging.customers ─► mart.customer_contacts ─► reports.country_contacts

- staging keeps id, lower(email), phone, country of the rows WHERE signup_date IS NOT NULL (a filter);
- mart renames id, keeps email, hashes the phone (md5: masking), keeps country;
- reports counts and samples emails per country (aggregations, GROUP BY country).

``raw.customers.notes`` is read by nobody.
"""

from __future__ import annotations

from typing import Any

NS = "postgres://warehouse:5432"
DIALECT = "postgres"
DATABASE = "shop"

PIPELINE_SQL = """
CREATE TABLE raw.customers (id int, email text, phone text, country text, signup_date date, notes text);
CREATE TABLE staging.customers AS
  SELECT id, lower(email) AS email, phone, country FROM raw.customers WHERE signup_date IS NOT NULL;
CREATE TABLE mart.customer_contacts AS
  SELECT id AS customer_id, email, md5(phone) AS phone_hash, country FROM staging.customers;
CREATE TABLE reports.country_contacts AS
  SELECT country, count(email) AS emails, max(email) AS sample_email FROM mart.customer_contacts GROUP BY country;
"""

RAW = f"dataset:{NS}:shop.raw.customers"
STAGING = f"dataset:{NS}:shop.staging.customers"
MART = f"dataset:{NS}:shop.mart.customer_contacts"
REPORT = f"dataset:{NS}:shop.reports.country_contacts"


def col(dataset_id: str, column: str) -> str:
    return f"datasetField:{dataset_id[len('dataset:') :]}:{column}"


def pipeline_events() -> list[dict[str, Any]]:
    from headwater.sql import script_events

    return script_events(PIPELINE_SQL, dialect=DIALECT, namespace=NS, default_database=DATABASE)


def writer(events: list[dict[str, Any]], dataset_id: str) -> str:
    """The job id of the event writing ``dataset_id`` (the SQL engine's job name for that statement)."""
    for ev in events:
        for out in ev["outputs"]:
            if f"dataset:{out['namespace']}:{out['name']}" == dataset_id:
                return f"job:{ev['job']['namespace']}:{ev['job']['name']}"
    raise AssertionError(f"no event writes {dataset_id}")
