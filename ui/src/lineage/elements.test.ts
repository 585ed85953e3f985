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

  it("column edges join column rows on screen only: a closed list has none", () => {
    const el = buildElements(input({ openColumns: new Set([ds("employee_attendance"), ds("employee_compensation")]) }));
    const e = el.edges.find((x) => x.data?.label === "TotalHours → TotalPay")!;
    expect([e.sourceHandle, e.targetHandle]).toEqual(["out:TotalHours", "in:TotalPay"]);
    expect(el.edges.find((x) => x.data?.label === "HoursWorked → TotalHours")).toBeUndefined();
  });

  it("a selected column dims everything off its path; closed datasets show only their path columns", () => {
    const column = col("employee_compensation", "TotalPay");
    const path = columnPath(column, columnEdges);
    const el = buildElements(input({ column, path, openColumns: new Set([ds("employee_compensation")]) }));
    const emph = Object.fromEntries(el.nodes.map((n) => [n.id, n.data.emphasis]));
    expect(emph[ds("employees.csv")]).toBe("dim");
    expect(emph[ds("attendance.csv")]).toBe("highlight");
    expect(emph[JOB1]).toBe("highlight");
    expect(emph[JOB2]).toBe("highlight");
    const bonus = el.nodes.find((n) => n.id === ds("bonus_payments.csv"))!;
    if (bonus.type !== "dataset") throw new Error("dataset expected");
    expect(bonus.data.columnsMode).toBe("path");
    expect(bonus.data.columns.map((c) => c.path)).toEqual(["Bonus"]);
    expect(bonus.data.columns[0].emphasis).toBe("highlight");
    // header + one row
    expect(el.layoutNodes.find((n) => n.id === ds("bonus_payments.csv"))?.height).toBe(48 + 22 + 8);
    // a dataset off the path stays closed
    const employees = el.nodes.find((n) => n.id === ds("employees.csv"))!;
    expect(employees.type === "dataset" && employees.data.columnsMode).toBe("none");
  });

  it("an open, paged list opens on the page of the path column", () => {
    const column = col("employee_compensation", "TotalPay");
    const path = columnPath(column, columnEdges);
    const el = buildElements(input({ column, path, openColumns: new Set([ds("bonus_payments.csv")]) }));
    const bonus = el.nodes.find((n) => n.id === ds("bonus_payments.csv"))!;
    if (bonus.type !== "dataset") throw new Error("dataset expected");
    expect(bonus.data.pages).toBe(2);
    expect(bonus.data.columns.find((c) => c.path === "Bonus")?.emphasis).toBe("highlight");
    // a bigger box for an open, paged list: header + filter + 10 rows + pager
    expect(el.layoutNodes.find((n) => n.id === ds("bonus_payments.csv"))?.height).toBe(48 + 34 + 220 + 28 + 8);
  });

  it("join keys fanned out onto every output column are drawn once per dataset pair", () => {
    const join = [{ type: "INDIRECT", subtype: "JOIN", description: null, masking: false }];
    const group = [{ type: "INDIRECT", subtype: "GROUP_BY", description: null, masking: false }];
    const fan = ["EmployeeID", "Name", "TotalHours"].flatMap((c) => [
      { source: col("employees.csv", "EmployeeID"), target: col("employee_attendance", c), job: JOB1, transformations: join },
      { source: col("employees.csv", "Name"), target: col("employee_attendance", c), job: JOB1, transformations: group },
    ]);
    const window = { source: col("employees.csv", "Name"), target: col("employee_attendance", "TotalHours"), job: JOB1, transformations: [{ type: "INDIRECT", subtype: "WINDOW", description: null, masking: false }] };
    const g = { ...graph, columnEdges: [...fan, window] };
    const el = buildElements(input({ graph: g, openColumns: new Set([ds("employees.csv"), ds("employee_attendance")]) }));
    const cols = el.edges.filter((e) => e.data?.kind === "column");
    const pair = cols.filter((e) => e.data?.datasetLevel);
    expect(pair).toHaveLength(1);
    expect([pair[0].source, pair[0].target, pair[0].sourceHandle, pair[0].targetHandle]).toEqual([ds("employees.csv"), ds("employee_attendance"), "out", "in"]);
    expect(pair[0].data?.label).toBe("rows: joined on EmployeeID; grouped by Name");
    // a window key stays on its column
    expect(cols.filter((e) => !e.data?.datasetLevel).map((e) => e.data?.label)).toEqual(["Name → TotalHours"]);
  });

  it("precomputed handles match the rows on the page", () => {
    const el = buildElements(input({ openColumns: new Set([ds("employee_attendance")]), precomputeHandles: true }));
    const n = el.nodes.find((x) => x.id === ds("employee_attendance"))!;
    expect(n.handles?.map((h) => h.id)).toEqual(["in", "out", "in:EmployeeID", "out:EmployeeID", "in:Name", "out:Name", "in:TotalHours", "out:TotalHours"]);
    expect(n.handles?.[2].y).toBe(53 + 11 - 3);
    expect(node(JOB1).id).toBe(JOB1);
  });
  it("gives ELK every drawn edge with its ports where the handles are, column edges routed only", () => {
    const el = buildElements(input({ openColumns: new Set([ds("employees.csv"), ds("employee_attendance")]) }));
    // employees.csv Name (2nd row) -> employee_attendance Name (2nd row): the rows' handles, 53 + 11 + 22 px down
    const name = el.layoutEdges.find((e) => e.sourcePort === "out:Name");
    expect(name).toMatchObject({ source: ds("employees.csv"), target: ds("employee_attendance"), targetPort: "in:Name", routeOnly: true });
    const ports = el.layoutNodes.find((n) => n.id === ds("employees.csv"))?.ports ?? [];
    expect(ports.find((p) => p.id === "out:Name")).toEqual({ id: "out:Name", side: "out", y: 86 });
    expect(ports.find((p) => p.id === "in")).toEqual({ id: "in", side: "in", y: 25 });
    // every drawn edge is laid out (so routed), the dataset/job edges by the header's ports
    expect(new Set(el.layoutEdges.map((e) => e.id))).toEqual(new Set(el.edges.map((e) => e.id)));
    expect(el.layoutEdges.filter((e) => e.id.startsWith("f:")).every((e) => e.sourcePort === "out" && e.targetPort === "in" && !e.routeOnly)).toBe(true);
  });
});
