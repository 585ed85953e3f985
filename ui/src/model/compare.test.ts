import { describe, expect, it } from "vitest";
import type { CompareAnswer } from "../api/types";
import { addedColumnChanges, columnKey, compareMarks, compareWindow, typeFamily, withRemoved } from "./compare";
import { JOB2, ds, edge, node } from "./testdata";

const answer: CompareAnswer = {
  from: "2026-11-01T00:00:00Z",
  to: "2026-11-10T00:00:00Z",
  root: ds("employee_compensation"),
  nodes: { added: [node(ds("bonus_payments.csv"))], removed: [node(ds("old_rates.csv"))], dropped: [], restored: [] },
  edges: { added: [edge(ds("bonus_payments.csv"), JOB2)], removed: [edge(ds("old_rates.csv"), JOB2)] },
  columns: {
    added: [{ dataset: ds("employee_compensation"), field: "Bonus", type: "double" }],
    removed: [{ dataset: ds("employee_compensation"), field: "Legacy", type: "string" }],
    changed: [{ dataset: ds("employee_compensation"), field: "TotalPay", fromType: "int", toType: "double" }],
  },
  columnEdges: { added: [], removed: [] },
};

describe("compare", () => {
  it("marks added and removed nodes, edges and columns", () => {
    const m = compareMarks(answer);
    expect(m.nodes.get(ds("bonus_payments.csv"))).toBe("added");
    expect(m.nodes.get(ds("old_rates.csv"))).toBe("removed");
    expect(m.edges.get(`${ds("old_rates.csv")}->${JOB2}`)).toBe("removed");
    expect(m.columns.get(columnKey(ds("employee_compensation"), "Bonus"))).toBe("added");
    expect(m.columns.get(columnKey(ds("employee_compensation"), "Legacy"))).toBe("removed");
    expect(m.columns.get(columnKey(ds("employee_compensation"), "TotalPay"))).toBe("changed");
  });

  it("puts removed nodes and their edges back as ghosts, once", () => {
    const g = { nodes: [node(JOB2), node(ds("bonus_payments.csv"))], edges: [edge(ds("bonus_payments.csv"), JOB2)], columnEdges: [], truncated: false };
    const out = withRemoved(g, answer);
    expect(out.nodes.map((n) => n.id)).toEqual([JOB2, ds("bonus_payments.csv"), ds("old_rates.csv")]);
    expect(out.edges).toHaveLength(2);
    expect(withRemoved(out, answer).nodes).toHaveLength(3);
  });

  it("orders the two moments; the later one is drawn", () => {
    const now = "2026-11-22T00:00:00.000Z";
    expect(compareWindow(null, null, now)).toBeNull();
    expect(compareWindow("2026-11-01T00:00:00Z", null, now)).toEqual({ from: "2026-11-01T00:00:00Z", to: now, toParam: null });
    expect(compareWindow("2026-11-10T00:00:00Z", "2026-11-01T00:00:00Z", now)).toEqual({
      from: "2026-11-01T00:00:00Z",
      to: "2026-11-10T00:00:00Z",
      toParam: "2026-11-10T00:00:00Z",
    });
  });
});

describe("type families", () => {
  it("a producer's spelling is not a change, a change of family is", () => {
    expect(typeFamily("bigint")).toBe(typeFamily("integer"));
    expect(typeFamily("INT")).toBe(typeFamily("long"));
    expect(typeFamily("double")).toBe(typeFamily("decimal(12,2)"));
    expect(typeFamily("varchar(20)")).toBe(typeFamily("string"));
    expect(typeFamily("timestamp")).toBe(typeFamily("timestamp with time zone"));
    expect(typeFamily("integer")).not.toBe(typeFamily("decimal(12,2)"));
    expect(typeFamily("string")).not.toBe(typeFamily("date"));
    const marks = compareMarks({
      ...answer,
      columns: {
        added: [],
        removed: [],
        changed: [
          { dataset: ds("a"), field: "id", fromType: "integer", toType: "bigint" },
          { dataset: ds("a"), field: "pay", fromType: "integer", toType: "decimal(12,2)" },
        ],
      },
    });
    expect([...marks.columns.keys()]).toEqual([columnKey(ds("a"), "pay")]);
    expect(marks.changes?.get(columnKey(ds("a"), "pay"))).toEqual({ from: "integer", to: "decimal(12,2)" });
  });
});

describe("added columns as changes", () => {
  it("a column carried on into a dataset made from it is one change, source first", () => {
    const csv = ds("employees.csv");
    const table = "dataset:headwater:hr.employees";
    const other = ds("x");
    const groups = addedColumnChanges({
      ...answer,
      columns: {
        added: [
          { dataset: table, field: "Email", type: "string" },
          { dataset: csv, field: "Email", type: "string" },
          { dataset: other, field: "Phone", type: "string" },
        ],
        removed: [],
        changed: [],
      },
      columnEdges: {
        added: [{ source: "datasetField:file:/data/employees.csv:Email", target: "datasetField:headwater:hr.employees:Email", job: "job:headwater:crawl", transformations: [] }],
        removed: [],
      },
    });
    expect(groups.map((g) => g.map((c) => `${c.dataset}|${c.field}`))).toEqual([[`${csv}|Email`, `${table}|Email`], [`${other}|Phone`]]);
  });
});
