// The UI's node-id parser answers the table of cases it shares with the Python parser
// (tests/fixtures/nodeid_cases.json, expected answers written by hand; tests/model/test_nodeid_cases.py
// holds src/headwater/model/nodeid.py to the same table).
import { describe, expect, it } from "vitest";
import table from "../../../tests/fixtures/nodeid_cases.json";
import { parseNodeId } from "./nodeid";

interface Case {
  id: string;
  node?: { type: string; namespace: string; name: string; field: string | null };
  error?: string;
}

describe("node ids: the table shared with the Python parser", () => {
  const cases = (table as { cases: Case[] }).cases;
  it("has cases of every kind and refusals", () => {
    expect(new Set(cases.filter((c) => c.node).map((c) => c.node?.type))).toEqual(
      new Set(["dataset", "job", "datasetField", "run"]),
    );
    expect(cases.filter((c) => c.error).length).toBeGreaterThanOrEqual(8);
  });
  for (const c of cases) {
    const name = JSON.stringify(c.id);
    if (c.node) {
      it(`parses ${name}`, () => {
        expect(parseNodeId(c.id)).toEqual(c.node);
      });
    } else {
      it(`refuses ${name} (${c.error})`, () => {
        expect(() => parseNodeId(c.id)).toThrow();
      });
    }
  }
});
