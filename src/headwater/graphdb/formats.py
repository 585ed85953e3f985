"""Writers of the exported graph (:mod:`headwater.graph.export`'s elements) in graph databases' load formats.

Contract: each writer takes the elements (vertices first, then edges) and writes files into a folder,
returning the paths written; nothing is read from or written to the store. The formats
(docs/graph-export.md):

- ``neptune-opencypher``: Amazon Neptune's openCypher bulk-load CSV — ``nodes.csv`` with ``:ID``,
  ``:LABEL`` and typed property columns (``name:String``, ``validFrom:DateTime`` …), ``relationships.csv``
  with ``:ID``, ``:START_ID``, ``:END_ID``, ``:TYPE`` and typed properties;
- ``neptune-gremlin``: Neptune's Gremlin bulk-load CSV — ``vertices.csv`` (``~id``, ``~label``, typed
  columns with ``Date`` for times) and ``edges.csv`` (``~id``, ``~from``, ``~to``, ``~label``, typed columns);
- ``graphml``: GraphML with TinkerPop's ``labelV``/``labelE`` keys (``graph.graphml``);
- ``cypher``: idempotent openCypher statements, one per line (``graph.cypher``: ``MERGE`` by ``id``, then
  ``SET`` the properties), for Neo4j, Memgraph, FalkorDB or Neptune.

An empty CSV cell means "no property" (an open interval has no ``validTo``), as both Neptune formats read it.
Times are written twice: ``validFrom``/``validTo`` as ISO 8601 UTC with milliseconds (Neptune's DateTime/Date
precision) and ``validFromUs``/``validToUs`` as exact event-time microseconds (Long), what as-of queries
compare.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from xml.etree import ElementTree as ET

from headwater.graph.export import PROPERTY_TYPES, Edge, Element, PropValue, Vertex
from headwater.model.nodeid import node_kind
from headwater.model.times import from_micros, iso_millis

FORMATS = ("neptune-opencypher", "neptune-gremlin", "graphml", "cypher")

TIME_PROPS = ("validFrom", "validTo")
MICROS_PROPS = ("validFromUs", "validToUs")


def time_text(micros: int | None) -> str | None:
    return None if micros is None else iso_millis(from_micros(micros))


def properties(element: Element) -> dict[str, PropValue]:
    """An element's properties as every format writes them: its own, then the interval in both forms."""
    return {
        **element.props,
        "validFrom": time_text(element.valid_from),
        "validTo": time_text(element.valid_to),
        "validFromUs": element.valid_from,
        "validToUs": element.valid_to,
    }


def _prop_type(name: str) -> str:
    if name in TIME_PROPS:
        return "DateTime"
    if name in MICROS_PROPS:
        return "Long"
    return PROPERTY_TYPES[name]


def _columns(elements: Sequence[Element]) -> list[str]:
    seen: dict[str, None] = {}
    for e in elements:
        for name in e.props:
            seen.setdefault(name, None)
    return [*sorted(seen), *TIME_PROPS, *MICROS_PROPS]


def _cell(value: PropValue) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def split(elements: Iterable[Element]) -> tuple[list[Vertex], list[Edge]]:
    vertices: list[Vertex] = []
    edges: list[Edge] = []
    for e in elements:
        (vertices if isinstance(e, Vertex) else edges).append(e)  # type: ignore[arg-type]
    return vertices, edges


def _cells(element: Element, columns: list[str]) -> list[str]:
    props = properties(element)
    return [_cell(props.get(c)) for c in columns]


def _write_csv(path: Path, header: list[str], rows: Iterable[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _write_neptune(
    elements: Iterable[Element],
    folder: Path,
    files: tuple[str, str],
    keys: tuple[list[str], list[str]],
    typed: Callable[[str], str],
) -> list[Path]:
    """Neptune's bulk-load CSV pair: a vertex file (id, label) and an edge file (id, from, to, label), each
    property column typed in its header. Both of Neptune's formats have this shape; they differ in the file
    names, the system column names and the type names."""
    vertices, edges = split(elements)
    v_cols = _columns(vertices)
    e_cols = _columns(edges)
    v_path = _write_csv(
        folder / files[0],
        [*keys[0], *(f"{c}:{typed(c)}" for c in v_cols)],
        ([v.id, v.label, *_cells(v, v_cols)] for v in vertices),
    )
    e_path = _write_csv(
        folder / files[1],
        [*keys[1], *(f"{c}:{typed(c)}" for c in e_cols)],
        ([e.id, e.source, e.target, e.label, *_cells(e, e_cols)] for e in edges),
    )
    return [v_path, e_path]


def write_neptune_opencypher(elements: Iterable[Element], folder: Path) -> list[Path]:
    keys = ([":ID", ":LABEL"], [":ID", ":START_ID", ":END_ID", ":TYPE"])
    return _write_neptune(elements, folder, ("nodes.csv", "relationships.csv"), keys, _prop_type)


def _gremlin_type(name: str) -> str:
    return "Date" if name in TIME_PROPS else _prop_type(name)


def write_neptune_gremlin(elements: Iterable[Element], folder: Path) -> list[Path]:
    keys = (["~id", "~label"], ["~id", "~from", "~to", "~label"])
    return _write_neptune(elements, folder, ("vertices.csv", "edges.csv"), keys, _gremlin_type)


_GRAPHML_TYPES = {"String": "string", "Long": "long", "Bool": "boolean", "Double": "double", "DateTime": "string"}
_GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"


def write_graphml(elements: Iterable[Element], folder: Path) -> list[Path]:
    vertices, edges = split(elements)
    root = ET.Element("graphml", xmlns=_GRAPHML_NS)
    keys: dict[tuple[str, str], str] = {}

    def key(domain: str, name: str, type_: str) -> str:
        found = keys.get((domain, name))
        if found is None:
            found = keys[(domain, name)] = f"{domain[0]}_{name}"
            ET.SubElement(root, "key", id=found, attrib={"for": domain, "attr.name": name, "attr.type": type_})
        return found

    key("node", "labelV", "string")
    key("edge", "labelE", "string")
    for c in _columns(vertices):
        key("node", c, _GRAPHML_TYPES[_prop_type(c)])
    for c in _columns(edges):
        key("edge", c, _GRAPHML_TYPES[_prop_type(c)])
    graph = ET.SubElement(root, "graph", id="headwater", edgedefault="directed")

    def data(parent: ET.Element, domain: str, name: str, value: PropValue) -> None:
        if value is not None:
            ET.SubElement(parent, "data", key=keys[(domain, name)]).text = _cell(value)

    for v in vertices:
        node = ET.SubElement(graph, "node", id=v.id)
        data(node, "node", "labelV", v.label)
        for name, value in properties(v).items():
            data(node, "node", name, value)
    for e in edges:
        edge = ET.SubElement(graph, "edge", id=e.id, source=e.source, target=e.target)
        data(edge, "edge", "labelE", e.label)
        for name, value in properties(e).items():
            data(edge, "edge", name, value)
    path = folder / "graph.graphml"
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return [path]


def cypher_literal(value: PropValue) -> str:
    """A Cypher literal: strings as JSON strings (Cypher's escapes are JSON's: \\\\, \\", \\n, \\uXXXX)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def _map(props: dict[str, PropValue]) -> str:
    return "{" + ", ".join(f"`{k}`: {cypher_literal(v)}" for k, v in props.items()) + "}"


def label_of(node_id: str) -> str:
    """The vertex label of a node id (every edge end is a Headwater node id)."""
    label = _LABELS.get(node_kind(node_id))
    if label is None:
        raise ValueError(f"not a node id: {node_id!r}")
    return label


_LABELS = {"dataset": "Dataset", "datasetField": "Column", "job": "Job", "run": "Run"}


def cypher_statement(element: Element) -> str:
    """One idempotent statement: MERGE the element by id, then SET its properties (nulls remove them)."""
    props = _map(properties(element))
    if isinstance(element, Vertex):
        return f"MERGE (n:{element.label} {{id: {cypher_literal(element.id)}}}) SET n += {props};"
    return (
        f"MATCH (a:{label_of(element.source)} {{id: {cypher_literal(element.source)}}}) "
        f"MATCH (b:{label_of(element.target)} {{id: {cypher_literal(element.target)}}}) "
        f"MERGE (a)-[r:{element.label} {{id: {cypher_literal(element.id)}}}]->(b) SET r += {props};"
    )


def write_cypher(elements: Iterable[Element], folder: Path) -> list[Path]:
    vertices, edges = split(elements)
    path = folder / "graph.cypher"
    with path.open("w", encoding="utf-8") as f:
        for v in vertices:
            f.write(cypher_statement(v) + "\n")
        for e in edges:
            f.write(cypher_statement(e) + "\n")
    return [path]


WRITERS = {
    "neptune-opencypher": write_neptune_opencypher,
    "neptune-gremlin": write_neptune_gremlin,
    "graphml": write_graphml,
    "cypher": write_cypher,
}


def write(format_: str, elements: Iterable[Element], folder: Path) -> list[Path]:
    """Write ``elements`` in ``format_`` (one of :data:`FORMATS`) into ``folder`` (made if missing)."""
    writer = WRITERS.get(format_)
    if writer is None:
        raise ValueError(f"unknown format {format_!r}; choose one of {', '.join(FORMATS)}")
    folder.mkdir(parents=True, exist_ok=True)
    return writer(elements, folder)
