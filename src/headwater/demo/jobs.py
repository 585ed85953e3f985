"""The example PySpark jobs, run exactly as a user runs them: ``headwater run -- python <script> ...``.

Each job is a child process; its output (Spark's log) goes to ``<data_dir>/logs/<job>.log``.
The child gets a clean OpenLineage configuration: every ``OPENLINEAGE_*`` variable of the
caller's environment is dropped (an ``OPENLINEAGE_CONFIG`` would send the demo's lineage
elsewhere), ``OPENLINEAGE_URL`` points at the demo's server and ``OPENLINEAGE_NAMESPACE`` is
``hr_payroll``, the jobs' namespace. ``OPENLINEAGE_CONFIG`` names ``<data_dir>/openlineage.yml``
(an http transport to the demo's server), which openlineage-python's config lookup reads before
any ``~/.openlineage/openlineage.yml`` the user may have. The jobs run with the data dir as working
directory, so nothing Spark writes lands in the caller's folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from headwater.demo.checks import DemoError

JOB_NAMESPACE = "hr_payroll"  # the OpenLineage namespace of the demo's jobs
SCRIPTS = ("employee_attendance.py", "employee_compensation.py", "glue_employee_attendance.py", "hr_schemas.py")


def examples_dir() -> Path:
    """Where the HR pipeline scripts are: packaged inside the wheel, or ``examples/hr_pipeline`` of a checkout."""
    packaged = Path(str(resources.files("headwater.demo"))) / "hr_pipeline"
    checkout = Path(__file__).resolve().parents[3] / "examples" / "hr_pipeline"
    for folder in (packaged, checkout):
        if all((folder / s).is_file() for s in SCRIPTS):
            return folder
    raise DemoError(f"the HR pipeline scripts are missing: looked in {packaged} and {checkout}")


@dataclass(frozen=True)
class Job:
    """One example job: a script of examples/hr_pipeline and its arguments."""

    title: str
    script: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def log_name(self) -> str:
        return self.script.removesuffix(".py") + ".log"

    def command(self, scripts: Path, lineage_url: str, python: str = sys.executable) -> list[str]:
        """``headwater run --url <server> --namespace hr_payroll -- python <script> <args>``: what a user would type."""
        return [
            python,
            "-m",
            "headwater",
            "run",
            "--url",
            lineage_url,
            "--namespace",
            JOB_NAMESPACE,
            "--",
            python,
            str(scripts / self.script),
            *self.args,
        ]


@dataclass(frozen=True)
class JobRun:
    job: Job
    returncode: int
    seconds: float
    log_path: Path
    agent_messages: tuple[str, ...] = ()  # what the lineage agent reported in the job's output


_AGENT_MESSAGE = re.compile(r"headwater: [^\r\n]*")


def agent_messages_in(text: str, limit: int = 10) -> tuple[str, ...]:
    """The lineage agent's own messages (``headwater: ...``) in a job's output, each once, at most ``limit``."""
    found = dict.fromkeys(m.group(0).strip() for m in _AGENT_MESSAGE.finditer(text))
    return tuple(found)[:limit]


def write_openlineage_config(data_dir: Path, lineage_url: str) -> Path:
    """``<data_dir>/openlineage.yml``: openlineage-python's config file, an http transport to ``lineage_url``."""
    path = data_dir / "openlineage.yml"
    # JSON is YAML: no YAML writer needed
    path.write_text(json.dumps({"transport": {"type": "http", "url": lineage_url}}, indent=2) + "\n", encoding="utf-8")
    return path


def job_environment(
    base: Mapping[str, str], *, lineage_url: str, data_dir: Path, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: no inherited OpenLineage configuration, lineage sent to ``lineage_url``."""
    env = {k: v for k, v in base.items() if not k.startswith("OPENLINEAGE")}
    env["OPENLINEAGE_URL"] = lineage_url
    env["HEADWATER_URL"] = lineage_url  # what `headwater run --url` sets; the agent's last-resort target
    env["OPENLINEAGE_NAMESPACE"] = JOB_NAMESPACE
    env["OPENLINEAGE_CONFIG"] = str(data_dir / "openlineage.yml")
    env["HEADWATER_DATA_DIR"] = str(data_dir)  # the agent's spool lives with the demo's data
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env.update(extra or {})
    return env


def _log_tail(path: Path, lines: int = 20) -> str:
    text = path.read_text(encoding="utf-8", errors="replace").rstrip().splitlines()
    keep = [ln for ln in text if "WARN" not in ln][-lines:] or text[-lines:]
    return "\n".join("    " + ln for ln in keep)


def run_job(
    job: Job, *, data_dir: Path, lineage_url: str, scripts: Path | None = None, environ: Mapping[str, str] | None = None
) -> JobRun:
    """Run ``job`` under ``headwater run`` and wait for it; :class:`DemoError` with the log's end if it fails."""
    scripts = scripts or examples_dir()
    log_dir = data_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / job.log_name
    write_openlineage_config(data_dir, lineage_url)
    env = job_environment(
        os.environ if environ is None else environ, lineage_url=lineage_url, data_dir=data_dir, extra=job.env
    )
    started = time.monotonic()
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            job.command(scripts, lineage_url),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=data_dir,
        )
        try:
            code = proc.wait()
        except BaseException:  # Ctrl-C: the job gets it too (same process group); make sure it is gone
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise
    messages = agent_messages_in(log_path.read_text(encoding="utf-8", errors="replace"))
    run = JobRun(job, code, time.monotonic() - started, log_path, messages)
    if code != 0:
        raise DemoError(
            f"{job.title} failed (exit code {code}); its log ({log_path}) ends with:\n{_log_tail(log_path)}"
        )
    return run


def pipeline(
    data: Path,
    warehouse: Path,
    *,
    jdbc_args: Sequence[str] | None = None,
    jdbc_env: Mapping[str, str] | None = None,
    publish_args: Sequence[str] | None = None,
    publish_env: Mapping[str, str] | None = None,
) -> tuple[Job, Job]:
    """The two jobs of the HR pipeline; with ``jdbc_args`` job 1 is the Glue-style JDBC variant; with
    ``publish_args`` (``--jdbc-url ... --jdbc-table ...``) job 2 also writes its table to the warehouse database."""
    common = ("--data", str(data), "--warehouse", str(warehouse))
    if jdbc_args is None:
        first = Job("job 1: employees + attendance → employee_attendance", "employee_attendance.py", common)
    else:
        first = Job(
            "job 1 (JDBC): PostgreSQL employees + attendance → employee_attendance table",
            "glue_employee_attendance.py",
            (*jdbc_args, *common),
            dict(jdbc_env or {}),
        )
    if publish_args is None:
        second = Job(
            "job 2: adjustments + bonuses + employee_attendance → employee_compensation",
            "employee_compensation.py",
            common,
        )
    else:
        second = Job(
            "job 2: adjustments + bonuses + employee_attendance → employee_compensation → PostgreSQL",
            "employee_compensation.py",
            (*common, *publish_args),
            dict(publish_env or {}),
        )
    return first, second
