"""Checks that the plain form of events (:mod:`headwater.capture.plain`) gives exactly the bytes of the objects,
through ``Serde`` and through the transports the agent hands it to."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

from openlineage.client.serde import Serde
from openlineage.client.transport.file import FileConfig, FileTransport
from openlineage.client.transport.http import HttpConfig, HttpTransport

from headwater.capture.delivery import Emitter
from headwater.capture.plain import plain_events
from headwater.capture.spool import Spool
from headwater.capture.transports import StreamTransport

from .sink import Sink


def as_lists(value: Any) -> Any:
    """The plain form with tuples as lists: what a ``Serde`` that walked tuples too would be given."""
    if isinstance(value, dict):
        return {k: as_lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_lists(v) for v in value]
    return value


def assert_same_json(events: list[Any]) -> list[Any]:
    """``Serde.to_json`` of each event's plain form equals that of the object (also indented, as the file
    transport's debug mode writes), and the plain form is a fixed point of ``Serde``'s null/enum walk."""
    plain = plain_events(events)
    assert len(plain) == len(events)
    for event, value in zip(events, plain):
        assert isinstance(value, dict), f"{type(event).__name__} was not converted"
        expected = Serde.to_json(event)
        assert Serde.to_json(value) == expected
        assert Serde.to_json(value, indent=2) == Serde.to_json(event, indent=2)
        assert json.dumps(Serde.remove_nulls_and_enums(as_lists(value)), sort_keys=True) == expected
        assert Serde.to_dict(event) == as_lists(value)
    singles = [plain_events([e])[0] for e in events]  # converted alone (no memo shared with the batch)
    assert [Serde.to_json(v) for v in singles] == [Serde.to_json(v) for v in plain]
    return plain


def assert_same_through_transports(events: list[Any], tmp_path: Path) -> None:
    """The HTTP, file and console transports, and the spool (written, then drained over HTTP), send the same
    bytes for the plain form as for the objects."""
    plain = plain_events(events)
    expected = [Serde.to_json(e) for e in events]
    tmp_path.mkdir(parents=True, exist_ok=True)
    # console (the agent's stderr transport)
    for batch in (events, plain):
        stream = io.StringIO()
        console = StreamTransport(stream=stream)
        for e in batch:
            console.emit(e)
        assert stream.getvalue() == "".join(line + "\n" for line in expected)
    # file (append mode, as the agent configures it)
    for name, batch in (("objects", events), ("plain", plain)):
        target = tmp_path / f"{name}.ndjson"
        transport = FileTransport(FileConfig(log_file_path=str(target), append=True))
        for e in batch:
            transport.emit(e)
        assert target.read_text(encoding="utf-8") == "".join(line + "\n" for line in expected)
    # HTTP (the bytes on the wire)
    with Sink() as sink:
        transport = HttpTransport(HttpConfig(url=sink.url, endpoint="api/v1/lineage"))
        for e in [*events, *plain]:
            transport.emit(e)
        transport.close()
        assert sink.raw[: len(events)] == sink.raw[len(events) :] == [line.encode("utf-8") for line in expected]
    # spool: written while the backend is down, drained over HTTP when it is back
    for name, batch in (("objects", events), ("plain", plain)):
        directory = tmp_path / f"spool-{name}"
        with Sink(mode="error") as sink:
            transport = HttpTransport(
                HttpConfig(url=sink.url, endpoint="api/v1/lineage", timeout=5.0, retry={"total": 0})
            )
            emitter = Emitter(transport, Spool(directory), queue_size=len(batch) + 1)
            for e in batch:
                emitter.submit(e)
            assert emitter.flush(30)
            assert emitter.stats.spooled == len(batch)
            lines = [
                line
                for seg in sorted(directory.glob("seg-*.ndjson"))
                for line in seg.read_text(encoding="utf-8").splitlines()
            ]
            assert lines == expected
            sink.mode = "ok"
            deadline = time.monotonic() + 60
            while len(sink.raw) < len(batch) and time.monotonic() < deadline:
                time.sleep(0.05)
            emitter.close(5)
            replayed = [json.loads(raw) for raw in sink.raw]
            assert replayed == [json.loads(line) for line in expected]
            assert sink.raw == [Serde.to_json(json.loads(line)).encode("utf-8") for line in expected]
