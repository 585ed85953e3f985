"""Delivery over real HTTP: backend down, answering 500s, hanging; the spool keeps everything and sends it later.

These run the real openlineage-python HTTP transport against a real server on 127.0.0.1 (tests/capture/runtime/sink.py).
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from openlineage.client.transport import Transport

from headwater.capture.config import load_config
from headwater.capture.delivery import Emitter
from headwater.capture.events import AppContext, EventType, application_event
from headwater.capture.spool import Spool
from headwater.capture.transports import build_transport

from .sink import Sink

CTX = AppContext(
    namespace="test", app_job="delivery_app", app_run_id="01890000-0000-7000-8000-0000000000a1", spark_version="4.0.0"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http(url: str, timeout_ms: int = 1000) -> Transport:
    env = {"HOME": "/nonexistent-home"}
    return build_transport(
        load_config(
            {
                "spark.openlineage.transport.type": "http",
                "spark.openlineage.transport.url": url,
                "spark.openlineage.transport.timeoutInMillis": str(timeout_ms),
            },
            env,
        ),
        env,
    )


def events(n: int) -> list[Any]:
    return [application_event(CTX, EventType.OTHER, 1_700_000_000 + i) for i in range(n)]


def times(bodies: list[dict[str, Any]]) -> list[str]:
    return [b["eventTime"] for b in bodies]


def expected_times(n: int) -> list[str]:
    return [e.eventTime for e in events(n)]


def test_events_go_straight_out_when_the_backend_is_up(spool_dir: Path) -> None:
    with Sink() as sink:
        emitter = Emitter(http(sink.url), Spool(spool_dir))
        for e in events(3):
            assert emitter.submit(e)
        assert emitter.flush(10)
        emitter.close(5)
        assert times(sink.events()) == expected_times(3)
        assert sink.paths == ["/api/v1/lineage"] * 3
    assert emitter.stats.sent == 3 and emitter.stats.spooled == 0
    assert Spool(spool_dir).count() == 0


def test_backend_down_then_back_nothing_lost_in_order(spool_dir: Path) -> None:
    port = free_port()
    emitter = Emitter(http(f"http://127.0.0.1:{port}"), Spool(spool_dir))
    for e in events(4):
        emitter.submit(e)
    assert emitter.flush(10)
    assert emitter.spooling
    assert Spool(spool_dir).count() == 4
    with Sink(port=port) as sink:  # the backend appears on the same port; the emitter's backoff retry finds it
        got = sink.wait_for(lambda b: len(b) >= 4, timeout=20)
        for e in events(6)[4:]:
            emitter.submit(e)
        got = sink.wait_for(lambda b: len(b) >= 6, timeout=20)
        emitter.close(5)
    assert times(got) == expected_times(6)
    assert Spool(spool_dir).count() == 0


def test_spool_is_sent_by_the_next_run(spool_dir: Path) -> None:
    port = free_port()
    first = Emitter(http(f"http://127.0.0.1:{port}"), Spool(spool_dir))
    for e in events(3):
        first.submit(e)
    first.close(5)  # the run ends while the backend is down
    assert first.stats.sent == 0 and Spool(spool_dir).count() == 3
    with Sink(port=port) as sink:
        second = Emitter(http(sink.url), Spool(spool_dir))  # a later run, same spool directory
        second.submit(events(4)[3])
        got = sink.wait_for(lambda b: len(b) >= 4, timeout=20)
        second.close(5)
    assert times(got) == expected_times(4)  # old events first, then the new one
    assert Spool(spool_dir).count() == 0


def test_backend_answering_500_keeps_everything(spool_dir: Path) -> None:
    with Sink(mode="error") as sink:
        emitter = Emitter(http(sink.url), Spool(spool_dir))
        for e in events(3):
            emitter.submit(e)
        assert emitter.flush(10)
        assert sink.attempts >= 1 and sink.events() == []
        assert Spool(spool_dir).count() == 3
        sink.mode = "ok"
        got = sink.wait_for(lambda b: len(b) >= 3, timeout=20)
        emitter.close(5)
    assert times(got) == expected_times(3)


def test_hanging_backend_close_is_bounded_and_spools_the_rest(spool_dir: Path) -> None:
    with Sink(mode="hang", hang_seconds=30) as sink:
        emitter = Emitter(http(sink.url, timeout_ms=20_000), Spool(spool_dir))
        for e in events(3):
            emitter.submit(e)
        sink.wait_for(lambda _: sink.attempts >= 1, timeout=10)
        emitter.close(1.0)
        # close() returned while the worker is still stuck in the hanging POST: it did not wait for it
        assert emitter._thread.is_alive()
        assert Spool(spool_dir).count() == 3  # the in-flight event and the queued ones
        sink.mode = "ok"
        # the next run sends them
        later = Emitter(http(sink.url), Spool(spool_dir))
        got = sink.wait_for(lambda b: len(b) >= 3, timeout=20)
        later.close(5)
    assert times(got) == expected_times(3)


def test_full_queue_drops_and_counts_without_blocking(spool_dir: Path) -> None:
    class Slow(Transport):
        kind = "slow"

        def emit(self, event: Any) -> None:
            time.sleep(0.2)

    emitter = Emitter(Slow(), Spool(spool_dir), queue_size=2)
    accepted = [emitter.submit(e) for e in events(20)]
    assert accepted.count(False) >= 15
    assert emitter.stats.dropped == accepted.count(False)
    emitter.close(0.1)


def test_spool_is_bounded(spool_dir: Path) -> None:
    spool = Spool(spool_dir, max_bytes=300)
    written = spool.append([f'{{"n": {i}, "pad": "{"x" * 80}"}}' for i in range(10)])
    assert 0 < written < 10
    assert spool.dropped == 10 - written
    assert spool.size() <= 300
    spool.close()


def test_a_live_writers_segment_is_not_drained_by_another_process_view(spool_dir: Path) -> None:
    writer = Spool(spool_dir)
    writer.append(['{"a": 1}'])
    other = Spool(spool_dir)
    assert not other.pending()  # the writer still holds its active segment
    sent: list[dict[str, Any]] = []
    assert other.drain(sent.append) and sent == []
    writer.close()  # the writer ended without sending: its segment is now an orphan for the next process
    assert other.pending()
    assert other.drain(sent.append) and sent == [{"a": 1}]
    assert other.count() == 0


def test_an_event_the_backend_refuses_is_set_aside_and_does_not_block_the_rest(spool_dir: Path) -> None:
    with Sink(mode="reject-first") as sink:
        emitter = Emitter(http(sink.url), Spool(spool_dir))
        for e in events(3):
            emitter.submit(e)
        assert emitter.flush(10)
        emitter.close(5)
        got = sink.events()
    assert times(got) == expected_times(3)[1:]
    assert emitter.stats.rejected == 1 and not emitter.spooling
    rejected = [json.loads(line) for line in (spool_dir / "rejected.ndjson").read_text().splitlines()]
    assert [r["event"]["eventTime"] for r in rejected] == expected_times(1)
    assert rejected[0]["reason"].startswith("HTTP 422")


def test_http_keys_reach_the_wire(spool_dir: Path) -> None:
    """endpoint, auth.type/apiKey, compression and headers.* are honoured by the real HTTP transport."""
    env = {"HOME": "/nonexistent-home"}
    with Sink() as sink:
        conf = {
            "spark.openlineage.transport.type": "http",
            "spark.openlineage.transport.url": sink.url,
            "spark.openlineage.transport.endpoint": "custom/lineage",
            "spark.openlineage.transport.auth.type": "api_key",
            "spark.openlineage.transport.auth.apiKey": "tok-123",
            "spark.openlineage.transport.compression": "gzip",
            "spark.openlineage.transport.headers.X-Team": "payroll",
        }
        emitter = Emitter(build_transport(load_config(conf, env), env), Spool(spool_dir))
        emitter.submit(events(1)[0])
        assert emitter.flush(10)
        emitter.close(5)
        assert times(sink.events()) == expected_times(1)
        assert sink.paths == ["/custom/lineage"]
        headers = sink.headers[0]
        assert headers["authorization"] == "Bearer tok-123"
        assert headers["content-encoding"] == "gzip"
        assert headers["x-team"] == "payroll"


def _clear_proxy_environment(monkeypatch: Any) -> None:
    for name in list(os.environ):
        if name.lower().endswith("_proxy") or name in ("NETRC", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
            monkeypatch.delenv(name)


def test_http_environment_is_resolved_once_as_requests_would(monkeypatch: Any, tmp_path: Path) -> None:
    """The proxy, no_proxy and netrc settings of the environment apply as ``requests`` applies them, read once when
    the transport is built (not per POST): a real proxy hop (the proxy receives the absolute URL) with the netrc
    credentials of the target host, still taken after the variables are gone; a host in no_proxy is posted to
    directly."""
    _clear_proxy_environment(monkeypatch)
    netrc = tmp_path / "netrc"
    netrc.write_text("machine lineage.invalid login agent password s3cret\n", encoding="utf-8")
    netrc.chmod(0o600)
    with Sink() as proxy, Sink() as direct:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        monkeypatch.setenv("NETRC", str(netrc))
        through_proxy = http("http://lineage.invalid:5000")
        straight = http(direct.url)
        monkeypatch.delenv("HTTP_PROXY")
        monkeypatch.delenv("NETRC")
        first, second = events(2)
        through_proxy.emit(first)
        straight.emit(second)
        assert proxy.paths == ["http://lineage.invalid:5000/api/v1/lineage"]
        assert proxy.headers[0]["authorization"] == "Basic YWdlbnQ6czNjcmV0"  # agent:s3cret
        assert times(proxy.bodies) == [first.eventTime]
        assert direct.paths == ["/api/v1/lineage"]
        assert "authorization" not in direct.headers[0]
        assert times(direct.bodies) == [second.eventTime]
