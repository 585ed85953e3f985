import { describe, expect, it } from "vitest";
import { columnPath, flattenFields, pageColumns, pathInHopOrder } from "./columns";
import { JOB1, col, columnEdges, ds } from "./testdata";

const direct = (subtype: string) => [{ type: "DIRECT", subtype, description: null, masking: false }];

describe("column path", () => {
  it("from a middle column: its whole upstream and downstream, nothing else", () => {
    const p = columnPath(col("employee_attendance", "TotalHours"), columnEdges);
    expect([...p.columns].sort()).toEqual(
      [col("attendance.csv", "HoursWorked"), col("employee_attendance", "TotalHours"), col("employee_compensation", "TotalPay")].sort(),
    );
    // siblings that share TotalPay (Adjustment, Bonus) are not upstream of TotalHours
    expect(p.columns.has(col("bonus_payments.csv", "Bonus"))).toBe(false);
    expect([...p.edges].sort()).toEqual([2, 5]);
  });

  it("from a final column: every source column", () => {
    const p = columnPath(col("employee_compensation", "TotalPay"), columnEdges);
    expect([...p.columns].sort()).toEqual(
      [
        col("employee_compensation", "TotalPay"),
        col("employee_attendance", "TotalHours"),
        col("attendance.csv", "HoursWorked"),
        col("salary_adjustments.csv", "Adjustment"),
        col("bonus_payments.csv", "Bonus"),
      ].sort(),
    );
    expect(p.datasets.size).toBe(5);
  });

  it("INDIRECT edges are not on the default path; asked for, they are influences of the upstream path, apart", () => {
    const p = columnPath(col("attendance.csv", "EmployeeID"), columnEdges);
    expect([...p.columns]).toEqual([col("attendance.csv", "EmployeeID")]);
    expect([...p.edges]).toEqual([]);
    const total = col("employee_attendance", "TotalHours");
    expect(columnPath(total, columnEdges).influences).toEqual([]);
    const q = columnPath(total, columnEdges, { indirect: true });
    // the join key selects the rows of employee_attendance: an influence on the whole dataset
    expect(q.influences).toEqual([{ column: col("attendance.csv", "EmployeeID"), kinds: ["JOIN"], on: ds("employee_attendance") }]);
    expect(q.columns.has(col("attendance.csv", "EmployeeID"))).toBe(false);
    expect(q.edges.has(3)).toBe(true);
  });

  it("a join key folded onto every output column (the Spark integration's default) is still not a value", () => {
    const key = col("employees.csv", "EmployeeID");
    const join = [{ type: "INDIRECT", subtype: "JOIN", description: null, masking: false }];
    const both = [{ type: "DIRECT", subtype: "IDENTITY", description: null, masking: false }, ...join];
    const edges = [
      { source: key, target: col("out", "Pay"), job: JOB1, transformations: join },
      { source: col("pay.csv", "Pay"), target: col("out", "Pay"), job: JOB1, transformations: direct("IDENTITY") },
      { source: key, target: col("out", "EmployeeID"), job: JOB1, transformations: both },
    ];
    expect([...columnPath(col("out", "Pay"), edges).columns].sort()).toEqual([col("out", "Pay"), col("pay.csv", "Pay")].sort());
    // a column used as key and value is on the path of the value it gives
    expect(columnPath(col("out", "EmployeeID"), edges).columns.has(key)).toBe(true);
  });

  it("lists the path by hop: the column, upstream nearest first, then downstream", () => {
    const p = columnPath(col("employee_attendance", "TotalHours"), columnEdges);
    expect(pathInHopOrder(p)).toEqual([
      col("employee_attendance", "TotalHours"),
      col("attendance.csv", "HoursWorked"),
      col("employee_compensation", "TotalPay"),
    ]);
    expect(p.hops.get(col("attendance.csv", "HoursWorked"))).toBe(-1);
    expect(p.hops.get(col("employee_compensation", "TotalPay"))).toBe(1);
  });

  it("survives cycles", () => {
    const a = col("x", "a");
    const b = col("y", "b");
    const p = columnPath(a, [
      { source: a, target: b, job: JOB1, transformations: [] },
      { source: b, target: a, job: JOB1, transformations: [] },
    ]);
    expect([...p.columns].sort()).toEqual([a, b].sort());
  });
});

describe("paging", () => {
  const cols = Array.from({ length: 23 }, (_, i) => ({ path: `col_${String(i).padStart(2, "0")}` }));
  it("cuts pages of 10", () => {
    expect(pageColumns(cols, "", 0).items.map((c) => c.path)).toEqual(cols.slice(0, 10).map((c) => c.path));
    const last = pageColumns(cols, "", 2);
    expect(last.items).toHaveLength(3);
    expect(last.pages).toBe(3);
    expect(last.total).toBe(23);
  });
  it("filters case-insensitively and clamps the page", () => {
    const p = pageColumns(cols, "COL_1", 5);
    expect(p.items.map((c) => c.path)).toEqual(["col_10", "col_11", "col_12", "col_13", "col_14", "col_15", "col_16", "col_17", "col_18", "col_19"]);
    expect(p.page).toBe(0);
    expect(pageColumns(cols, "nope", 0)).toEqual({ items: [], page: 0, pages: 1, total: 0 });
  });
});

describe("nested fields", () => {
  it("flatten to dotted paths with depth", () => {
    const flat = flattenFields([
      { name: "id", type: "long", description: null, fields: [] },
      { name: "address", type: "struct", description: "home", fields: [{ name: "city", type: "string", description: null, fields: [] }] },
    ]);
    expect(flat.map((f) => [f.path, f.depth])).toEqual([
      ["id", 0],
      ["address", 0],
      ["address.city", 1],
    ]);
  });
});
