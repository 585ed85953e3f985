"""Job names, following the OpenLineage Spark integration's conventions (pure functions).

- the application job is the normalised application name (``spark.openlineage.appName`` or
  ``spark.app.name``): ``"HR Payroll"`` → ``hr_payroll``, ``"myApp"`` → ``my_app``;
- a Spark SQL execution is ``<app>.<action>.<output>``: ``hr_payroll.execute_insert_into_hadoop_fs_relation_command.employee_attendance``
  (``<output>`` is left out when ``spark.openlineage.jobName.appendDatasetName=false`` or when the execution has no output).
"""

from __future__ import annotations

import re

# The OpenLineage Spark integration's CAMEL_TO_SNAKE_CASE rule (io.openlineage.spark...NameNormalizer):
# an optional separator followed by an upper-case letter that starts a word, or a letter/digit after a separator.
_CAMEL_TO_SNAKE = re.compile(r"[\s\-_]?((?<=.)[A-Z](?=[a-z\s\-_])|(?<=[^A-Z])[A-Z]|((?<=[\s\-_])[a-z\d]))")
_NOT_NAME = re.compile(r"[^0-9a-zA-Z_.]+")


def normalize_name(name: str) -> str:
    """``"HR Payroll"`` → ``hr_payroll``; ``"employeeAttendance"`` → ``employee_attendance``."""
    snake = _CAMEL_TO_SNAKE.sub(r"_\1", name.strip()).lower()
    snake = _NOT_NAME.sub("_", snake)
    return re.sub(r"_+", "_", snake).strip("_") or "spark_application"


def application_job_name(app_name: str) -> str:
    return normalize_name(app_name)


def execution_job_name(app_name: str, action: str, output_name: str | None, *, append_dataset_name: bool = True) -> str:
    """``<app>.<action>.<output>`` (dots in the output name become underscores, as in OpenLineage)."""
    parts = [application_job_name(app_name), normalize_name(action)]
    if append_dataset_name and output_name:
        parts.append(_NOT_NAME.sub("_", output_name.replace(".", "_")).strip("_").lower() or "output")
    return ".".join(parts)
