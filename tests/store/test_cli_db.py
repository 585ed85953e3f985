"""``headwater db upgrade`` and ``headwater db rebuild``."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from click.testing import CliRunner

from fixtures.stories.load import derived_state, incoming, story
from headwater.cli import cli
from headwater.store import Store
from headwater.store.engine import events_file
from headwater.store.migrate import alembic_config, head_revision
from headwater.store.schema import events, runs


def test_upgrade_then_rebuild(empty_store_url: str) -> None:
    store_url = empty_store_url
    runner = CliRunner()
    first = runner.invoke(cli, ["db", "upgrade", "--db", store_url])
    assert first.exit_code == 0, first.output
    assert f"to {head_revision()}" in first.output
    again = runner.invoke(cli, ["db", "upgrade", "--db", store_url])
    assert again.exit_code == 0 and "newest schema" in again.output
    with Store.open(store_url) as store:
        store.append(incoming(story()))
        expected = derived_state(store)
        assert store.caught_up()  # store.engine does not wait for the projector
        with store.engine.begin() as conn:
            conn.execute(sa.delete(runs))
    result = runner.invoke(cli, ["db", "rebuild", "--db", store_url])
    assert result.exit_code == 0, result.output
    assert f"graph rebuilt from {len(story())} events" in result.output
    with Store.open(store_url) as store:
        assert derived_state(store) == expected


def test_bad_url_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["db", "upgrade", "--db", "oracle://x/y"])
    assert result.exit_code == 2
    assert "unsupported store URL 'oracle://x/y'" in result.output


def test_upgrade_moves_an_older_one_file_stores_log(tmp_path: Path) -> None:
    """A SQLite store made before the log had a file of its own: ``db upgrade`` moves it and says so."""
    main = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{main}")  # no log file attached: every table in the main file
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "head")
            conn.execute(events.insert(), [_row(i) for i in range(3)])
    finally:
        engine.dispose()
    result = CliRunner().invoke(cli, ["db", "upgrade", "--db", f"sqlite:///{main}"])
    assert result.exit_code == 0, result.output
    assert f"event log (3 events) moved into its own file: {events_file(main)}" in result.output
    again = CliRunner().invoke(cli, ["db", "upgrade", "--db", f"sqlite:///{main}"])
    assert again.exit_code == 0 and "moved" not in again.output and "newest schema" in again.output


def _row(i: int) -> dict[str, object]:
    return {"id": f"{i:064x}", "raw": "{}", "received_at": 1, "event_time": 1, "kind": "RUN"}


def test_a_new_store_says_nothing_of_a_move(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["db", "upgrade", "--db", f"sqlite:///{tmp_path / 'new.db'}"])
    assert result.exit_code == 0 and "moved" not in result.output, result.output
