"""``headwater export graph`` loaded into a real FalkorDB; openCypher answers equal Headwater's own, now and as of
a past moment. The Neptune CSV is read by the loader rules Neptune documents (typed ``name:Type`` headers,
``:ID``/``:LABEL``/``:START_ID``/``:END_ID``/``:TYPE``, an empty cell = no property); no Gremlin server can be
installed here, so the Gremlin CSV is checked against its documented rules and against the openCypher CSV."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import falkordb
import pytest
from click.testing import CliRunner

from fixtures.stories.load import ADJ, ATT, BON, COMP, DAY1, EA, EMP, J1, J2, REP, RX, TAX, fid, incoming, story
from graphdb.falkor import FalkorServer, rows
from headwater.cli import cli
from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id as ref
from headwater.model.times import to_micros
from headwater.store import Store

NEPTUNE_TYPES = {"Bool", "Byte", "Short", "Int", "Long", "Float", "Double", "String", "DateTime"}
GREMLIN_TYPES = {"Bool", "Byte", "Short", "Int", "Long", "Float", "Double", "String", "Date"}


def cast(type_: str, text: str) -> Any:
    """A Neptune CSV cell of ``type_`` as the loader reads it (times kept as their ISO text)."""
    if type_ in ("Byte", "Short", "Int", "Long"):
        return int(text)
    if type_ in ("Float", "Double"):
        return float(text)
    if type_ == "Bool":
        assert text in ("true", "false"), text
        return text == "true"
    return text


def read_typed_csv(path: Path, system: tuple[str, ...], types: set[str]) -> list[tuple[dict[str, str], dict[str, Any]]]:
    """Rows of a Neptune CSV: the system columns, and the typed properties present (empty = absent)."""
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert tuple(header[: len(system)]) == system, header
        props = []
        for column in header[len(system) :]:
            name, _, type_ = column.partition(":")
            assert name and type_ in types, f"{path.name}: column {column!r} is not name:Type"
            props.append((name, type_))
        out = []
        for row in reader:
            assert len(row) == len(header)
            sys_part = dict(zip(system, row))
            values = {n: cast(t, v) for (n, t), v in zip(props, row[len(system) :]) if v != ""}
            out.append((sys_part, values))
        return out


def load_neptune_opencypher(graph: falkordb.Graph, folder: Path) -> None:
    """Load nodes.csv and relationships.csv as Neptune's openCypher loader reads them."""
    for sys_part, props in read_typed_csv(folder / "nodes.csv", (":ID", ":LABEL"), NEPTUNE_TYPES):
        labels = ":".join(sys_part[":LABEL"].split(";"))
        graph.query(f"CREATE (n:{labels}) SET n = $props, n.id = $id", {"props": props, "id": sys_part[":ID"]})
    for sys_part, props in read_typed_csv(
        folder / "relationships.csv", (":ID", ":START_ID", ":END_ID", ":TYPE"), NEPTUNE_TYPES
    ):
        found = graph.query(
            f"MATCH (a {{id: $a}}), (b {{id: $b}}) CREATE (a)-[r:{sys_part[':TYPE']}]->(b) "
            "SET r = $props, r.id = $id RETURN count(r)",
            {"a": sys_part[":START_ID"], "b": sys_part[":END_ID"], "props": props, "id": sys_part[":ID"]},
        )
        assert found.result_set == [[1]], f"an edge end is missing: {sys_part}"


def contents(graph: falkordb.Graph) -> tuple[dict[str, Any], dict[str, Any]]:
    vertices = {
        r["id"]: (tuple(r["labels"]), dict(r["props"]))
        for r in rows(
            graph, "MATCH (n) WHERE NOT n:HeadwaterSync RETURN n.id AS id, labels(n) AS labels, properties(n) AS props"
        )
    }
    edges = {
        r["id"]: (r["type"], r["a"], r["b"], dict(r["props"]))
        for r in rows(
            graph, "MATCH (a)-[r]->(b) RETURN r.id AS id, type(r) AS type, a.id AS a, b.id AS b, properties(r) AS props"
        )
    }
    return vertices, edges


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The story in a store, exported in every format; FalkorDB holding the openCypher CSV and the Cypher file."""
    folder = tmp_path_factory.mktemp("graphdb")
    db = f"sqlite:///{folder / 'headwater.db'}"
    store = Store.open(db)
    store.append(incoming(story()))
    runner = CliRunner()
    for fmt in ("neptune-opencypher", "neptune-gremlin", "graphml", "cypher"):
        result = runner.invoke(cli, ["export", "graph", "--format", fmt, "--out", str(folder / fmt), "--db", db])
        assert result.exit_code == 0, result.output
    server = FalkorServer(folder)
    csv_graph = server.graph("from_csv")
    load_neptune_opencypher(csv_graph, folder / "neptune-opencypher")
    cypher_graph = server.graph("from_cypher")
    for line in (folder / "cypher" / "graph.cypher").read_text().splitlines():
        cypher_graph.query(line.rstrip(";"))
    yield {"store": store, "db": db, "folder": folder, "server": server, "csv": csv_graph, "cypher": cypher_graph}
    server.stop()
    store.close()


VALID = "{v}.validFromUs <= $t AND ({v}.validToUs IS NULL OR {v}.validToUs > $t)"


def valid(var: str, at: datetime | None) -> str:
    return f"{var}.validToUs IS NULL" if at is None else VALID.format(v=var)


def params(at: datetime | None, **more: Any) -> dict[str, Any]:
    return {**more, **({} if at is None else {"t": to_micros(at)})}


def cypher_lineage(graph: falkordb.Graph, node: str, direction: str, at: datetime | None) -> dict[str, int]:
    """Datasets and jobs up- or downstream of ``node`` with their signed hop count, in openCypher."""
    pattern = (
        "(x)-[:READ_BY|WRITES*1..20]->(n {id: $id})"
        if direction == "upstream"
        else "(n {id: $id})-[:READ_BY|WRITES*1..20]->(x)"
    )
    found = rows(
        graph,
        f"MATCH p = {pattern} WHERE all(r IN relationships(p) WHERE {valid('r', at)}) "
        "RETURN x.id AS id, min(length(p)) AS hops",
        **params(at, id=node),
    )
    sign = -1 if direction == "upstream" else 1
    return {r["id"]: sign * r["hops"] for r in found}


def api_lineage(reader: GraphReader, node: str, direction: str, at: datetime | None) -> dict[str, int]:
    answer = reader.lineage(ref(node), direction=direction, depth=20, at=at)
    return {n["id"]: n["level"] for n in answer["nodes"] if n["id"] != node}


@pytest.mark.parametrize("loaded", ["csv", "cypher"])
@pytest.mark.parametrize("at", [None, DAY1], ids=["now", "day1"])
def test_table_lineage_in_cypher_equals_headwater(world: dict[str, Any], loaded: str, at: datetime | None) -> None:
    graph, reader = world[loaded], GraphReader(world["store"])
    upstream = cypher_lineage(graph, COMP, "upstream", at)
    assert upstream == api_lineage(reader, COMP, "upstream", at)
    # by hand: tax_rates feeds job2 only from day 3 on
    expected = {J2: -1, EA: -2, ADJ: -2, BON: -2, J1: -3, EMP: -4, ATT: -4}
    assert upstream == (expected if at is not None else {**expected, TAX: -2})
    downstream = cypher_lineage(graph, EMP, "downstream", at)
    assert downstream == api_lineage(reader, EMP, "downstream", at)
    if at is None:
        assert downstream == {J1: 1, EA: 2, J2: 3, COMP: 4, RX: 5, REP: 6}


def cypher_column_upstream(graph: falkordb.Graph, column: str, at: datetime | None) -> set[str]:
    """Columns a column is derived from: column edges, and dataset-level (INDIRECT) dependencies of its dataset."""
    found = rows(
        graph,
        "MATCH p = (x:Column)-[:FLOWS_TO|HAS_COLUMN*1..20]->(c:Column {id: $id}) "
        f"WHERE all(r IN relationships(p) WHERE {valid('r', at)}) RETURN DISTINCT x.id AS id",
        **params(at, id=column),
    )
    return {r["id"] for r in found}


@pytest.mark.parametrize("at", [None, DAY1], ids=["now", "day1"])
def test_column_path_in_cypher_equals_headwater(world: dict[str, Any], at: datetime | None) -> None:
    root = fid(COMP, "TotalCompensation")
    answer = GraphReader(world["store"]).column_lineage(ref(root), direction="upstream", depth=20, at=at)
    api = {n["id"] for n in answer["nodes"]} - {root}
    assert cypher_column_upstream(world["csv"], root, at) == api
    if at is None:  # by hand (tests/graph/test_columns_impact.py): the tax rate is one of its sources now
        assert {fid(TAX, "TaxRate"), fid(EMP, "BaseSalary"), fid(ATT, "Date")} <= api
    else:
        assert fid(TAX, "TaxRate") not in api and fid(EMP, "BaseSalary") in api
    # the transformation on one path, as the edge carries it
    edge = rows(
        world["csv"],
        "MATCH (a:Column {id: $a})-[r:FLOWS_TO]->(b:Dataset {id: $b}) RETURN r.transformationType AS t, "
        "r.subtype AS s, r.masking AS m, r.job AS job",
        a=fid(ATT, "Date"),
        b=EA,
    )
    assert edge == [{"t": "INDIRECT", "s": "FILTER", "m": False, "job": J1}]


@pytest.mark.parametrize("at", [None, DAY1], ids=["now", "day1"])
def test_impact_in_cypher_equals_headwater(world: dict[str, Any], at: datetime | None) -> None:
    graph = world["cypher"]
    answer = GraphReader(world["store"]).impact(ref(EMP), at=at)
    api = {i["id"]: i["depth"] for i in answer["items"]}
    tables = cypher_lineage(graph, EMP, "downstream", at)
    columns = rows(
        graph,
        "MATCH (c:Column {dataset: $id}) MATCH p = (c)-[:FLOWS_TO*1..10]->(x:Column) "
        f"WHERE all(r IN relationships(p) WHERE {valid('r', at)}) AND x.dataset <> $id "
        "RETURN x.id AS id, 2 * min(length(p)) AS depth",
        **params(at, id=EMP),
    )
    assert {**tables, **{r["id"]: r["depth"] for r in columns}} == api
    if at is None:  # by hand, as tests/graph/test_columns_impact.py
        assert answer["summary"] == {"datasets": 3, "jobs": 3, "fields": 10}
        assert api[fid(REP, "TotalCompensation")] == 6


def test_both_loads_hold_the_same_graph(world: dict[str, Any]) -> None:
    from_csv, from_cypher = contents(world["csv"]), contents(world["cypher"])
    assert from_csv == from_cypher
    vertices, edges = from_csv
    labels = sorted(v[0][0] for v in vertices.values())
    assert {label: labels.count(label) for label in set(labels)} == {"Dataset": 8, "Column": 25, "Job": 4, "Run": 12}
    # every vertex and edge carries its interval; the dropped report table's ends
    assert all("validFromUs" in v[1] and "validFrom" in v[1] for v in vertices.values())
    assert all("validFromUs" in e[3] for e in edges.values())
    assert vertices[REP][1]["deleted"] is True and vertices[REP][1]["validTo"] == "2026-01-09T08:00:00.000Z"
    assert "validTo" not in vertices[EMP][1]  # open: no property, as an empty CSV cell means


def test_gremlin_csv_follows_the_loader_rules_and_matches(world: dict[str, Any]) -> None:
    folder = world["folder"] / "neptune-gremlin"
    vertices = read_typed_csv(folder / "vertices.csv", ("~id", "~label"), GREMLIN_TYPES)
    edges = read_typed_csv(folder / "edges.csv", ("~id", "~from", "~to", "~label"), GREMLIN_TYPES)
    ids = [v["~id"] for v, _ in vertices]
    assert len(ids) == len(set(ids)), "vertex ids are unique"
    assert len({e["~id"] for e, _ in edges}) == len(edges), "edge ids are unique"
    assert all(e["~from"] in set(ids) and e["~to"] in set(ids) for e, _ in edges), "edge ends are loaded vertices"
    for _, props in [*vertices, *edges]:
        datetime.fromisoformat(props["validFrom"])  # Date: ISO 8601
    gremlin_v = {v["~id"]: ((v["~label"],), props) for v, props in vertices}
    gremlin_e = {e["~id"]: (e["~label"], e["~from"], e["~to"], props) for e, props in edges}
    cy_v, cy_e = contents(world["csv"])
    assert gremlin_v == {
        k: (labels, {p: x for p, x in props.items() if p != "id"}) for k, (labels, props) in cy_v.items()
    }
    assert gremlin_e == {
        k: (t, a, b, {p: x for p, x in props.items() if p != "id"}) for k, (t, a, b, props) in cy_e.items()
    }


def test_graphml_is_typed_and_complete(world: dict[str, Any]) -> None:
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    root = ET.parse(world["folder"] / "graphml" / "graph.graphml").getroot()
    keys = {k.get("id"): (k.get("for"), k.get("attr.name"), k.get("attr.type")) for k in root.findall("g:key", ns)}
    assert keys["n_validFromUs"] == ("node", "validFromUs", "long") and keys["e_masking"] == (
        "edge",
        "masking",
        "boolean",
    )
    nodes = root.findall("g:graph/g:node", ns)
    edges = root.findall("g:graph/g:edge", ns)
    vertices, cy_edges = contents(world["csv"])
    assert {n.get("id") for n in nodes} == set(vertices)
    assert {e.get("id") for e in edges} == set(cy_edges)
    report = next(n for n in nodes if n.get("id") == REP)
    assert {d.get("key"): d.text for d in report.findall("g:data", ns)}["n_labelV"] == "Dataset"


def test_export_scopes_and_errors(world: dict[str, Any], tmp_path: Path) -> None:
    runner = CliRunner()
    db = world["db"]
    out = tmp_path / "tax"
    result = runner.invoke(cli, ["export", "graph", "--node", TAX, "--out", str(out), "--db", db])
    assert result.exit_code == 0, result.output
    ids = {r[":ID"] for r, _ in read_typed_csv(out / "nodes.csv", (":ID", ":LABEL"), NEPTUNE_TYPES)}
    # downstream of the tax rates only: job2 and what it writes, the report export and its table (with their runs)
    assert {i for i in ids if i.startswith(("dataset:", "job:"))} == {TAX, J2, COMP, RX, REP}
    out = tmp_path / "ns"
    result = runner.invoke(cli, ["export", "graph", "--namespace", "airflow", "--out", str(out), "--db", db])
    assert result.exit_code == 0, result.output
    ids = {r[":ID"] for r, _ in read_typed_csv(out / "nodes.csv", (":ID", ":LABEL"), NEPTUNE_TYPES)}
    assert {i for i in ids if i.startswith(("dataset:", "job:"))} == {"job:airflow:hr_payroll_dag"}
    result = runner.invoke(cli, ["export", "graph", "--node", "dataset:file:/nope", "--out", str(out), "--db", db])
    assert result.exit_code == 2 and "dataset 'dataset:file:/nope' not found" in result.output
    result = runner.invoke(cli, ["export", "graph", "--node", "nonsense", "--out", str(out), "--db", db])
    assert result.exit_code == 2 and "--node" in result.output
