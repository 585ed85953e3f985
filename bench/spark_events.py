"""Realistic OpenLineage events for the ingest benchmark: what the OpenLineage Spark integration sends.

Each *pipeline* is one Spark application writing ``jobs`` tables; every run of a job is a START and
a COMPLETE RunEvent with a ``parent`` facet (the application run), ``processing_engine``,
``spark_properties`` (custom), ``jobType`` and ``sql`` job facets, two inputs and one output with
50-column ``schema`` facets, ``dataSource`` and ``symlinks`` facets, a ``columnLineage`` facet on the
output (every output column from one or two input columns, DIRECT with IDENTITY/TRANSFORMATION
subtypes, plus INDIRECT dataset-level FILTER/JOIN dependencies) and ``outputStatistics``.
A Spark COMPLETE event of this shape is about 25 kB of JSON.

Pure and deterministic given the seed; event times grow within a pipeline, so a client that sends
one pipeline's events in order sends them the way a Spark driver does.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.24.2/integration/spark"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
_F = "https://openlineage.io/spec/facets"
SCHEMA_FACET = f"{_F}/1-1-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
LINEAGE_FACET = f"{_F}/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
SOURCE_FACET = f"{_F}/1-0-1/DatasourceDatasetFacet.json#/$defs/DatasourceDatasetFacet"
SYMLINKS_FACET = f"{_F}/1-0-1/SymlinksDatasetFacet.json#/$defs/SymlinksDatasetFacet"
PARENT_FACET = f"{_F}/1-1-0/ParentRunFacet.json#/$defs/ParentRunFacet"
ENGINE_FACET = f"{_F}/1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet"
JOBTYPE_FACET = f"{_F}/2-0-3/JobTypeJobFacet.json#/$defs/JobTypeJobFacet"
SQL_FACET = f"{_F}/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet"
STATS_FACET = f"{_F}/1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet"
LIFECYCLE_FACET = f"{_F}/1-0-1/LifecycleStateChangeDatasetFacet.json#/$defs/LifecycleStateChangeDatasetFacet"
COLUMNS = 50
TYPES = ("string", "long", "double", "timestamp", "decimal(18,2)", "int", "boolean", "date")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _time(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _fields(prefix: str) -> list[dict[str, Any]]:
    return [
        {
            "name": f"{prefix}_{c:02d}",
            "type": TYPES[c % len(TYPES)],
            **({"description": f"{prefix} attribute {c}"} if c % 5 == 0 else {}),
        }
        for c in range(COLUMNS)
    ]


def _dataset(name: str, prefix: str, bucket: str) -> dict[str, Any]:
    return {
        "namespace": f"s3://{bucket}",
        "name": name,
        "facets": {
            "schema": {"_producer": PRODUCER, "_schemaURL": SCHEMA_FACET, "fields": _fields(prefix)},
            "dataSource": {
                "_producer": PRODUCER,
                "_schemaURL": SOURCE_FACET,
                "name": f"s3://{bucket}",
                "uri": f"s3://{bucket}",
            },
            "symlinks": {
                "_producer": PRODUCER,
                "_schemaURL": SYMLINKS_FACET,
                "identifiers": [
                    {"namespace": "hive://metastore:9083", "name": name.replace("/", "."), "type": "TABLE"}
                ],
            },
        },
        "inputFacets": {},
    }


def _lineage(inputs: list[dict[str, Any]], out_prefix: str, in_prefixes: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for c in range(COLUMNS):
        sources = [(inputs[0], in_prefixes[0], c)]
        if c % 3 == 0:
            sources.append((inputs[1], in_prefixes[1], (c + 7) % COLUMNS))
        fields[f"{out_prefix}_{c:02d}"] = {
            "inputFields": [
                {
                    "namespace": ds["namespace"],
                    "name": ds["name"],
                    "field": f"{p}_{f:02d}",
                    "transformations": [
                        {
                            "type": "DIRECT",
                            "subtype": "IDENTITY" if len(sources) == 1 else "TRANSFORMATION",
                            "description": "" if len(sources) == 1 else "concat",
                            "masking": False,
                        }
                    ],
                }
                for ds, p, f in sources
            ]
        }
    dataset_level = [
        {
            "namespace": inputs[1]["namespace"],
            "name": inputs[1]["name"],
            "field": f"{in_prefixes[1]}_00",
            "transformations": [{"type": "INDIRECT", "subtype": "JOIN", "description": "", "masking": False}],
        },
        {
            "namespace": inputs[0]["namespace"],
            "name": inputs[0]["name"],
            "field": f"{in_prefixes[0]}_03",
            "transformations": [{"type": "INDIRECT", "subtype": "FILTER", "description": "", "masking": False}],
        },
    ]
    return {"_producer": PRODUCER, "_schemaURL": LINEAGE_FACET, "fields": fields, "dataset": dataset_level}


class Pipeline:
    """One Spark application (``tag``) with ``jobs`` jobs; :meth:`run` makes the two events of one job run."""

    def __init__(self, tag: str, jobs: int = 8, seed: int = 11, start: datetime = T0) -> None:
        self.tag, self.jobs = tag, jobs
        self.rng = random.Random(f"{seed}:{tag}")
        self.clock = start
        self.app_run = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        self.count = 0

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def run(self) -> list[dict[str, Any]]:
        """START and COMPLETE of the next job run (jobs take turns); times move forward."""
        job = self.count % self.jobs
        self.count += 1
        tag, bucket = self.tag, f"lake-{self.tag}"
        in_a, in_b = f"raw/{tag}/src_{job:02d}_a", f"raw/{tag}/src_{job:02d}_b"
        out = f"warehouse/{tag}/table_{job:02d}"
        inputs = [_dataset(in_a, "a", bucket), _dataset(in_b, "b", bucket)]
        output = _dataset(out, "o", bucket)
        del output["inputFacets"]
        output["facets"]["columnLineage"] = _lineage(inputs, "o", ["a", "b"])
        app = f"etl_{tag}"
        job_name = f"{app}.execute_insert_into_hadoop_fs_relation_command.{out.replace('/', '_')}"
        run_id = self._uuid()
        query = (
            f"INSERT OVERWRITE TABLE {out.replace('/', '.')} SELECT "
            + ", ".join(f"a.a_{c:02d}" for c in range(COLUMNS))
            + f" FROM {in_a.replace('/', '.')} a JOIN {in_b.replace('/', '.')} b ON a.a_00 = b.b_00 WHERE a.a_03 > 0"
        )
        base: dict[str, Any] = {
            "producer": PRODUCER,
            "schemaURL": RUN_EVENT,
            "job": {
                "namespace": f"spark-{tag}",
                "name": job_name,
                "facets": {
                    "jobType": {
                        "_producer": PRODUCER,
                        "_schemaURL": JOBTYPE_FACET,
                        "processingType": "BATCH",
                        "integration": "SPARK",
                        "jobType": "SQL_JOB",
                    },
                    "sql": {"_producer": PRODUCER, "_schemaURL": SQL_FACET, "query": query},
                },
            },
            "inputs": inputs,
        }
        run_facets = {
            "parent": {
                "_producer": PRODUCER,
                "_schemaURL": PARENT_FACET,
                "run": {"runId": self.app_run},
                "job": {"namespace": f"spark-{tag}", "name": app},
            },
            "processing_engine": {
                "_producer": PRODUCER,
                "_schemaURL": ENGINE_FACET,
                "version": "3.5.3",
                "name": "spark",
                "openlineageAdapterVersion": "1.24.2",
            },
            "spark_properties": {
                "_producer": PRODUCER,
                "_schemaURL": f"{_F}/1-0-0/SparkPropertiesFacet.json",
                "properties": {"spark.master": "yarn", "spark.app.name": app},
            },
        }
        start, end = self.clock, self.clock + timedelta(seconds=30 + self.rng.randrange(60))
        self.clock = end + timedelta(seconds=1)
        started = {
            **base,
            "eventType": "START",
            "eventTime": _time(start),
            "run": {"runId": run_id, "facets": run_facets},
            "outputs": [output],
        }
        finished_output = {
            **output,
            "outputFacets": {
                "outputStatistics": {
                    "_producer": PRODUCER,
                    "_schemaURL": STATS_FACET,
                    "rowCount": self.rng.randrange(1, 10**7),
                    "size": self.rng.randrange(1, 10**10),
                }
            },
        }
        finished_output["facets"] = {
            **output["facets"],
            "lifecycleStateChange": {
                "_producer": PRODUCER,
                "_schemaURL": LIFECYCLE_FACET,
                "lifecycleStateChange": "OVERWRITE",
            },
        }
        completed = {
            **base,
            "eventType": "COMPLETE",
            "eventTime": _time(end),
            "run": {"runId": run_id, "facets": {"parent": run_facets["parent"]}},
            "outputs": [finished_output],
        }
        return [started, completed]

    def events(self, n: int) -> list[dict[str, Any]]:
        """The next ``n`` events (rounded up to whole runs), oldest first."""
        out: list[dict[str, Any]] = []
        while len(out) < n:
            out.extend(self.run())
        return out
