import { describe, expect, it } from "vitest";
import {
  collapse,
  currentGraph,
  datasetsOnly,
  expand,
  expansionKey,
  initialState,
  isExpanded,
  levels,
  parseExpansionKey,
  type Fragment,
} from "./graph";
import { JOB1, JOB2, ds, edge, fullEdges, fullNodes, node } from "./testdata";

const frag = (nodes: Fragment["nodes"], edges: Fragment["edges"]): Fragment => ({
  nodes,
  edges,
  columnEdges: [],
  truncated: false,
});

// job2 and its output, with employee_attendance at the edge (more upstream)
const base = frag(
  [node(ds("employee_attendance"), { hasMoreUpstream: true }), node(JOB2), node(ds("employee_compensation"))],
  [edge(ds("employee_attendance"), JOB2), edge(JOB2, ds("employee_compensation"))],
);
const upOfAttendance = frag(
  [node(ds("employees.csv"), { hasMoreUpstream: true }), node(ds("attendance.csv")), node(JOB1), node(ds("employee_attendance"))],
  [edge(ds("employees.csv"), JOB1), edge(ds("attendance.csv"), JOB1), edge(JOB1, ds("employee_attendance"))],
);
const upOfEmployees = frag(
  [node("job:spark:ingest"), node(ds("employees.csv")), node(ds("raw/hr_dump"))],
  [edge(ds("raw/hr_dump"), "job:spark:ingest"), edge("job:spark:ingest", ds("employees.csv"))],
);

describe("expand / collapse", () => {
  it("expanding adds the fragment's nodes and edges once", () => {
    let s = initialState(ds("employee_compensation"), base);
    s = expand(s, { nodeId: ds("employee_attendance"), direction: "upstream" }, upOfAttendance);
    const g = currentGraph(s);
    expect(g.nodes.map((n) => n.id).sort()).toEqual(
      [ds("employee_attendance"), JOB2, ds("employee_compensation"), ds("employees.csv"), ds("attendance.csv"), JOB1].sort(),
    );
    expect(g.edges).toHaveLength(5);
    expect(isExpanded(s, { nodeId: ds("employee_attendance"), direction: "upstream" })).toBe(true);
    // the fragment saw all of employee_attendance's upstream: no more to expand there
    expect(g.nodes.find((n) => n.id === ds("employee_attendance"))?.hasMoreUpstream).toBe(false);
    expect(g.nodes.find((n) => n.id === ds("employees.csv"))?.hasMoreUpstream).toBe(true);
  });

  it("collapsing removes the expansion and every expansion anchored on its nodes", () => {
    let s = initialState(ds("employee_compensation"), base);
    s = expand(s, { nodeId: ds("employee_attendance"), direction: "upstream" }, upOfAttendance);
    s = expand(s, { nodeId: ds("employees.csv"), direction: "upstream" }, upOfEmployees);
    expect(currentGraph(s).nodes).toHaveLength(8);
    s = collapse(s, { nodeId: ds("employee_attendance"), direction: "upstream" });
    expect(s.expansions).toEqual([]);
    expect(currentGraph(s).nodes.map((n) => n.id).sort()).toEqual(base.nodes.map((n) => n.id).sort());
  });

  it("collapsing one expansion keeps the unrelated ones", () => {
    const down = frag([node(ds("employee_compensation")), node("job:spark:report"), node(ds("report"))], [
      edge(ds("employee_compensation"), "job:spark:report"),
      edge("job:spark:report", ds("report")),
    ]);
    let s = initialState(ds("employee_compensation"), base);
    s = expand(s, { nodeId: ds("employee_attendance"), direction: "upstream" }, upOfAttendance);
    s = expand(s, { nodeId: ds("employee_compensation"), direction: "downstream" }, down);
    s = collapse(s, { nodeId: ds("employee_attendance"), direction: "upstream" });
    expect(s.expansions.map(([k]) => k)).toEqual([`d:${ds("employee_compensation")}`]);
    expect(currentGraph(s).nodes.map((n) => n.id)).toContain(ds("report"));
    expect(currentGraph(s).nodes.map((n) => n.id)).not.toContain(JOB1);
  });

  it("expansion keys round-trip", () => {
    const e = { nodeId: "dataset:postgres://db:5432:public.t", direction: "downstream" as const };
    expect(parseExpansionKey(expansionKey(e))).toEqual(e);
    expect(parseExpansionKey("x:y")).toBeNull();
  });
});

describe("datasets only", () => {
  it("folds jobs into DERIVED dataset -> dataset edges with the job in via", () => {
    const g = datasetsOnly({ nodes: fullNodes, edges: fullEdges, columnEdges: [], truncated: false });
    expect(g.nodes.some((n) => n.type === "JOB")).toBe(false);
    const pairs = g.edges.map((e) => `${e.source.split("/").pop()}>${e.target.split("/").pop()}@${e.via?.join(",")}`).sort();
    expect(pairs).toEqual(
      [
        `attendance.csv>employee_attendance@${JOB1}`,
        `bonus_payments.csv>employee_compensation@${JOB2}`,
        `employee_attendance>employee_compensation@${JOB2}`,
        `employees.csv>employee_attendance@${JOB1}`,
        `salary_adjustments.csv>employee_compensation@${JOB2}`,
      ].sort(),
    );
    expect(g.edges.every((e) => e.type === "DERIVED")).toBe(true);
  });

  it("merges two jobs writing the same pair into one edge via both", () => {
    const nodes = [node(ds("a")), node(ds("b")), node("job:x:j1"), node("job:x:j2")];
    const edges = [edge(ds("a"), "job:x:j1"), edge("job:x:j1", ds("b")), edge(ds("a"), "job:x:j2"), edge("job:x:j2", ds("b"))];
    const g = datasetsOnly({ nodes, edges, columnEdges: [], truncated: false });
    expect(g.edges).toHaveLength(1);
    expect(g.edges[0].via).toEqual(["job:x:j1", "job:x:j2"]);
  });
});

describe("datasets only keeps the way on", () => {
  it("a folded job with more upstream makes its output expandable upstream", () => {
    const nodes = [node("job:x:j", { hasMoreUpstream: true }), node(ds("out")), node(ds("in"))];
    const edges = [edge(ds("in"), "job:x:j"), edge("job:x:j", ds("out"))];
    const g = datasetsOnly({ nodes, edges, columnEdges: [], truncated: false });
    expect(g.nodes.find((n) => n.id === ds("out"))?.hasMoreUpstream).toBe(true);
    expect(g.nodes.find((n) => n.id === ds("in"))?.hasMoreUpstream).toBe(false);
  });
});

describe("levels", () => {
  it("counts hops from the root, negative upstream", () => {
    const lv = levels({ nodes: fullNodes, edges: fullEdges, columnEdges: [], truncated: false }, ds("employee_attendance"));
    expect(lv.get(ds("employee_attendance"))).toBe(0);
    expect(lv.get(JOB1)).toBe(-1);
    expect(lv.get(ds("employees.csv"))).toBe(-2);
    expect(lv.get(JOB2)).toBe(1);
    expect(lv.get(ds("employee_compensation"))).toBe(2);
    // another input of job2 is off the root's paths: it goes in the column before job2
    expect(lv.get(ds("salary_adjustments.csv"))).toBe(0);
  });
});
