import { describe, expect, it } from "vitest";
import type { Graph } from "./graph";
import { groupJobs, hierarchyOf, topParent } from "./hierarchy";
import { JOB1, JOB2, columnEdges, ds, edge, fullEdges, fullNodes, node } from "./testdata";

const DAG = "job:airflow:hr_payroll_dag";
const plain: Graph = { nodes: fullNodes, edges: fullEdges, columnEdges, truncated: false };
// what the server answers with collapseJobs=true: both jobs are tasks of the DAG
const collapsed = {
  nodes: [...fullNodes.filter((n) => !n.id.startsWith("job:")), node(DAG, { children: [JOB1, JOB2] })],
  edges: [],
  columnEdges: [],
  truncated: false,
};

describe("job hierarchy", () => {
  const h = hierarchyOf([collapsed]);

  it("reads which parent stands for which child from a collapsed answer", () => {
    expect(h.top.get(JOB1)).toBe(DAG);
    expect(h.top.get(JOB2)).toBe(DAG);
    expect(topParent(h, JOB1)).toBe(DAG);
    expect(topParent(h, DAG)).toBeNull();
  });

  it("draws child jobs as their parent, edges lifted and merged", () => {
    const g = groupJobs(plain, h, new Set());
    const ids = g.nodes.map((n) => n.id);
    expect(ids).not.toContain(JOB1);
    expect(ids).not.toContain(JOB2);
    expect(g.nodes.find((n) => n.id === DAG)?.children).toEqual([JOB1, JOB2]);
    const lifted = g.edges.map((e) => `${e.source}->${e.target}`).sort();
    expect(lifted).toEqual(
      [
        `${ds("employees.csv")}->${DAG}`,
        `${ds("attendance.csv")}->${DAG}`,
        `${DAG}->${ds("employee_attendance")}`,
        `${ds("employee_attendance")}->${DAG}`,
        `${ds("salary_adjustments.csv")}->${DAG}`,
        `${ds("bonus_payments.csv")}->${DAG}`,
        `${DAG}->${ds("employee_compensation")}`,
      ].sort(),
    );
    expect(g.edges.find((e) => e.source === DAG && e.target === ds("employee_attendance"))?.via).toEqual([JOB1]);
    // the column edges name the job drawn (the path highlights the parent)
    expect(new Set(g.columnEdges.map((c) => c.job))).toEqual(new Set([DAG]));
  });

  it("a side of the parent has more when a child's side has", () => {
    const more: Graph = { ...plain, nodes: plain.nodes.map((n) => (n.id === JOB2 ? { ...n, hasMoreDownstream: true } : n)) };
    const dag = groupJobs(more, h, new Set()).nodes.find((n) => n.id === DAG)!;
    expect(dag.hasMoreDownstream).toBe(true);
    expect(dag.hasMoreUpstream).toBe(false);
  });

  it("an opened parent shows its children, and its own unconnected node goes", () => {
    const g = groupJobs(plain, h, new Set([DAG]));
    expect(g.nodes.map((n) => n.id).sort()).toEqual(plain.nodes.map((n) => n.id).sort());
    expect(g.edges.map((e) => e.id).sort()).toEqual(plain.edges.map((e) => `${e.source}->${e.target}`).sort());
    // the parent drawn alone (the root of its own page) stays when it is the root
    const withDag: Graph = { ...plain, nodes: [...plain.nodes, node(DAG)] };
    expect(groupJobs(withDag, h, new Set([DAG])).nodes.map((n) => n.id)).not.toContain(DAG);
    expect(groupJobs(withDag, h, new Set([DAG]), DAG).nodes.map((n) => n.id)).toContain(DAG);
  });

  it("no hierarchy: the graph unchanged", () => {
    expect(groupJobs(plain, hierarchyOf([plain]), new Set())).toBe(plain);
    expect(edge(JOB1, ds("x")).type).toBe("OUTPUT");
  });
});
