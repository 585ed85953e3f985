"""The agent's configuration: the OpenLineage Spark integration's keys, read from the SparkConf.

Everything here is a pure function of two mappings, the SparkConf (``spark.openlineage.*`` and
``spark.headwater.*`` keys) and the process environment, so it is tested without Spark.
Where the transport comes from, first hit wins (docs/capture.md, "Configuration"):

1. ``spark.openlineage.transport.type`` (+ ``.url``, ``.endpoint``, ``.auth.*``, ``.compression``,
   ``.timeoutInMillis``, ``.location``, ``.headers.*``, or any other key of an openlineage-python
   transport) in the SparkConf — ``--conf`` on spark-submit, EMR/Glue/Dataproc configurations;
2. openlineage-python's own lookup (``OpenLineageClient()`` with no arguments): ``OPENLINEAGE_CONFIG``,
   ``./openlineage.yml``, ``~/.openlineage/openlineage.yml``, ``OPENLINEAGE__TRANSPORT__*``,
   ``OPENLINEAGE_URL`` / ``OPENLINEAGE_API_KEY`` / ``OPENLINEAGE_ENDPOINT``;
3. a local Headwater server: ``HEADWATER_URL`` (set by ``headwater run --url``), else
   ``http://127.0.0.1:5000`` (``HEADWATER_PORT`` changes the port).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PREFIX = "spark.openlineage."
TRANSPORT_PREFIX = PREFIX + "transport."
DEFAULT_NAMESPACE = "default"
DEFAULT_HEADWATER_URL = "http://127.0.0.1:5000"


class ConfigError(ValueError):
    """A configuration value cannot be used; the message names the key and what is wrong."""


@dataclass(frozen=True)
class AgentConfig:
    """Everything the agent needs to know, resolved once per tracked SparkSession."""

    namespace: str = DEFAULT_NAMESPACE
    app_name: str | None = None  # spark.openlineage.appName (overrides spark.app.name)
    parent_job_namespace: str | None = None  # spark.openlineage.parentJobNamespace
    parent_job_name: str | None = None  # spark.openlineage.parentJobName
    parent_run_id: str | None = None  # spark.openlineage.parentRunId
    root_parent_job_namespace: str | None = None  # spark.openlineage.rootParentJobNamespace
    root_parent_job_name: str | None = None  # spark.openlineage.rootParentJobName
    root_parent_run_id: str | None = None  # spark.openlineage.rootParentRunId
    disabled_facets: frozenset[str] = frozenset()  # spark.openlineage.facets.disabled
    dataset_lineage_enabled: bool = False  # spark.openlineage.columnLineage.datasetLineageEnabled
    append_dataset_name: bool = True  # spark.openlineage.jobName.appendDatasetName
    replace_dot_with_underscore: bool = False  # spark.openlineage.jobName.replaceDotWithUnderscore
    job_name_style: str = "openlineage"  # spark.headwater.jobName.style: openlineage | headwater
    emit_read_only: bool = True  # spark.headwater.emitReadOnly: report executions that only read
    disabled: bool = False  # spark.openlineage.disabled
    rdd_events_disabled: bool = False  # spark.openlineage.filter.rddEventsDisabled
    job_tags: tuple[tuple[str, str, str], ...] = ()  # spark.openlineage.job.tags (key, value, source)
    run_tags: tuple[tuple[str, str, str], ...] = ()  # spark.openlineage.run.tags
    job_owners: tuple[tuple[str, str], ...] = ()  # spark.openlineage.job.owners.<type> = <name>: (name, type)
    captured_properties: tuple[str, ...] = ("spark.app.name", "spark.master")  # spark.openlineage.capturedProperties
    # spark.openlineage.dataset.namespaceResolvers.<name>.{type,hosts,regex,matchingGroup,schema}
    namespace_resolvers: tuple[tuple[str, str, tuple[str, ...], str | None, str | None, str | None], ...] = ()
    transport: Mapping[str, Any] | None = None  # from spark.openlineage.transport.*; None = openlineage-python lookup
    fallback_url: str = DEFAULT_HEADWATER_URL  # used when nothing else is configured
    spool_dir: Path = field(default_factory=lambda: Path("~/.headwater/spool").expanduser())
    queue_size: int = 1000  # spark.headwater.queueSize
    flush_timeout: float = 10.0  # spark.headwater.flushTimeoutSeconds
    nesting_grace: float = 2.0  # spark.headwater.nesting.graceSeconds
    # a streaming query's RUNNING events: at most one per this many seconds (its micro-batches are summarised)
    stream_progress_interval: float = 60.0  # spark.headwater.streaming.progressIntervalSeconds
    spool_max_bytes: int = 256 * 1024 * 1024  # spark.headwater.spool.maxBytes
    emit_without_output: bool = False  # spark.headwater.emitWithoutOutput
    debug_fail_capture: bool = False  # spark.headwater.debug.failCapture (tests only)
    debug_stats: str | None = None  # spark.headwater.debug.stats: "true" (log) or a JSON file path
    debug_tracemalloc: bool = False  # spark.headwater.debug.tracemalloc: heap peaks in those stats
    # the script's text in the sourceCode job facet, cut at this many bytes (0: not sent; the facet is also
    # switched off by spark.openlineage.facets.sourceCode.disabled=true)
    source_code_max_bytes: int = 65536  # spark.headwater.sourceCode.maxBytes
    # the spark.logicalPlan run facet: off unless spark.openlineage.facets.spark.logicalPlan.disabled=false (as in
    # the integration); a plan whose JSON is larger than this is left out
    logical_plan: bool = False
    logical_plan_max_bytes: int = 262144  # spark.headwater.logicalPlan.maxBytes
    # spark.openlineage.facets.custom_environment_variables (the integration's key; its docs call it
    # spark.openlineage.facets.variables): environment variables reported in the environment-properties run facet
    environment_variables: tuple[str, ...] = ()

    @property
    def parent(self) -> tuple[str, str, str] | None:
        """(namespace, name, runId) of the application run's parent, when all three are known."""
        if self.parent_job_name and self.parent_run_id:
            return (self.parent_job_namespace or self.namespace, self.parent_job_name, self.parent_run_id)
        return None

    @property
    def root_parent(self) -> tuple[str, str, str] | None:
        if self.root_parent_job_name and self.root_parent_run_id:
            return (
                self.root_parent_job_namespace or self.namespace,
                self.root_parent_job_name,
                self.root_parent_run_id,
            )
        return None


def _bool(conf: Mapping[str, str], key: str, default: bool) -> bool:
    raw = conf.get(key)
    if raw is None or raw == "":
        return default
    value = str(raw).strip().lower()
    if value in ("true", "1", "yes", "on"):
        return True
    if value in ("false", "0", "no", "off"):
        return False
    raise ConfigError(f"{key} must be true or false, got {raw!r}")


def _number(conf: Mapping[str, str], key: str, default: float, kind: type = float) -> Any:
    raw = conf.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"{key} must be a {'whole ' if kind is int else ''}number, got {raw!r}") from None
    if value < 0:
        raise ConfigError(f"{key} must not be negative, got {raw!r}")
    return value


def _facet_list(raw: str | None) -> frozenset[str]:
    """``[spark_unknown;spark.logicalPlan]`` (OpenLineage's form) or ``a,b`` → ``{"spark_unknown", ...}``."""
    if not raw:
        return frozenset()
    text = raw.strip().strip("[]")
    return frozenset(p.strip() for p in text.replace(",", ";").split(";") if p.strip())


def _disabled_facets(conf: Mapping[str, str]) -> frozenset[str]:
    """``spark.openlineage.facets.disabled`` (the deprecated list) plus every ``spark.openlineage.facets.<name>.disabled
    = true`` (the current form; ``false`` re-enables a facet the list names)."""
    names = set(_facet_list(conf.get(PREFIX + "facets.disabled")))
    head, tail = PREFIX + "facets.", ".disabled"
    for key, value in conf.items():
        if key.startswith(head) and key.endswith(tail) and len(key) > len(head) + len(tail):
            facet = key[len(head) : -len(tail)]
            if str(value).strip().lower() == "true":
                names.add(facet)
            elif str(value).strip().lower() == "false":
                names.discard(facet)
    return frozenset(names)


def parse_tags(raw: str | None) -> tuple[tuple[str, str, str], ...]:
    """``spark.openlineage.job.tags`` / ``run.tags``: ``key:value[:source]`` separated by ``;`` (a lone ``label``
    is ``label:true``; source defaults to ``CONFIG``; ``\\:`` and ``\\;`` escape), as the integration's
    TagsDeserializer reads them."""
    if not raw:
        return ()
    text = raw.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = text.replace("\\:", "\x01").replace("\\;", "\x02")
    out: list[tuple[str, str, str]] = []
    for item in text.split(";"):
        parts = [p.replace("\x01", ":").replace("\x02", ";").strip() for p in item.split(":")]
        if not parts or not parts[0]:
            continue
        key = parts[0]
        value = parts[1] if len(parts) > 1 and parts[1] else "true"
        source = parts[2] if len(parts) > 2 and parts[2] else "CONFIG"
        out.append((key, value, source))
    return tuple(out)


_RESOLVER_PREFIX = PREFIX + "dataset.namespaceResolvers."


def _list(raw: str) -> tuple[str, ...]:
    text = raw.strip().strip("[]")
    return tuple(p.strip().strip("'\"") for p in re.split(r"[;,]", text) if p.strip().strip("'\""))


def _namespace_resolvers(
    conf: Mapping[str, str],
) -> tuple[tuple[str, str, tuple[str, ...], str | None, str | None, str | None], ...]:
    """``(name, type, hosts, regex, matchingGroup, schema)`` per configured resolver, by name."""
    by_name: dict[str, dict[str, str]] = {}
    for key, value in conf.items():
        if key.startswith(_RESOLVER_PREFIX) and "." in key[len(_RESOLVER_PREFIX) :]:
            name, _, prop = key[len(_RESOLVER_PREFIX) :].rpartition(".")
            by_name.setdefault(name, {})[prop] = value
    out = []
    for name in sorted(by_name):
        props = by_name[name]
        kind = props.get("type", "")
        if kind not in ("hostList", "pattern", "patternGroup"):
            raise ConfigError(f"{_RESOLVER_PREFIX}{name}.type must be hostList, pattern or patternGroup, not {kind!r}")
        out.append(
            (
                name,
                kind,
                _list(props.get("hosts", "")),
                props.get("regex") or None,
                props.get("matchingGroup") or None,
                props.get("schema") or None,
            )
        )
    return tuple(out)


def _set_path(target: dict[str, Any], path: list[str], value: Any) -> None:
    for part in path[:-1]:
        nxt = target.setdefault(part, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"{TRANSPORT_PREFIX}{'.'.join(path)} conflicts with another transport key")
        target = nxt
    target[path[-1]] = value


def transport_from_conf(conf: Mapping[str, str]) -> dict[str, Any] | None:
    """``spark.openlineage.transport.*`` → an openlineage-python transport config dict (or None).

    Keys keep their OpenLineage Spark names and are mapped to openlineage-python's where they differ:
    ``timeoutInMillis`` → ``timeout`` (seconds), ``location`` (file) → ``log_file_path`` with ``append``,
    ``headers.X`` → ``custom_headers``. Dotted keys nest (``auth.apiKey`` → ``{"auth": {"apiKey": ...}}``).
    """
    raw: dict[str, Any] = {}
    for key, value in conf.items():
        if key.startswith(TRANSPORT_PREFIX):
            _set_path(raw, key[len(TRANSPORT_PREFIX) :].split("."), value)
    # the OpenLineage Spark integration's legacy form: spark.openlineage.url / .endpoint / .apiKey
    if not raw and conf.get(PREFIX + "url"):
        raw = {"type": "http", "url": conf[PREFIX + "url"]}
        if conf.get(PREFIX + "endpoint"):
            raw["endpoint"] = conf[PREFIX + "endpoint"]
        if conf.get(PREFIX + "apiKey"):
            raw["auth"] = {"type": "api_key", "apiKey": conf[PREFIX + "apiKey"]}
    if not raw:
        return None
    kind = str(raw.get("type", "")).strip().lower()
    if not kind:
        raise ConfigError(
            f"{TRANSPORT_PREFIX}type is missing (one of http, file, console, or a transport class), "
            f"but other {TRANSPORT_PREFIX}* keys are set: {', '.join(sorted(raw))}"
        )
    raw["type"] = kind
    if kind == "http":
        if not raw.get("url"):
            raise ConfigError(f"{TRANSPORT_PREFIX}url is required when {TRANSPORT_PREFIX}type=http")
        if "timeoutInMillis" in raw:
            millis = _number(raw, "timeoutInMillis", 5000.0)
            raw["timeout"] = float(millis) / 1000.0
            del raw["timeoutInMillis"]
        elif "timeout" in raw:
            raw["timeout"] = float(_number(raw, "timeout", 5.0))
        if "headers" in raw:
            raw["custom_headers"] = raw.pop("headers")
        auth = raw.get("auth")
        if isinstance(auth, dict) and auth.get("type") in ("api_key", "apiKey") and not auth.get("apiKey"):
            raise ConfigError(f"{TRANSPORT_PREFIX}auth.apiKey is required when {TRANSPORT_PREFIX}auth.type=api_key")
        if isinstance(auth, dict) and auth.get("type") == "apiKey":
            auth["type"] = "api_key"
        if raw.get("compression") in ("none", ""):
            del raw["compression"]
    elif kind == "file":
        location = raw.pop("location", None) or raw.get("log_file_path")
        if not location:
            raise ConfigError(f"{TRANSPORT_PREFIX}location is required when {TRANSPORT_PREFIX}type=file")
        raw["log_file_path"] = str(location)
        raw["append"] = _bool(raw, "append", True)
    return raw


_URL_NAMED = {"app_name", "api_key", "timeout", "disabled"}


def url_settings(conf: Mapping[str, str]) -> dict[str, str]:
    """The settings the integration's ``UrlParser`` reads out of an HTTP transport's URL (``ArgumentParser``: for
    ``transport.type=http``), which win over the same keys set directly: ``.../api/v1/namespaces/<ns>/jobs/<job>/
    runs/<id>`` → namespace, parent job and run, endpoint ``/api/v1/lineage``; the query's ``app_name``, ``api_key``,
    ``timeout`` and ``disabled`` → ``appName``, the API key, the timeout, ``facets.disabled``; the URL itself is cut
    to ``scheme://host:port`` plus the other query parameters (sent as they are, the integration's ``urlParams``).
    A URL with neither such a path nor a query is left as it is."""
    from urllib.parse import parse_qsl, urlencode, urlsplit

    key = TRANSPORT_PREFIX + "url"
    url = conf.get(key)
    if url is None and not any(k.startswith(TRANSPORT_PREFIX) for k in conf) and conf.get(PREFIX + "url"):
        key, url = PREFIX + "url", conf[PREFIX + "url"]
    elif (conf.get(TRANSPORT_PREFIX + "type") or "").strip().lower() != "http":
        return {}
    if not url:
        return {}
    parts = urlsplit(url)
    elements = parts.path.split("/")

    def element(name: str, index: int) -> str | None:
        return elements[index + 1] if len(elements) > index + 1 and elements[index] == name else None

    api = element("api", 1)
    if not parts.query and api is None:
        return {}
    out: dict[str, str] = {}
    for name, index, setting in (
        ("namespaces", 3, "namespace"),
        ("jobs", 5, "parentJobName"),
        ("runs", 7, "parentRunId"),
    ):
        value = element(name, index)
        if value:
            out[PREFIX + setting] = value
    legacy = key == PREFIX + "url"  # spark.openlineage.url: the legacy keys beside it (transport_from_conf)
    if api is not None:
        out[(PREFIX if legacy else TRANSPORT_PREFIX) + "endpoint"] = f"/api/{api}/lineage"
    rest: list[tuple[str, str]] = []
    for name, value in parse_qsl(parts.query):
        lowered = name.lower()
        if lowered not in _URL_NAMED:
            rest.append((name, value))
        elif not value.strip():
            continue
        elif lowered == "app_name":
            out[PREFIX + "appName"] = value
        elif lowered == "timeout":
            if not legacy:
                out[TRANSPORT_PREFIX + "timeout"] = value
        elif lowered == "disabled":
            out[PREFIX + "facets.disabled"] = value
        elif legacy:
            out[PREFIX + "apiKey"] = value
        else:
            out[TRANSPORT_PREFIX + "auth.apiKey"] = value
            out[TRANSPORT_PREFIX + "auth.type"] = "api_key"
    out[key] = f"{parts.scheme}://{parts.netloc}" + (f"?{urlencode(rest)}" if rest else "")
    return out


def load_config(conf: Mapping[str, str], environ: Mapping[str, str] | None = None) -> AgentConfig:
    """Resolve the agent's configuration from a SparkConf mapping and the environment."""
    extra = url_settings(conf)
    if extra:
        conf = {**conf, **extra}
    env = os.environ if environ is None else environ
    data_dir = Path(env.get("HEADWATER_DATA_DIR") or "~/.headwater").expanduser()
    spool = conf.get("spark.headwater.spool.dir") or env.get("HEADWATER_SPOOL_DIR") or str(data_dir / "spool")
    port = env.get("HEADWATER_PORT") or "5000"
    fallback = env.get("HEADWATER_URL") or f"http://127.0.0.1:{port}"
    return AgentConfig(
        namespace=conf.get(PREFIX + "namespace") or env.get("OPENLINEAGE_NAMESPACE") or DEFAULT_NAMESPACE,
        app_name=conf.get(PREFIX + "appName") or None,
        parent_job_namespace=conf.get(PREFIX + "parentJobNamespace") or None,
        parent_job_name=conf.get(PREFIX + "parentJobName") or None,
        parent_run_id=conf.get(PREFIX + "parentRunId") or None,
        root_parent_job_namespace=conf.get(PREFIX + "rootParentJobNamespace") or None,
        root_parent_job_name=conf.get(PREFIX + "rootParentJobName") or None,
        root_parent_run_id=conf.get(PREFIX + "rootParentRunId") or None,
        disabled_facets=_disabled_facets(conf),
        dataset_lineage_enabled=_bool(conf, PREFIX + "columnLineage.datasetLineageEnabled", False),
        append_dataset_name=_bool(conf, PREFIX + "jobName.appendDatasetName", True),
        replace_dot_with_underscore=_bool(conf, PREFIX + "jobName.replaceDotWithUnderscore", False),
        job_name_style=_choice(conf, "spark.headwater.jobName.style", ("openlineage", "headwater"), "openlineage"),
        emit_read_only=_bool(conf, "spark.headwater.emitReadOnly", True),
        disabled=_bool(conf, PREFIX + "disabled", False),
        rdd_events_disabled=_bool(conf, PREFIX + "filter.rddEventsDisabled", False),
        job_tags=parse_tags(conf.get(PREFIX + "job.tags")),
        run_tags=parse_tags(conf.get(PREFIX + "run.tags")),
        job_owners=tuple(
            (v, k[len(PREFIX + "job.owners.") :])
            for k, v in sorted(conf.items())
            if k.startswith(PREFIX + "job.owners.") and v
        ),
        captured_properties=tuple(
            p.strip()
            for p in (conf.get(PREFIX + "capturedProperties") or "spark.master,spark.app.name").split(",")
            if p.strip()
        ),
        namespace_resolvers=_namespace_resolvers(conf),
        transport=transport_from_conf(conf),
        fallback_url=fallback,
        spool_dir=Path(spool).expanduser(),
        queue_size=max(1, _number(conf, "spark.headwater.queueSize", 1000, int)),
        flush_timeout=_number(conf, "spark.headwater.flushTimeoutSeconds", 10.0),
        nesting_grace=max(0.0, _number(conf, "spark.headwater.nesting.graceSeconds", 2.0)),
        stream_progress_interval=max(0.0, _number(conf, "spark.headwater.streaming.progressIntervalSeconds", 60.0)),
        spool_max_bytes=_number(conf, "spark.headwater.spool.maxBytes", 256 * 1024 * 1024, int),
        emit_without_output=_bool(conf, "spark.headwater.emitWithoutOutput", False),
        debug_fail_capture=_bool(conf, "spark.headwater.debug.failCapture", False),
        debug_stats=_debug_stats(conf.get("spark.headwater.debug.stats")),
        debug_tracemalloc=_bool(conf, "spark.headwater.debug.tracemalloc", False),
        source_code_max_bytes=_number(conf, "spark.headwater.sourceCode.maxBytes", 65536, int),
        logical_plan=_logical_plan_enabled(conf),
        logical_plan_max_bytes=_number(conf, "spark.headwater.logicalPlan.maxBytes", 262144, int),
        environment_variables=tuple(
            sorted(
                _facet_list(conf.get(PREFIX + "facets.custom_environment_variables"))
                | _facet_list(conf.get(PREFIX + "facets.variables"))
            )
        ),
    )


LOGICAL_PLAN_FACET = "spark.logicalPlan"


def _logical_plan_enabled(conf: Mapping[str, str]) -> bool:
    """The ``spark.logicalPlan`` facet is disabled by default, as in the OpenLineage integration: on only with
    ``spark.openlineage.facets.spark.logicalPlan.disabled=false`` (and not named in ``facets.disabled``)."""
    key = f"{PREFIX}facets.{LOGICAL_PLAN_FACET}.disabled"
    if not _bool(conf, key, True):
        return LOGICAL_PLAN_FACET not in _facet_list(conf.get(PREFIX + "facets.disabled"))
    return False


def _choice(conf: Mapping[str, str], key: str, allowed: tuple[str, ...], default: str) -> str:
    raw = (conf.get(key) or "").strip().lower()
    if not raw:
        return default
    if raw not in allowed:
        raise ConfigError(f"{key} must be one of {', '.join(allowed)}, not {conf.get(key)!r}")
    return raw


def _debug_stats(raw: str | None) -> str | None:
    """``spark.headwater.debug.stats``: off when unset/false, ``true`` logs the agent's own costs, else a file path."""
    value = (raw or "").strip()
    if value.lower() in ("", "false", "0", "no", "off"):
        return None
    return "true" if value.lower() in ("true", "1", "yes", "on") else value
