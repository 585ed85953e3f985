"""``headwater agent flush``: sends what earlier runs left in the spool, in order, over real HTTP."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from headwater.capture.delivery import Emitter
from headwater.capture.spool import Spool
from headwater.cli import cli

from .sink import Sink
from .test_delivery import events, expected_times, free_port, http, times


def test_agent_flush_sends_the_spool(spool_dir: Path) -> None:
    dead = Emitter(http(f"http://127.0.0.1:{free_port()}"), Spool(spool_dir))
    for e in events(3):
        dead.submit(e)
    dead.close(5)
    assert Spool(spool_dir).count() == 3
    runner = CliRunner()
    with Sink() as sink:
        result = runner.invoke(cli, ["agent", "flush", "--spool-dir", str(spool_dir), "--url", sink.url])
        assert result.exit_code == 0, result.output
        assert "sent 3 of 3" in result.output
        assert times(sink.events()) == expected_times(3)
    assert Spool(spool_dir).count() == 0
    again = runner.invoke(cli, ["agent", "flush", "--spool-dir", str(spool_dir), "--url", sink.url])
    assert again.exit_code == 0 and "is empty" in again.output


def test_agent_flush_reports_a_backend_still_down(spool_dir: Path) -> None:
    dead = Emitter(http(f"http://127.0.0.1:{free_port()}"), Spool(spool_dir))
    dead.submit(events(1)[0])
    dead.close(5)
    result = CliRunner().invoke(
        cli, ["agent", "flush", "--spool-dir", str(spool_dir), "--url", f"http://127.0.0.1:{free_port()}"]
    )
    assert result.exit_code == 1
    assert "1 events are still waiting" in result.output
    assert Spool(spool_dir).count() == 1
