import { describe, expect, it } from "vitest";
import { columnPath, flattenFields, pageColumns } from "./columns";
import { JOB1, col, columnEdges, ds } from "./testdata";

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

  it("a dataset-level dependency marks the dataset and stops there", () => {
    const p = columnPath(col("attendance.csv", "EmployeeID"), columnEdges);
    expect([...p.columns]).toEqual([col("attendance.csv", "EmployeeID")]);
    expect(p.datasets.has(ds("employee_attendance"))).toBe(true);
    expect([...p.edges]).toEqual([3]);
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
