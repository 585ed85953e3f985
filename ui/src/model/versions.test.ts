import { describe, expect, it } from "vitest";
import type { Version } from "../api/types";
import { versionDiff } from "./versions";

const v = (fields: Version["fields"], facets: Record<string, unknown> = {}): Version => ({
  version: "v",
  validFrom: "2026-11-22T00:00:00Z",
  validTo: null,
  runId: null,
  fields,
  facets,
  changes: [],
});
const f = (name: string, type: string | null, fields: Version["fields"] = []) => ({ name, type, description: null, fields });

describe("version diff", () => {
  it("lists columns added, removed and retyped, nested ones by path", () => {
    const before = v([f("id", "int"), f("pay", "decimal(10,2)"), f("addr", "struct", [f("zip", "string")])]);
    const after = v([f("id", "int"), f("pay", "decimal(12,2)"), f("bonus", "double"), f("addr", "struct", [f("city", "string")])]);
    expect(versionDiff(after, before, true)).toEqual({
      added: ["bonus", "addr.city"],
      removed: ["addr.zip"],
      retyped: [{ name: "pay", from: "decimal(10,2)", to: "decimal(12,2)" }],
      facets: [],
    });
  });

  it("names the facets whose value changed, not the key order", () => {
    const before = v([], { sql: { query: "select 1" }, doc: { a: 1, b: 2 } });
    const after = v([], { sql: { query: "select 2" }, doc: { b: 2, a: 1 }, owner: { name: "x" } });
    expect(versionDiff(after, before, false).facets).toEqual(["owner", "sql"]);
  });

  it("says which datasets a job version started and stopped reading and writing", () => {
    const before = { ...v([]), inputs: ["dataset:f:a", "dataset:f:b"], outputs: ["dataset:f:out"] };
    const after = { ...v([]), inputs: ["dataset:f:b", "dataset:f:c"], outputs: ["dataset:f:out"] };
    const d = versionDiff(after, before, false);
    expect(d.reads).toEqual({ added: ["dataset:f:c"], removed: ["dataset:f:a"] });
    expect(d.writes).toEqual({ added: [], removed: [] });
    expect(versionDiff(v([]), v([]), true).reads).toBeUndefined(); // datasets: no inputs
  });

  it("has nothing to say about the first version", () => {
    expect(versionDiff(v([f("id", "int")]), null, true)).toEqual({ added: [], removed: [], retyped: [], facets: [] });
  });
});
