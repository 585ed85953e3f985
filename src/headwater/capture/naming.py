"""Job names, as the OpenLineage Spark integration builds them (pure functions).

- the application job is the normalised application name (``spark.openlineage.appName`` or ``spark.app.name``),
  by the integration's ``NameNormalizer``: ``"HR Payroll"`` → ``hr_payroll``, ``"myApp"`` → ``my_app``,
  acronyms stay whole (``"JDBCRelationApplication"`` → ``jdbc_relation_application``, ``"RDD"`` → ``rdd``);
- a Spark SQL execution is ``<app>.<action>.<suffix>`` (``JobNameBuilder``): ``<action>`` the normalised
  ``nodeName`` of the executed physical root, ``<suffix>`` what the output's command names
  (:func:`headwater.capture.lineage.build.job_suffix`: the last two path segments, ``database_table``, a V2
  identifier...) with dots made underscores, and nothing when the command names none or
  ``spark.openlineage.jobName.appendDatasetName=false``.

``spark.headwater.jobName.style=headwater`` keeps Headwater's earlier names instead (:data:`HEADWATER_STYLE`):
the integration's older CAMEL_TO_SNAKE_CASE application rule and the output's short name (last path
component or table name without database).
"""

from __future__ import annotations

import re
import unicodedata

OPENLINEAGE_STYLE = "openlineage"
HEADWATER_STYLE = "headwater"
STYLES = (OPENLINEAGE_STYLE, HEADWATER_STYLE)

_EDGE_NON_WORD_START = re.compile(r"^[^\w]+", re.ASCII)
_EDGE_NON_WORD_END = re.compile(r"[^\w]+$", re.ASCII)
_LOWER_UPPER = re.compile(r"([a-z])([A-Z])")
_WORD_START = re.compile(r"(?<!^)([A-Z])([a-z])")
_DIGIT_UPPER = re.compile(r"(\d)([A-Z])")
_NON_ALNUM = re.compile(r"[^a-zA-Z0-9]+")


def normalize(text: str | None) -> str:
    """The integration's ``NameNormalizer.normalize``: ``"MyXMLBasedApplication"`` → ``my_xml_based_application``."""
    if not text:
        return ""
    trimmed = _EDGE_NON_WORD_END.sub("", _EDGE_NON_WORD_START.sub("", text))
    decomposed = unicodedata.normalize("NFKD", trimmed)
    plain = "".join(ch for ch in decomposed if not unicodedata.category(ch).startswith("M"))
    words = _DIGIT_UPPER.sub(r"\1 \2", _WORD_START.sub(r" \1\2", _LOWER_UPPER.sub(r"\1 \2", plain)))
    return _NON_ALNUM.sub("_", words.lower())


# Headwater's earlier rule (the integration's older CAMEL_TO_SNAKE_CASE), kept for jobName.style=headwater
_CAMEL_TO_SNAKE = re.compile(r"[\s\-_]?((?<=.)[A-Z](?=[a-z\s\-_])|(?<=[^A-Z])[A-Z]|((?<=[\s\-_])[a-z\d]))")
_NOT_NAME = re.compile(r"[^0-9a-zA-Z_.]+")


def normalize_name(name: str) -> str:
    """Headwater's earlier rule: ``"HR Payroll"`` → ``h_r_payroll`` (``jobName.style=headwater``)."""
    snake = _CAMEL_TO_SNAKE.sub(r"_\1", name.strip()).lower()
    snake = _NOT_NAME.sub("_", snake)
    return re.sub(r"_+", "_", snake).strip("_") or "spark_application"


def application_job_name(app_name: str, style: str = OPENLINEAGE_STYLE) -> str:
    if style == HEADWATER_STYLE:
        return normalize_name(app_name)
    return normalize(app_name) or "spark_application"


def execution_job_name(
    app_name: str,
    action: str,
    suffix: str | None,
    *,
    append_dataset_name: bool = True,
    style: str = OPENLINEAGE_STYLE,
    replace_dot_with_underscore: bool = False,
) -> str:
    """``<app>.<action>.<suffix>``. ``suffix``: the job-name suffix of the output (OpenLineage style) or its
    short name (Headwater style); dots in it become underscores, as in the integration."""
    if style == HEADWATER_STYLE:
        parts = [application_job_name(app_name, style), normalize_name(action)]
        if append_dataset_name and suffix:
            parts.append(_NOT_NAME.sub("_", suffix.replace(".", "_")).strip("_").lower() or "output")
        return ".".join(parts)
    command = normalize(action)
    if replace_dot_with_underscore:
        command = command.replace(".", "_")
    parts = [application_job_name(app_name, style)]
    if command:
        parts.append(command)
    if append_dataset_name and suffix:
        parts.append(suffix.replace(".", "_"))
    return ".".join(parts)
