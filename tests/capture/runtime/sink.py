"""A tiny real HTTP server on 127.0.0.1 that records the bodies POSTed to it.

``mode`` switches its behaviour while it runs: ``"ok"`` answers 201, ``"error"`` answers 500,
``"hang"`` sleeps ``hang_seconds`` before answering (a backend that is up but stuck), ``"reject-first"``
answers 422 (invalid event) to the first POST and 201 afterwards, ``"headwater"`` answers like Headwater's
ingest (an event: 201 with ``{"id", "duplicate", "warnings"}``; ``/batch``: 200 with the batch answer, or
``batch_status`` when set). The events of a batch are recorded one by one, their paths ``.../batch``.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Sink:
    def __init__(self, mode: str = "ok", hang_seconds: float = 5.0, port: int = 0) -> None:
        self.mode = mode
        self.hang_seconds = hang_seconds
        self.bodies: list[dict[str, Any]] = []
        self.raw: list[bytes] = []  # the bodies as received (decompressed), for byte-level comparisons
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.attempts = 0
        self.batch_status: int | None = None  # "headwater" mode: the status /batch answers instead of 200
        self._lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with sink._lock:
                    sink.attempts += 1
                    mode = sink.mode
                if mode == "hang":
                    time.sleep(sink.hang_seconds)
                    self._answer(503)
                    return
                if mode == "error":
                    self._answer(500)
                    return
                if mode == "reject" or (mode == "reject-first" and sink.attempts == 1):
                    self._answer(422)
                    return
                batch = self.path.endswith("/batch")
                if mode == "headwater" and batch and sink.batch_status is not None:
                    self._answer(sink.batch_status)
                    return
                if self.headers.get("Content-Encoding") == "gzip":
                    raw = gzip.decompress(raw)
                body = json.loads(raw)
                items = body if batch else [body]
                with sink._lock:
                    sink.bodies.extend(items)
                    sink.raw.append(raw)
                    sink.headers.append({k.lower(): v for k, v in self.headers.items()})
                    sink.paths.extend([self.path] * len(items))
                if mode == "headwater":
                    answer = {"received": len(items), "stored": len(items), "duplicates": 0, "ids": [], "warnings": []}
                    one = {"id": "01890000-0000-7000-8000-000000000001", "duplicate": False, "warnings": []}
                    self._answer(200 if batch else 201, json.dumps(answer if batch else one).encode())
                    return
                self._answer(201)

            def _answer(self, status: int, answer: bytes | None = None) -> None:
                body = answer or (
                    b'{"ok": true}' if status < 300 else b'{"error": {"code": "test", "message": "sink"}}'
                )
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.bodies)

    def wait_for(self, predicate: Any, timeout: float = 30.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            events = self.events()
            if predicate(events):
                return events
            time.sleep(0.05)
        return self.events()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
