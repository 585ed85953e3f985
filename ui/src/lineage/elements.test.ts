import { describe, expect, it } from "vitest";
import { buildElements, type ElementsInput } from "./elements";
import { columnPath } from "../model/columns";
import { levels } from "../model/graph";
import { JOB1, JOB2, col, columnEdges, ds, fullEdges, fullNodes, node } from "../model/testdata";
import type { Field } from "../api/types";

const f = (...names: string[]): Field[] => names.map((name) => ({ name, type: "string", description: null, fields: [] }));
const nodes = fullNodes.map((n) => {
  const fields: Record<string, Field[]> = {
    [ds("employees.csv")]: f("EmployeeID", "Name"),
    [ds("attendance.csv")]: f("EmployeeID", "HoursWorked"),
    [ds("employee_attendance")]: f("EmployeeID", "Name", "TotalHours"),
    [ds("employee_compensation")]: f("EmployeeID", "TotalPay"),
    [ds("salary_adjustments.csv")]: f("Adjustment"),
    [ds("bonus_payments.csv")]: f("Bonus", ...Array.from({ length: 14 }, (_, i) => `extra_${i}`)),
  };
  return n.type === "DATASET" ? { ...n, fields: fields[n.id] } : n;
});
const graph = { nodes, edges: fullEdges, columnEdges, truncated: false };

const input = (over: Partial<ElementsInput> = {}): ElementsInput => ({
  graph,
  root: ds("employee_compensation"),
  levels: levels(graph, ds("employee_compensation")),
  selectedNode: null,
  column: null,
  path: null,
  impact: null,
  marks: null,
  openColumns: new Set(),
  columnUi: new Map(),
  expansions: new Set(),
  ...over,
});

describe("React Flow elements", () => {
  it("no column edges while every column list is closed", () => {
    const el = buildElements(input());
    expect(el.edges.every((e) => e.data?.kind === "flow")).toBe(true);
    expect(el.layoutNodes.find((n) => n.id === ds("employees.csv"))?.level).toBe(-4);
  });

  it("column edges attach to column handles when both lists are open, to the node otherwise", () => {
    const el = buildElements(input({ openColumns: new Set([ds("employee_attendance"), ds("employee_compensation")]) }));
    const e = el.edges.find((x) => x.data?.label === "TotalHours → TotalPay")!;
    expect([e.sourceHandle, e.targetHandle]).toEqual(["out:TotalHours", "in:TotalPay"]);
    const fromClosed = el.edges.find((x) => x.data?.label === "HoursWorked → TotalHours")!;
    expect([fromClosed.source, fromClosed.sourceHandle, fromClosed.targetHandle]).toEqual([ds("attendance.csv"), "out", "in:TotalHours"]);
  });

  it("a selected column dims everything off its path and counts path columns on other pages", () => {
    const column = col("employee_compensation", "TotalPay");
    const path = columnPath(column, columnEdges);
    const el = buildElements(input({ column, path, openColumns: new Set(path.datasets) }));
    const emph = Object.fromEntries(el.nodes.map((n) => [n.id, n.data.emphasis]));
    expect(emph[ds("employees.csv")]).toBe("dim");
    expect(emph[ds("attendance.csv")]).toBe("highlight");
    expect(emph[JOB1]).toBe("highlight");
    expect(emph[JOB2]).toBe("highlight");
    const bonus = el.nodes.find((n) => n.id === ds("bonus_payments.csv"))!;
    if (bonus.type !== "dataset") throw new Error("dataset expected");
    expect(bonus.data.columns).toHaveLength(10);
    expect(bonus.data.pages).toBe(2);
    expect(bonus.data.columns.find((c) => c.path === "Bonus")?.emphasis).toBe("highlight");
    // a bigger box for an open, paged list: header + filter + 10 rows + pager
    expect(el.layoutNodes.find((n) => n.id === ds("bonus_payments.csv"))?.height).toBe(60 + 34 + 240 + 28 + 8);
  });

  it("precomputed handles match the rows on the page", () => {
    const el = buildElements(input({ openColumns: new Set([ds("employee_attendance")]), precomputeHandles: true }));
    const n = el.nodes.find((x) => x.id === ds("employee_attendance"))!;
    expect(n.handles?.map((h) => h.id)).toEqual(["in", "out", "in:EmployeeID", "out:EmployeeID", "in:Name", "out:Name", "in:TotalHours", "out:TotalHours"]);
    expect(n.handles?.[2].y).toBe(65 + 12 - 3);
    expect(node(JOB1).id).toBe(JOB1);
  });
});
