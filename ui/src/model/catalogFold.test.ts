import { describe, expect, it } from "vitest";
import type { ColumnEdge, GraphNode } from "../api/types";
import { foldCatalog, isCatalogId } from "./catalogFold";
import type { Graph } from "./graph";
import { col, ds, edge, node } from "./testdata";

// The demo's chain: employee_compensation published by project hr, subscribed by project analytics,
// whose job reads the subscription's target. Catalog nodes are in headwater-catalog://<domain>.
const CNS = "headwater-catalog://people";
const catNode = (type: "job" | "dataset", name: string, extra: Partial<GraphNode> = {}): GraphNode =>
  node(`${type}:${CNS}:${name}`, { namespace: CNS, name, kind: null, ...extra });
const PUBLISH = `job:${CNS}:publish/hr/employee_compensation`;
const PUBLISHED = `dataset:${CNS}:hr/employee_compensation`;
const SUBSCRIBE = `job:${CNS}:subscription/1`;
const TARGET = `dataset:${CNS}:analytics/pay/employee_compensation`;
const EMP = ds("employee_compensation");
const REPORT = "job:spark:report";
const CONSUMER = "job:spark:analytics_read";

const g = (nodes: GraphNode[], edges: Graph["edges"], columnEdges: ColumnEdge[] = []): Graph => ({ nodes, edges, columnEdges, truncated: false });
const ids = (graph: Graph) => graph.nodes.map((n) => n.id);
const pairs = (graph: Graph) => graph.edges.map((e) => `${e.source} > ${e.target} ${e.type} [${(e.via ?? []).join(", ")}]`);
const direct = [{ type: "DIRECT", subtype: "IDENTITY", description: "", masking: false }];

const demo = g(
  [
    node(EMP),
    node(REPORT),
    node(ds("report.csv")),
    catNode("job", "publish/hr/employee_compensation"),
    catNode("dataset", "hr/employee_compensation"),
    catNode("job", "subscription/1"),
    catNode("dataset", "analytics/pay/employee_compensation"),
    node(CONSUMER),
    node(ds("analytics.csv")),
  ],
  [
    edge(EMP, REPORT),
    edge(REPORT, ds("report.csv")),
    edge(EMP, PUBLISH),
    edge(PUBLISH, PUBLISHED),
    edge(PUBLISHED, SUBSCRIBE),
    edge(SUBSCRIBE, TARGET),
    edge(TARGET, CONSUMER),
    edge(CONSUMER, ds("analytics.csv")),
  ],
  [
    { source: col("employee_compensation", "TotalCompensation"), target: col("report.csv", "Total"), job: REPORT, transformations: direct },
    { source: col("employee_compensation", "TotalCompensation"), target: `datasetField:${CNS}:hr/employee_compensation:TotalCompensation`, job: PUBLISH, transformations: direct },
    { source: `datasetField:${CNS}:hr/employee_compensation:TotalCompensation`, target: TARGET, job: SUBSCRIBE, transformations: direct },
  ],
);

describe("catalog fold", () => {
  it("tells the catalog's ids by their namespace", () => {
    expect(isCatalogId(PUBLISHED)).toBe(true);
    expect(isCatalogId(SUBSCRIBE)).toBe(true);
    expect(isCatalogId(`datasetField:${CNS}:hr/employee_compensation:TotalCompensation`)).toBe(true);
    expect(isCatalogId(EMP)).toBe(false);
    expect(isCatalogId("dataset:s3://headwater-catalog://x:y")).toBe(false);
  });

  it("draws the chain as a chip on the dataset it hangs from, and bridges to what reads past it", () => {
    const { graph, chips } = foldCatalog(demo);
    expect(ids(graph)).toEqual([EMP, REPORT, ds("report.csv"), CONSUMER, ds("analytics.csv")]);
    expect(pairs(graph)).toEqual([
      `${EMP} > ${REPORT} INPUT []`,
      `${REPORT} > ${ds("report.csv")} OUTPUT []`,
      `${CONSUMER} > ${ds("analytics.csv")} OUTPUT []`,
      `${EMP} > ${CONSUMER} DERIVED [${PUBLISH}, ${PUBLISHED}, ${SUBSCRIBE}, ${TARGET}]`,
    ]);
    expect([...chips.keys()]).toEqual([EMP]);
    expect(chips.get(EMP)).toEqual({
      nodes: [PUBLISH, PUBLISHED, SUBSCRIBE, TARGET],
      publications: 1,
      subscriptions: 1,
      label: "published · 1 subscription",
    });
    // the column path follows what is drawn: edges into the published node and the target go
    expect(graph.columnEdges.map((c) => c.target)).toEqual([col("report.csv", "Total")]);
  });

  it("counts subscriptions, and says how many nodes when they are neither", () => {
    const two = g(
      [node(EMP), catNode("job", "publish/hr/e"), catNode("dataset", "hr/e"), catNode("job", "subscription/1"), catNode("job", "subscription/2")],
      [edge(EMP, `job:${CNS}:publish/hr/e`), edge(`job:${CNS}:publish/hr/e`, `dataset:${CNS}:hr/e`), edge(`dataset:${CNS}:hr/e`, `job:${CNS}:subscription/1`), edge(`dataset:${CNS}:hr/e`, `job:${CNS}:subscription/2`)],
    );
    expect(foldCatalog(two).chips.get(EMP)?.label).toBe("published · 2 subscriptions");
    const other = g([node(EMP), catNode("dataset", "hr/x")], [edge(EMP, `dataset:${CNS}:hr/x`)]);
    expect(foldCatalog(other).chips.get(EMP)?.label).toBe("1 catalog node");
  });

  it("a folded end with more beyond it makes the dataset expandable that way", () => {
    const cut = g(
      [node(EMP), catNode("job", "publish/hr/e"), catNode("dataset", "hr/e", { hasMoreDownstream: true })],
      [edge(EMP, `job:${CNS}:publish/hr/e`), edge(`job:${CNS}:publish/hr/e`, `dataset:${CNS}:hr/e`)],
    );
    const { graph } = foldCatalog(cut);
    expect(graph.nodes).toHaveLength(1);
    expect(graph.nodes[0].hasMoreDownstream).toBe(true);
    expect(graph.nodes[0].hasMoreUpstream).toBe(false);
  });

  it("leaves a graph without catalog nodes as it is", () => {
    const plain = g([node(EMP), node(REPORT)], [edge(EMP, REPORT)]);
    const { graph, chips } = foldCatalog(plain);
    expect(graph).toBe(plain);
    expect(chips.size).toBe(0);
  });
});
