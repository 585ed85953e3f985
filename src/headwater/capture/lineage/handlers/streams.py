"""Structured Streaming: the sources and the sink of a streaming query, read from its plan.

The agent analyses a streaming query once, from the plan its ``StreamExecution`` keeps: the sink node
of the running plan (``WriteToMicroBatchDataSourceV1`` for V1 sinks: files, ``foreachBatch``, Kafka
V1; ``WriteToMicroBatchDataSource`` for V2 sinks: memory, Kafka, console, ``toTable`` on a V2 catalog)
over the query as the user defined it, whose leaves still carry the options they were created with
(``StreamingRelation`` for V1 sources: files of every format, tables; ``StreamingRelationV2`` for V2
sources: rate, Kafka, V2 tables). See :func:`headwater.capture.streaming.stream_plan`.

| node | names |
|---|---|
| ``StreamingRelation`` (files, any format) | the folder read, as a file dataset |
| ``StreamingRelation`` / ``StreamingRelationV2`` over a catalog table (``readStream.table``) | the table |
| ``StreamingRelationV2`` ``kafka`` | ``kafka://<first bootstrap server>`` + each subscribed topic |
| ``StreamingRelationV2`` ``rate`` / ``rate-micro-batch`` | ``rate`` + ``rate`` (Headwater's name: the spec has none) |
| ``FileStreamSink`` | the output folder |
| ``MemorySink`` | ``memory`` + the query name (the in-memory table's name) |
| Kafka sink | ``kafka://<first bootstrap server>`` + the ``topic`` option |
| ``ForeachBatchSink`` | nothing here: the batch function's own writes are the stream's outputs |
| ``toTable`` | the table |

Kafka is named from the options alone (:func:`kafka_names`), so it is named even where the connector
only runs on the cluster.
"""

from __future__ import annotations

import json
import logging

from headwater.capture.jvmtypes import JavaObject
from headwater.model.naming import kafka_dataset

from ..model import CommandInfo, RelationInfo
from .jvm import SEP, Jvm, call, guarded, option, string_list, text
from .registry import REGISTRY, Query
from .targets import catalog_table, v2_relation

log = logging.getLogger("headwater.capture.lineage")

RATE = ("rate", "rate")
MEMORY_NAMESPACE = "memory"
_FILE_FORMATS = frozenset({"json", "parquet", "csv", "text", "orc", "avro", "binaryfile", "xml"})


def kafka_names(options: dict[str, str], *, sink: bool = False) -> list[list[str]]:
    """``[namespace, name]`` of the Kafka topics a source subscribes to (``subscribe``: a comma list; ``assign``:
    JSON of topic → partitions; ``subscribePattern``: the pattern itself) or a sink writes (``topic``), by the
    naming spec. Options are matched case-insensitively; no ``kafka.bootstrap.servers``: nothing."""
    opts = {k.lower(): v for k, v in options.items()}
    servers = opts.get("kafka.bootstrap.servers", "").strip()
    if not servers:
        return []
    topics: list[str] = []
    if sink:
        if opts.get("topic"):
            topics = [opts["topic"]]
    elif opts.get("subscribe"):
        topics = [t for t in opts["subscribe"].split(",") if t.strip()]
    elif opts.get("assign"):
        try:
            assigned = json.loads(opts["assign"])
        except ValueError:
            assigned = {}
        topics = list(assigned) if isinstance(assigned, dict) else []
    elif opts.get("subscribepattern"):
        topics = [opts["subscribepattern"]]
    return [list(kafka_dataset(servers, t)) for t in topics]


def scala_map(value: JavaObject) -> dict[str, str]:
    """A Scala ``Map[String, String]`` (or a Java map) → dict with lower-case keys, in one py4j call."""
    if value is None:
        return {}
    if hasattr(value, "keySet") and not hasattr(value, "mkString"):  # java.util.Map (CaseInsensitiveStringMap)
        return {str(k).lower(): str(v) for k, v in value.items()}
    raw = str(value.mkString(SEP))
    out: dict[str, str] = {}
    for pair in raw.split(SEP) if raw else []:
        key, _, val = pair.partition(" -> ")
        out[key.lower()] = val
    return out


def _source(kind: str, options: dict[str, str], paths: list[str], cls: str) -> RelationInfo:
    """A source by its short name (``json``, ``kafka``, ``rate``, a DataSource class name) and options."""
    short = kind.rsplit(".", 1)[-1].lower()
    if short in _FILE_FORMATS or short.endswith("fileformat"):
        found = paths or ([options["path"]] if options.get("path") else [])
        return RelationInfo(kind="files", cls=cls, paths=found, format=short.removesuffix("fileformat"))
    if "kafka" in short:
        return RelationInfo(kind="dataset", cls=cls, names=kafka_names(options), format="kafka")
    if short.startswith("rate") or "ratestream" in short:
        return RelationInfo(kind="dataset", cls=cls, names=[list(RATE)], format="rate")
    return RelationInfo(kind="unknown", cls=cls, format=short)


@REGISTRY.leaf("StreamingRelation")
def _streaming_relation(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    """A V1 streaming source (``readStream.json(dir)``, ``.format("parquet").load(dir)``, ``readStream.table``)."""
    ds = leaf.dataSource()
    table = option(ds, "catalogTable")
    if table is not None:
        return catalog_table(jvm, table)
    kind = text(ds, "className") or ""
    paths = string_list(ds, "paths") or []
    return _source(kind, guarded(lambda: scala_map(ds.options()), {}), paths, name)


@REGISTRY.leaf("StreamingRelationV2")
def _streaming_relation_v2(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    """A V2 streaming source (rate, Kafka, a V2 catalog table)."""
    source = text(leaf, "sourceName") or ""
    options = guarded(lambda: scala_map(leaf.extraOptions()), {})
    info = _source(source, options, [], name)
    if info.kind == "unknown":
        catalog = option(leaf, "catalog")
        ident = option(leaf, "identifier")
        if catalog is not None and ident is not None:
            return RelationInfo(
                kind="v2", cls=name, catalog=text(catalog, "name"), table=text(ident, "toString"), format=source
            )
    return info


def _stream_options(root: JavaObject) -> dict[str, str]:
    return guarded(lambda: scala_map(root.writeOptions()), {})


def _query_name(options: dict[str, str]) -> str | None:
    return options.get("queryname") or None


@REGISTRY.command("WriteToMicroBatchDataSourceV1", query=Query.FIELD)
def _write_v1_sink(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """A V1 streaming sink: files (``FileStreamSink``), a catalog table (``toTable``), Kafka; ``foreachBatch``
    names nothing here."""
    cmd = CommandInfo(name=name, mode="Append")
    table = option(root, "catalogTable")
    sink = call(root, "sink")
    sink_class = text(sink, "getClass", "getSimpleName") or ""
    options = _stream_options(root)
    if table is not None:
        cmd.target = catalog_table(jvm, table)
    elif sink_class == "FileStreamSink":
        described = text(sink, "toString") or ""  # FileSink[<qualified path>]
        path = described[len("FileSink[") : -1] if described.startswith("FileSink[") else options.get("path")
        if path:
            cmd.target = RelationInfo(kind="files", cls=sink_class, paths=[path], format=_file_format(sink))
    elif "Kafka" in sink_class:
        cmd.target = RelationInfo(kind="dataset", cls=sink_class, names=kafka_names(options, sink=True))
    return cmd


def _file_format(sink: JavaObject) -> str | None:
    fmt = text(sink, "fileFormat", "toString") or ""
    return fmt.lower() or None


@REGISTRY.command("WriteToMicroBatchDataSource", query=Query.FIELD)
def _write_v2_sink(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """A V2 streaming sink: memory, Kafka, console, ``toTable`` on a V2 catalog."""
    cmd = CommandInfo(name=name, mode="Append")
    relation = call(root, "relation")  # Spark 3.5: Option[DataSourceV2Relation]; Spark 4: the relation
    if relation is not None and text(relation, "getClass", "getSimpleName") in ("Some", "None$"):
        relation = option(root, "relation")
    table = call(relation, "table") if relation is not None else call(root, "table")
    table_class = text(table, "getClass", "getSimpleName") or ""
    options = _stream_options(root)
    if table_class == "MemorySink":
        query_name = _query_name(options) or text(table, "name")
        if query_name:
            cmd.target = RelationInfo(kind="dataset", cls=table_class, names=[[MEMORY_NAMESPACE, query_name]])
    elif "Kafka" in table_class:
        cmd.target = RelationInfo(kind="dataset", cls=table_class, names=kafka_names(options, sink=True))
    elif relation is not None and option(relation, "identifier") is not None:  # toTable on a V2 catalog
        cmd.target = v2_relation(jvm, relation)
    return cmd
