"""Golden SQL cases: each ``golden/<case>.sql`` gives the lineage frozen in ``<case>.expected.json``."""

from __future__ import annotations

import json

import pytest

from headwater.sql import Catalog, get_dialect, script_events
from olschema import event_errors

from .golden_util import GOLDEN, cases, header, lineage_document


@pytest.mark.parametrize("path", cases(), ids=lambda p: p.stem)
def test_golden(path) -> None:
    expected = json.loads((GOLDEN / f"{path.stem}.expected.json").read_text())
    assert lineage_document(path.read_text()) == expected


@pytest.mark.parametrize("path", cases(), ids=lambda p: p.stem)
def test_golden_events_are_valid_openlineage(path) -> None:
    sql = path.read_text()
    opts = header(sql)
    dialect = get_dialect(opts.get("dialect", "ansi"))
    ns = opts.get("namespace") or dialect.system
    events = script_events(
        sql,
        dialect=dialect,
        namespace=ns,
        default_database=opts.get("default-database"),
        default_schema=opts.get("default-schema"),
        catalog=Catalog(tables=opts["schema"], namespace=ns),
    )
    assert events, "every golden case writes something"
    for event in events:
        assert event_errors(event) == []
        assert event["eventType"] == "COMPLETE"
        assert event["job"]["facets"]["sql"]["query"]
