"""Which rules of derivation the graph was derived by (store/rules.py): a new store is derived by this code's; a
store whose graph was derived by other rules, or before they were recorded, says it needs a rebuild — in
``headwater db status``, ``GET /api/v1/status`` and when a server starts — until ``headwater db rebuild``.
On SQLite and PostgreSQL."""

from __future__ import annotations

import sqlalchemy as sa
from click.testing import CliRunner
from fastapi.testclient import TestClient

from fixtures.stories.load import incoming, story
from headwater.api import create_app
from headwater.cli import cli
from headwater.settings import load_settings
from headwater.store import Store
from headwater.store.schema import graph_rules


def status(store: Store) -> dict:
    with TestClient(create_app(load_settings({}, environ={}), store)) as http:
        answer = http.get("/api/v1/status")
        assert answer.status_code == 200, answer.text
        return answer.json()


def db_status(url: str) -> str:
    result = CliRunner().invoke(cli, ["db", "status", "--db", url])
    assert result.exit_code == 0, result.output
    return result.output


def set_rules(store: Store, rules: int | None) -> None:
    """As a store derived by an older version would hold them (None: before they were recorded)."""
    with store.engine.begin() as conn:
        conn.execute(graph_rules.delete())
        if rules is not None:
            conn.execute(graph_rules.insert().values(id=1, rules=rules, set_at=0))


def test_a_graph_derived_by_other_rules_says_so_until_a_rebuild(store_url: str) -> None:
    with Store.open(store_url) as store:
        fresh = store.graph_rules()
        assert fresh.graph == fresh.current and not fresh.rebuild_needed  # nothing derived yet: this code's rules
        store.append(incoming(story()))
        assert store.caught_up() and not store.graph_rules().rebuild_needed
        assert status(store)["rules"] == {"graph": fresh.current, "current": fresh.current, "rebuildNeeded": False}
        assert "rebuild" not in db_status(store_url)

        for older, named in ((None, "rules never recorded"), (fresh.current - 1, f"rules {fresh.current - 1}")):
            set_rules(store, older)
            found = store.graph_rules()
            assert (found.graph, found.rebuild_needed) == (older, True)
            answer = status(store)
            assert answer["status"] == "degraded"
            assert answer["rules"] == {"graph": older, "current": fresh.current, "rebuildNeeded": True}
            said = db_status(store_url)
            assert f"the graph was derived by {named}" in said and "headwater db rebuild" in said

        store.rebuild()
        after = store.graph_rules()
        assert (after.graph, after.rebuild_needed) == (fresh.current, False)
        assert status(store)["status"] == "ok" and "rebuild" not in db_status(store_url)


def test_an_empty_store_is_recorded_as_derived_by_this_code_when_opened(store_url: str) -> None:
    with Store.open(store_url) as store:
        set_rules(store, None)  # as a store made by a version before the rules were recorded, never used
        assert not store.graph_rules().rebuild_needed  # nothing derived: nothing to rebuild
    with Store.open(store_url) as store:
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(graph_rules.c.id, graph_rules.c.rules)).all() == [
                (1, store.graph_rules().current)
            ]
