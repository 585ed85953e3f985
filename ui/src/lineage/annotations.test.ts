import { describe, expect, it } from "vitest";
import type { TagsAnswer } from "../api/impactCheck";
import { columnTags, datasetTagNames } from "./annotations";

const DS = "dataset:pg://h:5432:shop.mart.contacts";
const RAW = "dataset:pg://h:5432:shop.raw.customers";

function col(field: string, tag: string, inherited: boolean): TagsAnswer["columns"][number] {
  return {
    id: `datasetField:pg://h:5432:shop.mart.contacts:${field}`,
    dataset: DS,
    field,
    tag,
    inherited,
    sources: inherited ? [] : [{ kind: "rule", detail: "email" }],
    origin: inherited ? `datasetField:pg://h:5432:shop.raw.customers:${field}` : null,
    path: inherited ? [`datasetField:pg://h:5432:shop.raw.customers:${field}`, `datasetField:pg://h:5432:shop.mart.contacts:${field}`] : [],
    transformations: [],
    hops: inherited ? 1 : 0,
  };
}

const answer: TagsAnswer = {
  tag: null,
  at: null,
  datasets: [
    { id: DS, type: "DATASET", tag: "finance", sources: [{ kind: "catalog", detail: "tags" }], columns: [], inherited: false },
    { id: DS, type: "DATASET", tag: "PII", sources: [], columns: ["email"], inherited: true },
    { id: RAW, type: "DATASET", tag: "raw", sources: [{ kind: "catalog", detail: "tags" }], columns: [], inherited: false },
  ],
  columns: [col("email", "PII", true), col("email", "contact", true), col("email", "contact", false), col("id", "key", false)],
  jobs: [],
  stops: [],
  truncated: false,
};

describe("node annotations", () => {
  it("lists one column's tags by name, inherited only when no source declares it there", () => {
    expect(columnTags(answer, "email").map((t) => [t.tag, t.inherited])).toEqual([
      ["contact", false],
      ["PII", true],
    ]);
    expect(columnTags(answer, "email")[1].origin).toBe("datasetField:pg://h:5432:shop.raw.customers:email");
    expect(columnTags(answer, "phone")).toEqual([]);
    expect(columnTags(null, "email")).toEqual([]);
  });

  it("names a dataset's own declared tags, not the ones its columns carry nor another dataset's", () => {
    expect(datasetTagNames(answer, DS)).toEqual(["finance"]);
    expect(datasetTagNames(answer, RAW)).toEqual(["raw"]);
  });
});
