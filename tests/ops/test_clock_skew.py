"""A producer whose clock is wrong (events hours in the future or the past), on SQLite and PostgreSQL.

Lineage time is event time, so each event is filed at the moment it names: as-of reads answer by those
moments, consistently (what a moment shows never depends on when an event arrived), and the skew is shown
to operators in ``GET /api/v1/status`` (``clock``) and in ``/metrics``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store

from .faults import PRODUCER, SCHEMA_URL

SCHEMA_FACET = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"


def written(at: datetime, columns: list[str], run: str) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": at.isoformat().replace("+00:00", "Z"),
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {"runId": run},
        "job": {"namespace": "ops", "name": "load_target"},
        "outputs": [
            {
                "namespace": "ops",
                "name": "target",
                "facets": {
                    "schema": {
                        "_producer": PRODUCER,
                        "_schemaURL": SCHEMA_FACET,
                        "fields": [{"name": c, "type": "string"} for c in columns],
                    }
                },
            }
        ],
    }


def stamp(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def test_events_from_wrong_clocks_are_filed_at_their_time_and_the_skew_is_shown(store_url: str) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    sent = [
        written(now - timedelta(hours=1), ["a"], "00000000-0000-4000-8000-000000000001"),  # a right clock
        written(now + timedelta(hours=3), ["a", "b"], "00000000-0000-4000-8000-000000000002"),  # 3 h ahead
        written(now - timedelta(hours=5), ["a", "c"], "00000000-0000-4000-8000-000000000003"),  # 5 h behind
    ]
    with Store.open(store_url) as store:
        http = TestClient(create_app(load_settings({}, environ={}), store), base_url="http://localhost")
        for event in sent:
            assert http.post("/api/v1/lineage", json=event).status_code == 201

        def columns(at: datetime | None) -> list[str]:
            params = {"nodeId": "dataset:ops:target"} | ({"at": stamp(at)} if at else {})
            answer = http.get("/api/v1/graph/node", params=params)
            assert answer.status_code == 200, answer.text
            return [f["name"] for f in answer.json()["fields"]]

        assert columns(now - timedelta(hours=4)) == ["a", "c"]  # the late producer's past
        assert columns(now - timedelta(minutes=30)) == ["a"]
        assert columns(now) == ["a"]  # the future event is not true yet now
        assert columns(now + timedelta(hours=4)) == ["a", "b"]
        assert columns(None) == ["a", "b"]  # the newest version the events describe

        clock = http.get("/api/v1/status").json()["clock"]
        assert clock["sample"] == 3
        assert clock["skewedAhead"] == 1 and clock["skewedBehind"] == 2
        assert abs(clock["aheadSeconds"] - 3 * 3600) < 120
        assert abs(clock["behindSeconds"] - 5 * 3600) < 120
        metrics = http.get("/metrics").text
        assert 'headwater_clock_skewed_events{direction="ahead"} 1.0' in metrics
        assert 'headwater_clock_skewed_events{direction="behind"} 2.0' in metrics
