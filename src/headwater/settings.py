"""Every server setting in one table: name, default, environment variable, help.

Settings are resolved in this order, first hit wins:

1. a value given on the command line (``headwater serve --db ...``);
2. the environment variable named in the table (``HEADWATER_DB=...``);
3. the default in the table.

``docs/settings.md`` documents each row; a test fails when a setting is missing there.
Settings are read once into an immutable :class:`Settings` object that is passed
explicitly to the parts that need it: there is no global configuration state.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    env: str
    help: str
    type: type = str


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "data_dir", "~/.headwater", "HEADWATER_DATA_DIR", "Folder for the embedded store, spool files and demo data."
    ),
    Setting(
        "db",
        "",
        "HEADWATER_DB",
        "Store URL: sqlite:///path/to/file.db or postgresql://user:pass@host/db. "
        "Empty means sqlite:///<data_dir>/headwater.db. A SQLite store is that file and its event log beside it "
        "(file.events.db).",
    ),
    Setting("host", "127.0.0.1", "HEADWATER_HOST", "Interface `headwater serve` listens on."),
    Setting(
        "port",
        5000,
        "HEADWATER_PORT",
        "Port `headwater serve` listens on (Marquez's default, so Marquez clients work unchanged).",
        int,
    ),
    Setting(
        "write_tokens",
        "",
        "HEADWATER_WRITE_TOKENS",
        "Comma-separated bearer tokens allowed to POST events. Empty: ingest needs no token.",
    ),
    Setting(
        "read_tokens",
        "",
        "HEADWATER_READ_TOKENS",
        "Comma-separated bearer tokens allowed to read. Empty: reads need no token. Write tokens can always read.",
    ),
    Setting(
        "public_projects",
        "",
        "HEADWATER_PUBLIC_PROJECTS",
        "Comma-separated catalog projects every reader reads as a viewer member of them (their inventory, "
        "subscriptions and audit), signed in or not: a demo or a sandbox. Empty: none.",
    ),
    Setting(
        "datazone_access_keys",
        "",
        "HEADWATER_DATAZONE_ACCESS_KEYS",
        "Comma-separated ACCESS_KEY_ID:SECRET_ACCESS_KEY pairs: the DataZone lineage API (/v2/domains/...) checks "
        "each request's AWS SigV4 signature against them. Empty: DataZone requests are not authenticated "
        "(unless write/read tokens are set: then they need a bearer token).",
    ),
    Setting(
        "max_body_bytes",
        16 * 1024 * 1024,
        "HEADWATER_MAX_BODY_BYTES",
        "Largest request body accepted, after gzip decompression.",
        int,
    ),
    Setting(
        "max_batch_events", 10_000, "HEADWATER_MAX_BATCH_EVENTS", "Most events accepted in one batch request.", int
    ),
    Setting(
        "max_json_depth",
        64,
        "HEADWATER_MAX_JSON_DEPTH",
        "Deepest nesting of JSON arrays and objects accepted inside one event; deeper answers 422.",
        int,
    ),
    Setting(
        "max_string_length",
        1_048_576,
        "HEADWATER_MAX_STRING_LENGTH",
        "Longest JSON string (characters) accepted anywhere in an event, keys included; longer answers 422.",
        int,
    ),
    Setting(
        "max_array_length",
        100_000,
        "HEADWATER_MAX_ARRAY_LENGTH",
        "Most items of one JSON array inside an event (schema fields, inputs, ...); more answer 422.",
        int,
    ),
    Setting(
        "max_object_keys",
        10_000,
        "HEADWATER_MAX_OBJECT_KEYS",
        "Most keys of one JSON object inside an event (facets, column-lineage fields, ...); more answer 422.",
        int,
    ),
    Setting(
        "max_name_bytes",
        512,
        "HEADWATER_MAX_NAME_BYTES",
        "Longest name (UTF-8 bytes) of a dataset or job (namespace and name together) and of a field; longer "
        "answers 422. At most 512, so every accepted name fits PostgreSQL's index rows.",
        int,
    ),
    Setting(
        "max_gzip_members",
        1_000,
        "HEADWATER_MAX_GZIP_MEMBERS",
        "Most concatenated members of a gzip body; more answer 413.",
        int,
    ),
    Setting(
        "max_search_length",
        1_000,
        "HEADWATER_MAX_SEARCH_LENGTH",
        "Longest search text (q=) in characters; longer answers 400.",
        int,
    ),
    Setting(
        "validation",
        "lenient",
        "HEADWATER_VALIDATION",
        "lenient: an event whose core (event type, run id, job and dataset names, a readable eventTime, the facets "
        "the graph is derived from) is valid is stored as sent, its other schema problems kept as warnings; "
        "strict: every schema problem answers 422.",
    ),
    Setting(
        "allowed_hosts",
        "",
        "HEADWATER_ALLOWED_HOSTS",
        "Comma-separated host names the server answers to (the Host header), besides localhost, 127.0.0.1 "
        "and [::1] when bound to a loopback address. Empty and bound to another address: any host.",
    ),
    Setting(
        "max_graph_nodes",
        5_000,
        "HEADWATER_MAX_GRAPH_NODES",
        "Most nodes a lineage or impact answer returns before it is cut and marked truncated.",
        int,
    ),
    Setting(
        "graph_adjacency",
        "on",
        "HEADWATER_GRAPH_ADJACENCY",
        "on (default): each server process keeps the dataset/job edges in memory (~45 MB for 100,000 datasets, "
        "~0.45 GB for 1,000,000) and up to ~150 MB of node shapes, and walks lineage there: deep lineage p50 and "
        "p99 lower than the store path's (docs/bench-graph.md); off: every answer reads the store (the same "
        "answers, slower; no memory kept).",
    ),
    Setting(
        "classify_rules",
        "",
        "HEADWATER_CLASSIFY_RULES",
        "Classification rules: a JSON object of tag -> regular expression searched in column names, e.g. "
        '{"PII": "(?i)ssn|email|phone"} (docs/classify.md).',
    ),
    Setting(
        "classify_aggregation_stops",
        "",
        "HEADWATER_CLASSIFY_AGGREGATION_STOPS",
        "Comma-separated tags that do not flow through an aggregation (SUM, MAX...); * for every tag. "
        "Masking (hashes, counts) stops every tag.",
    ),
    Setting(
        "projector_wait",
        60.0,
        "HEADWATER_PROJECTOR_WAIT",
        "Longest (seconds) a call waits for the background projector: a read waiting to see earlier writes, "
        "an ingest waiting while the graph is far behind the log. A read that could not catch up answers "
        "with the graph as it is and says so in its Headwater-Graph-Behind header.",
        float,
    ),
    Setting(
        "workers",
        1,
        "HEADWATER_WORKERS",
        "Server processes `headwater serve` runs on its port (uvicorn workers); above 1 needs a PostgreSQL store "
        "(docs/deploy.md).",
        int,
    ),
    Setting(
        "parse_processes",
        1,
        "HEADWATER_PARSE_PROCESSES",
        "Worker processes that parse and validate large ingest bodies (from 256 kB: a batch of ten Spark events, "
        "or one very wide event), so the server's own process keeps the appends and the graph's derivation and "
        "both use a core; per server process. 0: parse every body in the server's process.",
        int,
    ),
    Setting(
        "projector",
        "process",
        "HEADWATER_PROJECTOR",
        "Where the graph is derived from the event log: process (default): a process of its own, started, "
        "restarted if it dies, and stopped by the server, so the acknowledgements and the derivation use two "
        "cores; thread: a thread of the server's process (one process, one core) (docs/store.md).",
    ),
    Setting(
        "retention_days",
        "",
        "HEADWATER_RETENTION_DAYS",
        "Rolling retention window in days (a positive number): every hour the server prunes raw events and "
        "finished runs older than that, as `headwater db prune` does (docs/deploy.md). Empty: keep everything.",
    ),
    Setting(
        "ready_max_lag",
        60.0,
        "HEADWATER_READY_MAX_LAG",
        "Seconds the graph may be behind the log (the oldest event not yet derived has waited that long) before "
        "GET /readyz answers 503.",
        float,
    ),
    Setting(
        "log_format",
        "text",
        "HEADWATER_LOG_FORMAT",
        "text: log lines for people; json: one JSON object per line (time, level, logger, message) for a log "
        "collector.",
    ),
)

# A column-lineage edge's index row holds a job, two datasets and two fields: five names of at most
# this many bytes stay under PostgreSQL's B-tree limit (about 2,700 bytes per index row).
MAX_NAME_BYTES = 512

SETTINGS_BY_NAME: Mapping[str, Setting] = {s.name: s for s in SETTINGS}


class SettingError(ValueError):
    """A setting has a value that cannot be used; the message names the setting and its source."""


@dataclass(frozen=True)
class Settings:
    values: Mapping[str, Any] = field(default_factory=dict)

    if TYPE_CHECKING:  # what the type checker reads; at run time __getattr__ answers from ``values``
        # typed reads: begin (one per row of SETTINGS; tests/test_settings_typed.py keeps them equal)
        @property
        def data_dir(self) -> str: ...
        @property
        def db(self) -> str: ...
        @property
        def host(self) -> str: ...
        @property
        def port(self) -> int: ...
        @property
        def write_tokens(self) -> str: ...
        @property
        def read_tokens(self) -> str: ...
        @property
        def public_projects(self) -> str: ...
        @property
        def datazone_access_keys(self) -> str: ...
        @property
        def max_body_bytes(self) -> int: ...
        @property
        def max_batch_events(self) -> int: ...
        @property
        def max_json_depth(self) -> int: ...
        @property
        def max_string_length(self) -> int: ...
        @property
        def max_array_length(self) -> int: ...
        @property
        def max_object_keys(self) -> int: ...
        @property
        def max_name_bytes(self) -> int: ...
        @property
        def max_gzip_members(self) -> int: ...
        @property
        def max_search_length(self) -> int: ...
        @property
        def validation(self) -> str: ...
        @property
        def allowed_hosts(self) -> str: ...
        @property
        def max_graph_nodes(self) -> int: ...
        @property
        def graph_adjacency(self) -> str: ...
        @property
        def classify_rules(self) -> str: ...
        @property
        def classify_aggregation_stops(self) -> str: ...
        @property
        def projector_wait(self) -> float: ...
        @property
        def workers(self) -> int: ...
        @property
        def parse_processes(self) -> int: ...
        @property
        def projector(self) -> str: ...
        @property
        def retention_days(self) -> str: ...
        @property
        def ready_max_lag(self) -> float: ...
        @property
        def log_format(self) -> str: ...

        # typed reads: end

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def data_path(self) -> Path:
        return Path(os.path.expanduser(str(self.values["data_dir"])))

    @property
    def db_url(self) -> str:
        db = str(self.values["db"])
        if db:
            return db
        return f"sqlite:///{self.data_path / 'headwater.db'}"

    @property
    def allowed_host_set(self) -> frozenset[str]:
        return frozenset(h.lower() for h in _tokens(self.values["allowed_hosts"]))

    @property
    def write_token_set(self) -> frozenset[str]:
        return _tokens(self.values["write_tokens"])

    @property
    def read_token_set(self) -> frozenset[str]:
        return _tokens(self.values["read_tokens"])

    @property
    def public_project_set(self) -> frozenset[str]:
        return _tokens(self.values["public_projects"])

    @property
    def datazone_keys(self) -> dict[str, str]:
        """The DataZone API's SigV4 keys: access key id → secret access key."""
        return _key_pairs(self.values["datazone_access_keys"])


def _tokens(raw: str) -> frozenset[str]:
    return frozenset(t.strip() for t in str(raw).split(",") if t.strip())


def _key_pairs(raw: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in str(raw).split(","):
        key_id, sep, secret = item.strip().partition(":")
        if item.strip() and (not sep or not key_id.strip() or not secret.strip()):
            raise SettingError(
                "setting 'datazone_access_keys' holds ACCESS_KEY_ID:SECRET_ACCESS_KEY pairs separated by commas; "
                f"{key_id.strip() or '(empty)'!r} has no secret"
            )
        if item.strip():
            pairs[key_id.strip()] = secret.strip()
    return pairs


def _convert(setting: Setting, raw: Any, source: str) -> Any:
    if setting.type is int:
        try:
            return int(raw)
        except (TypeError, ValueError):
            raise SettingError(f"setting {setting.name!r} from {source} must be a whole number, got {raw!r}") from None
    if setting.type is float:
        try:
            value = float(raw)
        except (TypeError, ValueError):
            value = float("nan")
        if not value > 0 or value == float("inf"):
            raise SettingError(f"setting {setting.name!r} from {source} must be a positive number, got {raw!r}")
        return value
    return str(raw)


def retention_days(raw: Any) -> float | None:
    """The ``retention_days`` setting as a number of days (None: keep everything)."""
    text = str(raw).strip()
    if not text:
        return None
    try:
        days = float(text)
    except ValueError:
        days = float("nan")
    if not days > 0 or days == float("inf"):
        raise SettingError(f"setting 'retention_days' must be a positive number of days or empty, got {raw!r}")
    return days


def load_settings(
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Resolve every setting: ``overrides`` (command line) > environment > default."""
    env = os.environ if environ is None else environ
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    unknown = set(overrides) - set(SETTINGS_BY_NAME)
    if unknown:
        raise SettingError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for s in SETTINGS:
        if s.name in overrides:
            values[s.name] = _convert(s, overrides[s.name], "the command line")
        elif env.get(s.env):
            values[s.name] = _convert(s, env[s.env], f"environment variable {s.env}")
        else:
            values[s.name] = s.default
    if int(values["max_name_bytes"]) > MAX_NAME_BYTES:
        raise SettingError(
            f"setting 'max_name_bytes' must be at most {MAX_NAME_BYTES} (PostgreSQL's index rows "
            f"hold a few names together), got {values['max_name_bytes']!r}"
        )
    if values["validation"] not in ("strict", "lenient"):
        raise SettingError(f"setting 'validation' must be 'strict' or 'lenient', got {values['validation']!r}")
    if values["graph_adjacency"] not in ("on", "off"):
        raise SettingError(f"setting 'graph_adjacency' must be 'on' or 'off', got {values['graph_adjacency']!r}")
    if values["projector"] not in ("thread", "process"):
        raise SettingError(f"setting 'projector' must be 'thread' or 'process', got {values['projector']!r}")
    if values["log_format"] not in ("text", "json"):
        raise SettingError(f"setting 'log_format' must be 'text' or 'json', got {values['log_format']!r}")
    _key_pairs(values["datazone_access_keys"])  # a malformed pair fails at start, naming the setting
    retention_days(values["retention_days"])  # a bad window fails at start, naming the setting
    if int(values["parse_processes"]) < 0:
        raise SettingError(
            f"setting 'parse_processes' must be 0 (parse in the server's process) or more, "
            f"got {values['parse_processes']!r}"
        )
    for s in SETTINGS:
        if s.type is int and s.name not in ("port", "parse_processes") and int(values[s.name]) < 1:
            raise SettingError(f"setting {s.name!r} must be a positive whole number, got {values[s.name]!r}")
    return Settings(values)
