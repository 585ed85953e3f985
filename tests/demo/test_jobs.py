"""How the demo runs the example jobs: the command a user types and a clean OpenLineage configuration."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from openlineage.client import OpenLineageClient
from openlineage.client.transport.http import HttpTransport

from headwater.demo.jobs import agent_messages_in, examples_dir, job_environment, pipeline, write_openlineage_config


def test_jobs_run_under_headwater_run(tmp_path: Path) -> None:
    first, second = pipeline(tmp_path / "data", tmp_path / "wh")
    scripts = examples_dir()
    assert first.command(scripts, "http://127.0.0.1:5999") == [
        sys.executable,
        "-m",
        "headwater",
        "run",
        "--url",
        "http://127.0.0.1:5999",
        "--namespace",
        "hr_payroll",
        "--",
        sys.executable,
        str(scripts / "employee_attendance.py"),
        "--data",
        str(tmp_path / "data"),
        "--warehouse",
        str(tmp_path / "wh"),
    ]
    assert second.script == "employee_compensation.py"
    glue, second_again = pipeline(
        tmp_path / "data",
        tmp_path / "wh",
        jdbc_args=["--jdbc-url", "jdbc:postgresql://h:1/d"],
        jdbc_env={"HR_JDBC_USER": "u"},
    )
    assert glue.script == "glue_employee_attendance.py"
    assert glue.args[:2] == ("--jdbc-url", "jdbc:postgresql://h:1/d")
    assert glue.env == {"HR_JDBC_USER": "u"}
    assert second_again == second
    _, publishing = pipeline(
        tmp_path / "data",
        tmp_path / "wh",
        publish_args=["--jdbc-url", "jdbc:postgresql://h:1/d", "--jdbc-table", "hr.t"],
        publish_env={"HR_JDBC_PASSWORD": "p"},
    )
    assert publishing.script == "employee_compensation.py"
    assert publishing.args == (
        "--data",
        str(tmp_path / "data"),
        "--warehouse",
        str(tmp_path / "wh"),
        "--jdbc-url",
        "jdbc:postgresql://h:1/d",
        "--jdbc-table",
        "hr.t",
    )
    assert publishing.env == {"HR_JDBC_PASSWORD": "p"}


def test_example_scripts_hold_no_lineage_code() -> None:
    for script in examples_dir().glob("*.py"):
        text = script.read_text()
        assert "headwater" not in text.replace("headwater run", ""), script
        assert "openlineage" not in text.lower(), script


def test_inherited_openlineage_configuration_is_dropped(tmp_path: Path) -> None:
    env = job_environment(
        {
            "PATH": "/bin",
            "OPENLINEAGE__TRANSPORT__TYPE": "console",
            "OPENLINEAGE_CONFIG": "/elsewhere.yml",
            "OPENLINEAGE_API_KEY": "secret",
        },
        lineage_url="http://127.0.0.1:5999",
        data_dir=tmp_path,
        extra={"HR_JDBC_USER": "hr"},
    )
    assert {k for k in env if k.startswith("OPENLINEAGE")} == {
        "OPENLINEAGE_URL",
        "OPENLINEAGE_NAMESPACE",
        "OPENLINEAGE_CONFIG",
    }
    assert env["OPENLINEAGE_URL"] == env["HEADWATER_URL"] == "http://127.0.0.1:5999"
    assert env["OPENLINEAGE_CONFIG"] == str(tmp_path / "openlineage.yml")
    assert env["OPENLINEAGE_NAMESPACE"] == "hr_payroll"
    assert env["HEADWATER_DATA_DIR"] == str(tmp_path)
    assert env["HR_JDBC_USER"] == "hr" and env["PATH"] == "/bin"


def test_openlineage_config_file_is_read_by_the_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_openlineage_config(tmp_path, "http://127.0.0.1:5999")
    assert json.loads(path.read_text()) == {"transport": {"type": "http", "url": "http://127.0.0.1:5999"}}
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(path))
    monkeypatch.delenv("OPENLINEAGE_URL", raising=False)
    client = OpenLineageClient()
    assert isinstance(client.transport, HttpTransport)
    assert client.transport.url == "http://127.0.0.1:5999"


def test_agent_messages_are_picked_out_of_spark_output() -> None:
    text = (
        "26/11/22 WARN NativeCodeLoader: Unable to load native-hadoop library\n"
        "[Stage 1:>   (0 + 1) / 1]\r          \rheadwater: the lineage backend refused an event (HTTP 422: ...)\n"
        "headwater: the lineage backend refused an event (HTTP 422: ...)\n"
        "headwater: could not send lineage events (ConnectError: ...); keeping them in the spool\n"
    )
    assert agent_messages_in(text) == (
        "headwater: the lineage backend refused an event (HTTP 422: ...)",
        "headwater: could not send lineage events (ConnectError: ...); keeping them in the spool",
    )
    assert agent_messages_in("nothing to see\n") == ()
