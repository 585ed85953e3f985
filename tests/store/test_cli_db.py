"""``headwater db upgrade`` and ``headwater db rebuild``."""

from __future__ import annotations

import sqlalchemy as sa
from click.testing import CliRunner

from fixtures.stories.load import derived_state, incoming, story
from headwater.cli import cli
from headwater.store import Store
from headwater.store.migrate import head_revision
from headwater.store.schema import runs


def test_upgrade_then_rebuild(store_url: str) -> None:
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
