"""The bootstrap that turns capture on without code changes: import hook, sitecustomize chaining, environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pyspark
import pytest

from headwater.capture.bootstrap import ENV_CAPTURE, boot_dir, conf_defaults, enabled
from headwater.cli.run import build_environment, options_to_conf

PYSPARK_LIB = Path(pyspark.__file__).parent / "python" / "lib"


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("HEADWATER_", "PYTHONPATH"))}
    return subprocess.run(
        [sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True, timeout=120
    )


CHECK = (
    "import pyspark.sql.session as s; "
    "print('PATCHED', getattr(s.SparkSession.Builder.getOrCreate, '_headwater_patched', False)); "
    "print('LOADER', type(s.__spec__.loader).__name__)"
)


def test_session_creation_is_hooked_lazily_from_site_packages() -> None:
    result = run_python(
        "import sys; print('EARLY', 'pyspark' in sys.modules); " + CHECK, {"PYTHONPATH": boot_dir(), ENV_CAPTURE: "1"}
    )
    assert result.returncode == 0, result.stderr
    assert "EARLY False" in result.stdout  # the bootstrap itself does not import PySpark
    assert "PATCHED True" in result.stdout
    assert "could not hook" not in result.stderr


def test_session_creation_is_hooked_when_pyspark_comes_from_its_zip() -> None:
    """Under spark-submit, PySpark is imported from pyspark.zip through one shared zipimporter."""
    zips = [str(PYSPARK_LIB / "pyspark.zip")] + [str(p) for p in PYSPARK_LIB.glob("py4j-*.zip")]
    result = run_python(
        CHECK + "; import pyspark.sql.functions, pyspark.sql.readwriter",
        {"PYTHONPATH": os.pathsep.join([boot_dir(), *zips]), ENV_CAPTURE: "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "LOADER zipimporter" in result.stdout
    assert "PATCHED True" in result.stdout
    assert "could not hook" not in result.stderr


def test_nothing_happens_without_the_switch() -> None:
    result = run_python(CHECK, {"PYTHONPATH": boot_dir()})
    assert result.returncode == 0, result.stderr
    assert "PATCHED False" in result.stdout


def test_a_shadowed_sitecustomize_still_runs(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['OTHER_SITECUSTOMIZE_RAN'] = 'yes'\n")
    result = run_python(
        "import os; print('OTHER', os.environ.get('OTHER_SITECUSTOMIZE_RAN'))",
        {"PYTHONPATH": os.pathsep.join([boot_dir(), str(other)]), ENV_CAPTURE: "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "OTHER yes" in result.stdout


def test_run_environment() -> None:
    env = build_environment(
        {"PYTHONPATH": "/x", "HEADWATER_CONF": json.dumps({"a": "1"})},
        url="http://h:1",
        conf={"spark.openlineage.namespace": "n"},
        command=["spark-submit", "job.py"],
        python="/venv/bin/python",
    )
    assert env["PYTHONPATH"].split(os.pathsep) == [boot_dir(), "/x"]
    assert env[ENV_CAPTURE] == "1" and env["HEADWATER_URL"] == "http://h:1"
    assert json.loads(env["HEADWATER_CONF"]) == {"a": "1", "spark.openlineage.namespace": "n"}
    assert env["PYSPARK_DRIVER_PYTHON"] == env["PYSPARK_PYTHON"] == "/venv/bin/python"
    plain = build_environment({}, url=None, conf={}, command=["python", "job.py"], python="/venv/bin/python")
    assert "PYSPARK_PYTHON" not in plain and "HEADWATER_CONF" not in plain


def test_conf_defaults_and_switches() -> None:
    assert conf_defaults({"HEADWATER_CONF": '{"spark.openlineage.namespace": "x"}'}) == {
        "spark.openlineage.namespace": "x"
    }
    assert conf_defaults({"HEADWATER_CONF": "not json"}) == {}
    assert conf_defaults({"HEADWATER_CONF": "[1]"}) == {}
    assert enabled({"HEADWATER_AUTO": "1"}) and enabled({"HEADWATER_CAPTURE": "true"})
    assert not enabled({"HEADWATER_AUTO": "0"}) and not enabled({})


def test_run_options_become_spark_conf_defaults(tmp_path: Path) -> None:
    conf = options_to_conf(
        confs=("spark.openlineage.jobName.appendDatasetName=false",),
        namespace="hr",
        app_name="nightly",
        spool_dir=str(tmp_path / "s"),
        transport="file",
        file_path=str(tmp_path / "e.ndjson"),
    )
    assert conf == {
        "spark.openlineage.jobName.appendDatasetName": "false",
        "spark.openlineage.namespace": "hr",
        "spark.openlineage.appName": "nightly",
        "spark.headwater.spool.dir": str(tmp_path / "s"),
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(tmp_path / "e.ndjson"),
    }
    assert options_to_conf(transport="http", url="http://h:1") == {
        "spark.openlineage.transport.type": "http",
        "spark.openlineage.transport.url": "http://h:1",
    }
    assert options_to_conf(transport="console") == {"spark.openlineage.transport.type": "console"}
    with pytest.raises(click.UsageError, match="--transport file needs --file"):
        options_to_conf(transport="file")
    with pytest.raises(click.BadParameter, match="expected KEY=VALUE"):
        options_to_conf(confs=("novalue",))
