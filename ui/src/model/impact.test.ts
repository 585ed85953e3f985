import { describe, expect, it } from "vitest";
import { csvCell, hiddenDownstream, impactCsv, sortImpact } from "./impact";
import type { ImpactItem } from "../api/types";

const items: ImpactItem[] = [
  { id: "dataset:file:/out/b.csv", type: "DATASET", namespace: "file", name: "/out/b.csv", field: null, depth: 2, path: ["dataset:file:/a", "job:spark:j", "dataset:file:/out/b.csv"] },
  { id: "job:spark:j", type: "JOB", namespace: "spark", name: "j", field: null, depth: 1, path: ["dataset:file:/a", "job:spark:j"] },
  { id: "datasetField:file:/out/b.csv:Total, \"net\"", type: "FIELD", namespace: "file", name: "/out/b.csv", field: 'Total, "net"', depth: 2, path: [] },
];

describe("impact CSV", () => {
  it("has the API's columns, one row per item, quoted where needed", () => {
    const csv = impactCsv(items);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("depth,type,id,namespace,name,field,path");
    expect(lines[1]).toBe("2,DATASET,dataset:file:/out/b.csv,file,/out/b.csv,,dataset:file:/a > job:spark:j > dataset:file:/out/b.csv");
    expect(lines[3]).toBe('2,FIELD,"datasetField:file:/out/b.csv:Total, ""net""",file,/out/b.csv,"Total, ""net""",');
    expect(lines).toHaveLength(4);
  });
  it("defuses spreadsheet formulas", () => {
    expect(csvCell("=cmd()")).toBe("'=cmd()");
    expect(csvCell(null)).toBe("");
    expect(csvCell(3)).toBe("3");
  });
  it("sorts by depth, then datasets, fields, jobs", () => {
    expect(sortImpact(items).map((i) => i.type)).toEqual(["JOB", "DATASET", "FIELD"]);
  });

  it("counts what is hidden downstream on the last drawn node of each path", () => {
    const items = [
      { id: "job:n:j", type: "JOB", path: ["dataset:n:a", "job:n:j"] },
      { id: "dataset:n:b", type: "DATASET", path: ["dataset:n:a", "job:n:j", "dataset:n:b"] },
      { id: "job:n:k", type: "JOB", path: ["dataset:n:a", "job:n:j", "dataset:n:b", "job:n:k"] },
      { id: "datasetField:n:b:x", type: "FIELD", path: ["dataset:n:a", "job:n:j", "dataset:n:b"] },
    ];
    expect([...hiddenDownstream(items, new Set(["dataset:n:a", "job:n:j"]))]).toEqual([["job:n:j", 2]]);
    expect(hiddenDownstream(items, new Set(["dataset:n:a", "job:n:j", "dataset:n:b", "job:n:k"])).size).toBe(0);
  });
});
