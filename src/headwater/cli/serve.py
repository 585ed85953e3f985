"""``headwater serve``: run the API and the web UI with uvicorn.

Settings come from the command line, then ``HEADWATER_*`` environment variables, then the
defaults (``headwater.settings``). Problems a user can fix (busy port, unusable store URL, bad
setting) end with one clear line and exit code 1, never a traceback.
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import urlsplit, urlunsplit

import click

from headwater.model.jsontypes import JSONObject
from headwater.settings import SETTINGS_BY_NAME, SettingError, Settings, load_settings, retention_days

if TYPE_CHECKING:
    from headwater.store.rules import GraphRules


def safe_url(url: str) -> str:
    """The store URL with any password hidden, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def _hide_password(text: str, url: str) -> str:
    password = urlsplit(url).password
    return text.replace(password, "***") if password else text


def check_port(host: str, port: int) -> None:
    """Fail early, with a clear message, when ``host:port`` cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise click.ClickException(f"port {port} is in use; pass --port (or set HEADWATER_PORT)") from None
            if exc.errno in (errno.EACCES, errno.EPERM):
                raise click.ClickException(f"no permission to listen on port {port}; pass --port above 1023") from None
            raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}; check --host") from None


def serve_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}"


def _prepare_sqlite_folder(db_url: str) -> None:
    if db_url.startswith("sqlite:///"):
        path = Path(db_url.removeprefix("sqlite:///"))
        if str(path) not in ("", ":memory:"):
            path.expanduser().parent.mkdir(parents=True, exist_ok=True)


def _tune_gc() -> None:
    """Fewer cyclic-GC passes in the server process (measured: batch ingest ~1.6x faster).

    Parsed 25 kB events are large trees of dicts; with the default thresholds (700, 10, 10) the
    collector walks them again and again while they are alive, though JSON makes no cycles.
    ``freeze`` moves everything allocated at start-up (modules, compiled schemas) out of its sight.
    """
    import gc

    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def log_config(log_format: str) -> JSONObject:
    """uvicorn's logging configuration for the ``log_format`` setting: uvicorn's own for ``text``; for ``json``,
    one JSON object per line on stderr (python-json-logger) for uvicorn's and Headwater's loggers alike."""
    from uvicorn.config import LOGGING_CONFIG

    if log_format != "json":
        return LOGGING_CONFIG
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
                "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger", "process": "pid"},
            }
        },
        "handlers": {"default": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "loggers": {
            "uvicorn": {"level": "INFO"},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"level": "INFO"},
        },
        "root": {"handlers": ["default"], "level": "WARNING"},  # headwater.*: warnings and errors
    }


# Seconds an idle keep-alive connection stays open: longer than load balancers' idle timeouts (60 s is common),
# so the balancer closes it first and never sends a request on a connection the server is closing (uvicorn's
# default of 5 s makes that race a connection reset for clients that poll every few seconds).
KEEP_ALIVE = 75

WORKER_APP = "headwater.cli.serve:worker_app"


def worker_app() -> Any:
    """The app of one ``headwater serve --workers N`` process (a uvicorn app factory, called in each worker).

    The parent put the command line's settings in the environment (``HEADWATER_*``) and migrated the
    store; each worker opens its own store (connections, background projector) and closes it on shutdown.
    """
    import atexit

    from headwater.api import create_app
    from headwater.cli._memory import bound_malloc
    from headwater.mcpserver import mount as mount_mcp
    from headwater.store import Store, projector_place

    bound_malloc()  # before the store's and the server's threads make their arenas
    settings = load_settings()
    store = Store.open(
        settings.db_url,
        projector_wait=float(settings.projector_wait),
        retention_days=retention_days(settings.retention_days),
        projector=projector_place(settings.projector),
    )
    atexit.register(store.close)  # the worker's exit (uvicorn ends it on SIGINT/SIGTERM)
    app = create_app(settings, store, bind_host=str(settings.host))
    mount_mcp(app, store, settings)  # the MCP endpoint at /mcp (docs/mcp.md)
    app.state.headwater.parse_pool.warm()  # the parse workers start now, not on the first large body
    _tune_gc()
    return app


def _run_workers(settings: Settings, workers: int, overrides: dict[str, Any]) -> None:
    """Serve with ``workers`` uvicorn processes on one socket (PostgreSQL only: they share one database)."""
    import uvicorn

    from headwater.store.engine import create_store_engine
    from headwater.store.migrate import upgrade
    from headwater.store.rules import graph_rules_of

    host, port = str(settings.host), int(settings.port)
    db_url = settings.db_url
    if not db_url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        raise click.ClickException(
            "--workers above 1 needs a PostgreSQL store (--db postgresql://...): SQLite serializes writers "
            "in one file; run one process on SQLite"
        )
    check_port(host, port)
    try:
        engine = create_store_engine(db_url)
        try:
            upgrade(engine)  # once, before the workers open the store
            with engine.connect() as conn:
                rules = graph_rules_of(conn)
        finally:
            engine.dispose()
    except Exception as exc:  # noqa: BLE001 - any failure to open the store is the user's to fix
        raise click.ClickException(
            f"cannot open the store {safe_url(db_url)}: {_hide_password(str(exc), db_url)}"
        ) from None
    for name, value in overrides.items():  # the workers read their settings as the parent resolved them
        if value is not None:
            os.environ[SETTINGS_BY_NAME[name].env] = str(value)
    _share_metrics()
    _say_rules(rules)
    click.echo(
        f"Headwater {serve_url(host, port)}  ({workers} worker processes; store: {safe_url(db_url)}; "
        f"API docs: {serve_url(host, port)}/docs)"
    )
    uvicorn.run(WORKER_APP, factory=True, workers=workers, host=host, port=port, **_server_options(settings))


def _say_rules(rules: GraphRules) -> None:
    """Warn when the graph was derived by other rules than this version's (store/rules.py): it is served as it
    is, new events derived on top of it, until ``headwater db rebuild``."""
    if rules.rebuild_needed:
        derived = "rules never recorded" if rules.graph is None else f"rules {rules.graph}"
        click.echo(
            f"warning: the graph was derived by {derived}, this version derives by rules {rules.current}: run "
            "`headwater db rebuild` (while it runs, appends wait) to derive it again (docs/store.md)",
            err=True,
        )


class _ServerOptions(TypedDict):
    log_level: str
    log_config: JSONObject
    timeout_keep_alive: int
    access_log: bool
    server_header: bool


def _server_options(settings: Settings) -> _ServerOptions:
    """uvicorn's options, the same for both ways of serving (one process, or worker processes): the logging of
    ``log_format``, the keep-alive, no access log and no ``Server`` header."""
    return {
        "log_level": "info",
        "log_config": log_config(str(settings.log_format)),
        "timeout_keep_alive": KEEP_ALIVE,
        "access_log": False,
        "server_header": False,
    }


MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus-client's multiprocess folder (headwater.api.metrics)


def _share_metrics() -> None:
    """Give the worker processes one folder for their metrics (prometheus-client's multiprocess mode), so a
    scrape of ``/metrics`` sums all of them whichever process answers; emptied at each start (the library's
    rule: a folder of a previous run would add its counts). An operator's own ``PROMETHEUS_MULTIPROC_DIR`` wins."""
    import atexit
    import shutil
    import tempfile

    if os.environ.get(MULTIPROC_ENV):
        folder = Path(os.environ[MULTIPROC_ENV])
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.db"):
            old.unlink()
        return
    folder = Path(tempfile.mkdtemp(prefix="headwater-metrics-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ[MULTIPROC_ENV] = str(folder)


def run(settings: Settings) -> None:
    """Open the store, build the app and serve it until interrupted."""
    import uvicorn

    from headwater.api import create_app
    from headwater.cli._memory import bound_malloc
    from headwater.mcpserver import mount as mount_mcp
    from headwater.store import Store, projector_place

    host, port = str(settings.host), int(settings.port)
    check_port(host, port)
    bound_malloc()  # before the store's and the server's threads make their arenas
    db_url = settings.db_url
    try:
        _prepare_sqlite_folder(db_url)
        store = Store.open(
            db_url,
            projector_wait=float(settings.projector_wait),
            retention_days=retention_days(settings.retention_days),
            projector=projector_place(settings.projector),
        )
    except Exception as exc:  # noqa: BLE001 - any failure to open the store is the user's to fix
        raise click.ClickException(
            f"cannot open the store {safe_url(db_url)}: {_hide_password(str(exc), db_url)}"
        ) from None
    try:
        app = create_app(settings, store, bind_host=host)
        mount_mcp(app, store, settings)  # the MCP endpoint at /mcp (docs/mcp.md)
        app.state.headwater.parse_pool.warm()  # the parse workers start now, not on the first large body
        _tune_gc()
        _say_rules(store.graph_rules())
        click.echo(
            f"Headwater {serve_url(host, port)}  (store: {safe_url(db_url)}; API docs: {serve_url(host, port)}/docs)"
        )
        uvicorn.run(app, host=host, port=port, **_server_options(settings))
    finally:
        close = getattr(store, "close", None)
        if callable(close):
            close()


@click.command("serve")
@click.option("--host", default=None, help="Interface to listen on [env HEADWATER_HOST; default 127.0.0.1].")
@click.option("--port", default=None, type=int, help="Port to listen on [env HEADWATER_PORT; default 5000].")
@click.option("--db", default=None, help="Store URL, sqlite:///file.db or postgresql://... [env HEADWATER_DB].")
@click.option(
    "--data-dir", default=None, help="Folder of the embedded store [env HEADWATER_DATA_DIR; default ~/.headwater]."
)
@click.option(
    "--workers",
    default=None,
    type=int,
    help="Server processes on this port, sharing one PostgreSQL store [env HEADWATER_WORKERS; default 1].",
)
def command(host: str | None, port: int | None, db: str | None, data_dir: str | None, workers: int | None) -> None:
    """Serve the HTTP API (OpenLineage ingest, graph reads, Marquez paths) and the web UI."""
    overrides: dict[str, Any] = {"host": host, "port": port, "db": db, "data_dir": data_dir, "workers": workers}
    try:
        settings = load_settings(overrides)
    except SettingError as exc:
        raise click.ClickException(str(exc)) from None
    if int(settings.workers) > 1:
        _run_workers(settings, int(settings.workers), overrides)
    else:
        run(settings)
