"""view_lineage: a view definition as databases print it → sources and column lineage (what the crawler uses)."""

from __future__ import annotations

from headwater.sql import view_lineage

PG_DEFINITION = (
    " SELECT o.id,\n    c.name\n   FROM (orders o\n     JOIN customers c ON ((c.id = o.customer_id)))\n"
    "  WHERE (o.amount > (100)::numeric);"
)  # PostgreSQL's pg_get_viewdef, parenthesized join and all


def _deps(fields: dict, column: str) -> set[tuple[str, str, str, str]]:
    return {
        (f["name"], f["field"], t["type"], t["subtype"])
        for f in fields[column]["inputFields"]
        for t in f["transformations"]
    }


def test_a_postgres_view_definition() -> None:
    sources, fields = view_lineage(PG_DEFINITION, "postgresql://u:secret@db.local:5432/shop", "sales", "postgresql")
    assert sources == [
        ("postgres://db.local:5432", "shop.sales.customers"),
        ("postgres://db.local:5432", "shop.sales.orders"),
    ]
    assert _deps(fields, "name") == {
        ("shop.sales.customers", "name", "DIRECT", "IDENTITY"),
        ("shop.sales.customers", "id", "INDIRECT", "JOIN"),
        ("shop.sales.orders", "customer_id", "INDIRECT", "JOIN"),
        ("shop.sales.orders", "amount", "INDIRECT", "FILTER"),
    }
    assert all(f["namespace"] == "postgres://db.local:5432" for f in fields["id"]["inputFields"])


def test_a_sqlite_view_statement_names_tables_as_the_crawler_does() -> None:
    sources, fields = view_lineage(
        "CREATE VIEW totals AS SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id",
        "sqlite:////data/app.db",
        "main",
        "sqlite",
    )
    assert sources == [("sqlite://localhost", "/data/app.db.orders")]
    assert ("/data/app.db.orders", "amount", "DIRECT", "AGGREGATION") in _deps(fields, "total")
    assert ("/data/app.db.orders", "customer_id", "INDIRECT", "GROUP_BY") in _deps(fields, "total")


def test_an_unreadable_definition_gives_nothing() -> None:
    assert view_lineage("SELECT FROM WHERE (", "postgresql://h/db", "public", "postgresql") == ([], {})


def test_count_star_is_folded_only_into_the_count() -> None:
    _sources, fields = view_lineage(
        "CREATE VIEW heads AS SELECT dept, COUNT(*) AS n FROM people WHERE active = 1 GROUP BY dept",
        "sqlite:////data/hr.db",
        "main",
        "sqlite",
    )
    people = "/data/hr.db.people"
    assert _deps(fields, "n") == {
        (people, "*", "DIRECT", "AGGREGATION"),
        (people, "dept", "INDIRECT", "GROUP_BY"),
        (people, "active", "INDIRECT", "FILTER"),
    }
    assert _deps(fields, "dept") == {
        (people, "dept", "DIRECT", "IDENTITY"),
        (people, "dept", "INDIRECT", "GROUP_BY"),
        (people, "active", "INDIRECT", "FILTER"),
    }
