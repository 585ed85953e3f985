import { describe, expect, it } from "vitest";
import { datasetOfField, fieldId, fieldName, parseNodeId, splitName } from "./nodeid";

describe("node ids (same rules as headwater/graph/nodeid.py)", () => {
  it("parses namespaces with scheme and port", () => {
    expect(parseNodeId("dataset:postgres://db:5432:hr.public.t")).toEqual({
      type: "dataset",
      namespace: "postgres://db:5432",
      name: "hr.public.t",
      field: null,
    });
    expect(parseNodeId("datasetField:file:/data/a.csv:Col")).toEqual({
      type: "datasetField",
      namespace: "file",
      name: "/data/a.csv",
      field: "Col",
    });
    expect(parseNodeId("run:abc").name).toBe("abc");
    expect(() => parseNodeId("nonsense")).toThrow(/invalid node id/);
  });
  it("moves between field and dataset ids", () => {
    const f = fieldId("dataset:s3://bucket:warehouse/t", "amount");
    expect(f).toBe("datasetField:s3://bucket:warehouse/t:amount");
    expect(datasetOfField(f)).toBe("dataset:s3://bucket:warehouse/t");
    expect(fieldName(f)).toBe("amount");
  });
});

describe("display names", () => {
  it("split a path into its last segment and the rest", () => {
    expect(splitName("/data/hr/employees.csv")).toEqual({ title: "employees.csv", context: "/data/hr/" });
    expect(splitName("s3://b/warehouse/table/")).toEqual({ title: "table", context: "s3://b/warehouse/" });
    expect(splitName("hr.public.employees")).toEqual({ title: "hr.public.employees", context: "" });
    expect(splitName("/x")).toEqual({ title: "/x", context: "" });
  });
});
