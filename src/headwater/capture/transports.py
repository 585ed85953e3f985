"""Building the openlineage-python transport the agent sends through.

The agent never re-implements a transport: HTTP, file, Kafka, composite, ... all come from
openlineage-python's transport factory. Two adjustments, both documented in docs/capture.md:

- HTTP retries: openlineage-python retries a failed POST up to 5 times with backoff *inside* one
  ``emit``; the agent has its own retry with backoff over a durable spool, so unless the user
  configured ``retry`` explicitly the transport is built with ``retry.total = 0`` (one attempt, fail fast).
- console: openlineage-python's ConsoleTransport logs at INFO, which is invisible under Python's default
  logging; the agent's :class:`StreamTransport` prints one JSON line per event to stderr instead.
- HTTP environment read once: ``requests`` looks at the process environment on every POST (every ``*_proxy``
  variable and ``no_proxy``, ``~/.netrc``, ``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE``), a walk over the whole
  environment per event. The agent resolves these once, for the one URL the transport posts to, when the
  transport is built: the session it gives the transport carries the resolved proxies and netrc credentials and
  does not read the environment again (``trust_env`` off); a CA bundle named there becomes the transport's
  ``verify``. Requests go where they went before; a change to the environment after capture started is not seen.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import IO, Any

from openlineage.client.serde import Serde
from openlineage.client.transport import Transport, get_default_factory
from openlineage.client.transport.transport import Config

from headwater.capture.config import AgentConfig

log = logging.getLogger(__name__)


class StreamConfig(Config):
    pass


class StreamTransport(Transport):
    """Prints each event as one JSON line on a stream (stderr by default): the ``console`` transport."""

    kind = "console"
    config_class = StreamConfig

    def __init__(self, config: StreamConfig | None = None, stream: IO[str] | None = None) -> None:
        self._stream = stream

    def emit(self, event: Any) -> None:
        stream = self._stream or sys.stderr
        stream.write(Serde.to_json(event) + "\n")
        stream.flush()


def _openlineage_config_present(environ: Mapping[str, str]) -> bool:
    """Does openlineage-python's own lookup find a transport (config file, OPENLINEAGE__* or OPENLINEAGE_URL)?"""
    from openlineage.client import OpenLineageClient

    if environ.get("OPENLINEAGE_URL") or environ.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true":
        return True
    if any(k.startswith("OPENLINEAGE__TRANSPORT") for k in environ):
        return True
    return OpenLineageClient._find_yaml_config_path() is not None


def build_transport(config: AgentConfig, environ: Mapping[str, str] | None = None) -> Transport:
    """The transport for ``config`` following the lookup order in :mod:`headwater.capture.config`."""
    env = os.environ if environ is None else environ
    if config.transport is not None:
        transport = _from_dict(dict(config.transport))
    elif _openlineage_config_present(env):
        from openlineage.client import OpenLineageClient

        transport = OpenLineageClient().transport
    else:
        transport = _from_dict({"type": "http", "url": config.fallback_url})
    return _adjust(transport, user_retry=bool(config.transport and "retry" in config.transport))


def _from_dict(spec: dict[str, Any]) -> Transport:
    if spec.get("type") == "console":
        return StreamTransport()
    if spec.get("type") == "http" and "retry" not in spec:
        spec["retry"] = {"total": 0}
    return get_default_factory().create(spec)


def _adjust(transport: Transport, *, user_retry: bool) -> Transport:
    from openlineage.client.transport.console import ConsoleTransport
    from openlineage.client.transport.http import HttpTransport

    if isinstance(transport, ConsoleTransport):
        return StreamTransport()
    if isinstance(transport, HttpTransport) and not user_retry:
        transport.config.retry = {**transport.config.retry, "total": 0}
    if type(transport) is HttpTransport and transport.config.session is None:
        _environment_once(transport)
    return transport


def _environment_once(transport: Any) -> None:
    """Give an openlineage-python ``HttpTransport`` a session that does not read the environment per POST: what
    ``requests`` would read there (proxies honouring ``no_proxy``, netrc credentials, a CA bundle) is resolved
    now with ``requests``' own functions, for the URL the transport posts to. Left as it is when that fails."""
    from urllib.parse import urljoin

    import requests
    from requests.utils import get_environ_proxies, get_netrc_auth

    try:
        url = urljoin(transport.url, transport.endpoint)
        session = requests.Session()
        session.trust_env = False
        session.proxies.update(get_environ_proxies(url))
        netrc = get_netrc_auth(url)
        if netrc:
            session.auth = netrc
        if transport.verify is True:
            bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
            if bundle:
                transport.verify = bundle
        transport.session = session  # the transport mounts its retry adapter on it
    except Exception as exc:  # noqa: BLE001 - the transport then reads the environment per POST, as requests does
        log.debug("headwater: HTTP environment not resolved once: %s", exc)


def accepts_plain(transport: Transport) -> bool:
    """Does ``transport`` do nothing with an event but ``Serde.to_json(event)``? Then it may be given the event
    in plain form (:mod:`headwater.capture.plain`: the same bytes, serialised ~3x faster). Exact classes only —
    a subclass may read the event — and not the file transport in debug mode without append (it names each
    file after the event's job and type). Kafka, composite, custom transports get the event objects."""
    from openlineage.client.transport.file import FileTransport
    from openlineage.client.transport.http import HttpTransport

    kind = type(transport)
    if kind is StreamTransport or kind is HttpTransport:
        return True
    if kind is FileTransport:
        config = transport.config  # type: ignore[attr-defined]
        return bool(config.append) or not bool(config.debug_mode)
    return False


def describe(transport: Transport) -> str:
    """A short, secret-free description for log lines: ``http http://127.0.0.1:5000/api/v1/lineage``."""
    from openlineage.client.transport.file import FileTransport
    from openlineage.client.transport.http import HttpTransport

    if isinstance(transport, HttpTransport):
        return f"http {transport.url.rstrip('/')}/{transport.endpoint.lstrip('/')}"
    if isinstance(transport, FileTransport):
        return f"file {transport.config.log_file_path}"
    return str(getattr(transport, "kind", type(transport).__name__))
