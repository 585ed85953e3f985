"""Configuration: every supported key of the OpenLineage Spark integration, and the transport lookup order."""

from __future__ import annotations

from pathlib import Path

import pytest
from openlineage.client.transport.file import FileTransport
from openlineage.client.transport.http import HttpCompression, HttpTransport

from headwater.capture.config import ConfigError, load_config, transport_from_conf
from headwater.capture.transports import StreamTransport, build_transport

CLEAN_ENV = {"HOME": "/nonexistent-home"}


def test_defaults_without_any_configuration(tmp_path: Path) -> None:
    config = load_config({}, {"HEADWATER_DATA_DIR": str(tmp_path)})
    assert config.namespace == "default"
    assert config.transport is None
    assert config.fallback_url == "http://127.0.0.1:5000"
    assert config.spool_dir == tmp_path / "spool"
    assert config.dataset_lineage_enabled is False
    assert config.disabled_facets == frozenset()
    assert config.parent is None
    assert config.append_dataset_name is True


def test_http_transport_keys() -> None:
    conf = {
        "spark.openlineage.transport.type": "http",
        "spark.openlineage.transport.url": "http://lineage:5000",
        "spark.openlineage.transport.endpoint": "api/v1/lineage",
        "spark.openlineage.transport.auth.type": "api_key",
        "spark.openlineage.transport.auth.apiKey": "s3cret",
        "spark.openlineage.transport.compression": "gzip",
        "spark.openlineage.transport.timeoutInMillis": "2500",
        "spark.openlineage.transport.headers.X-Team": "payroll",
    }
    spec = transport_from_conf(conf)
    assert spec == {
        "type": "http",
        "url": "http://lineage:5000",
        "endpoint": "api/v1/lineage",
        "auth": {"type": "api_key", "apiKey": "s3cret"},
        "compression": "gzip",
        "timeout": 2.5,
        "custom_headers": {"X-Team": "payroll"},
    }
    transport = build_transport(load_config(conf, CLEAN_ENV), CLEAN_ENV)
    assert isinstance(transport, HttpTransport)
    assert transport.url == "http://lineage:5000"
    assert transport.timeout == 2.5
    assert transport.compression == HttpCompression.GZIP
    assert transport.config.auth.get_bearer() == "Bearer s3cret"
    assert transport.config.custom_headers == {"X-Team": "payroll"}
    assert transport.config.retry["total"] == 0  # the agent retries through its spool, not inside emit


def test_file_and_console_transports(tmp_path: Path) -> None:
    conf = {
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(tmp_path / "events.ndjson"),
    }
    transport = build_transport(load_config(conf, CLEAN_ENV), CLEAN_ENV)
    assert isinstance(transport, FileTransport)
    assert transport.config.log_file_path == str(tmp_path / "events.ndjson")
    assert transport.config.append is True
    console = build_transport(load_config({"spark.openlineage.transport.type": "console"}, CLEAN_ENV), CLEAN_ENV)
    assert isinstance(console, StreamTransport)


def test_legacy_url_key() -> None:
    spec = transport_from_conf({"spark.openlineage.url": "http://old:5000", "spark.openlineage.apiKey": "k"})
    assert spec == {"type": "http", "url": "http://old:5000", "auth": {"type": "api_key", "apiKey": "k"}}


def test_job_and_parent_keys() -> None:
    config = load_config(
        {
            "spark.openlineage.namespace": "hr",
            "spark.openlineage.appName": "Payroll Nightly",
            "spark.openlineage.parentJobNamespace": "airflow",
            "spark.openlineage.parentJobName": "payroll_dag.run_spark",
            "spark.openlineage.parentRunId": "01890000-0000-7000-8000-000000000009",
            "spark.openlineage.rootParentJobNamespace": "airflow",
            "spark.openlineage.rootParentJobName": "payroll_dag",
            "spark.openlineage.rootParentRunId": "01890000-0000-7000-8000-000000000001",
            "spark.openlineage.facets.disabled": "[spark_properties;processing_engine]",
            "spark.openlineage.columnLineage.datasetLineageEnabled": "true",
            "spark.openlineage.jobName.appendDatasetName": "false",
        },
        CLEAN_ENV,
    )
    assert config.namespace == "hr"
    assert config.app_name == "Payroll Nightly"
    assert config.parent == ("airflow", "payroll_dag.run_spark", "01890000-0000-7000-8000-000000000009")
    assert config.root_parent == ("airflow", "payroll_dag", "01890000-0000-7000-8000-000000000001")
    assert config.disabled_facets == frozenset({"spark_properties", "processing_engine"})
    assert config.dataset_lineage_enabled is True
    assert config.append_dataset_name is False


def test_parent_namespace_defaults_to_job_namespace() -> None:
    config = load_config(
        {
            "spark.openlineage.namespace": "hr",
            "spark.openlineage.parentJobName": "p",
            "spark.openlineage.parentRunId": "01890000-0000-7000-8000-000000000009",
        },
        CLEAN_ENV,
    )
    assert config.parent == ("hr", "p", "01890000-0000-7000-8000-000000000009")


def test_headwater_keys(tmp_path: Path) -> None:
    config = load_config(
        {
            "spark.headwater.spool.dir": str(tmp_path / "s"),
            "spark.headwater.queueSize": "7",
            "spark.headwater.flushTimeoutSeconds": "2.5",
            "spark.headwater.spool.maxBytes": "1000",
            "spark.headwater.emitWithoutOutput": "true",
        },
        CLEAN_ENV,
    )
    assert (
        config.spool_dir,
        config.queue_size,
        config.flush_timeout,
        config.spool_max_bytes,
        config.emit_without_output,
    ) == (tmp_path / "s", 7, 2.5, 1000, True)


@pytest.mark.parametrize(
    ("conf", "message"),
    [
        ({"spark.openlineage.transport.url": "http://x"}, "spark.openlineage.transport.type is missing"),
        ({"spark.openlineage.transport.type": "http"}, "spark.openlineage.transport.url is required"),
        ({"spark.openlineage.transport.type": "file"}, "spark.openlineage.transport.location is required"),
        (
            {
                "spark.openlineage.transport.type": "http",
                "spark.openlineage.transport.url": "http://x",
                "spark.openlineage.transport.auth.type": "api_key",
            },
            "auth.apiKey is required",
        ),
        ({"spark.openlineage.columnLineage.datasetLineageEnabled": "maybe"}, "must be true or false, got 'maybe'"),
        ({"spark.headwater.queueSize": "many"}, "spark.headwater.queueSize must be a whole number"),
        (
            {
                "spark.openlineage.transport.type": "http",
                "spark.openlineage.transport.url": "http://x",
                "spark.openlineage.transport.timeoutInMillis": "-1",
            },
            "must not be negative",
        ),
    ],
)
def test_bad_values_say_which_key(conf: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        load_config(conf, CLEAN_ENV)


def test_openlineage_url_environment_is_used_through_openlineage_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for key in ("OPENLINEAGE_CONFIG", "OPENLINEAGE_DISABLED"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("OPENLINEAGE_URL", "http://from-env:5000")
    monkeypatch.setenv("OPENLINEAGE_API_KEY", "envkey")
    import os

    transport = build_transport(load_config({}), os.environ)
    assert isinstance(transport, HttpTransport)
    assert transport.url == "http://from-env:5000"
    assert transport.config.auth.get_bearer() == "Bearer envkey"


def test_openlineage_yml_is_used_through_openlineage_python(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config_file = tmp_path / "ol.yml"
    config_file.write_text(
        "transport:\n  type: file\n  log_file_path: " + str(tmp_path / "from-yml.ndjson") + "\n  append: true\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OPENLINEAGE_URL", raising=False)
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(config_file))
    import os

    transport = build_transport(load_config({}), os.environ)
    assert isinstance(transport, FileTransport)
    assert transport.config.log_file_path == str(tmp_path / "from-yml.ndjson")


def test_spark_conf_wins_over_openlineage_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENLINEAGE_URL", "http://from-env:5000")
    import os

    transport = build_transport(
        load_config(
            {"spark.openlineage.transport.type": "http", "spark.openlineage.transport.url": "http://from-conf:5000"}
        ),
        os.environ,
    )
    assert isinstance(transport, HttpTransport) and transport.url == "http://from-conf:5000"


def test_fallback_is_the_local_headwater_server(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "HEADWATER_URL": "http://127.0.0.1:5999"}
    transport = build_transport(load_config({}, env), env)
    assert isinstance(transport, HttpTransport) and transport.url == "http://127.0.0.1:5999"
    env = {"HOME": str(tmp_path), "HEADWATER_PORT": "5123"}
    transport = build_transport(load_config({}, env), env)
    assert isinstance(transport, HttpTransport) and transport.url == "http://127.0.0.1:5123"
