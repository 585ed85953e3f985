import { describe, expect, it } from "vitest";
import { choiceLabel, comparePick, pickedChoices, versionChoices } from "./versionPicker";

// a crawled table: created, then a re-crawl added a column
const versions = [
  { validFrom: "2026-11-27T10:05:00Z", validTo: null, changes: ["schema" as const] },
  { validFrom: "2026-11-27T10:00:00Z", validTo: "2026-11-27T10:05:00Z", changes: ["created" as const] },
];

describe("versionChoices", () => {
  it("lists the moments newest first, numbered from the oldest, the current one marked", () => {
    expect(versionChoices(versions)).toEqual([
      { iso: "2026-11-27T10:05:00Z", n: 2, current: true, changes: ["schema"] },
      { iso: "2026-11-27T10:00:00Z", n: 1, current: false, changes: ["created"] },
    ]);
  });
  it("keeps one choice per moment and sorts by time, not by input order", () => {
    const odd = [
      { validFrom: "2026-11-27T09:00:00Z", validTo: "2026-11-27T11:00:00Z", changes: ["created" as const] },
      { validFrom: "2026-11-27T11:00:00Z", validTo: null, changes: ["facets" as const] },
      { validFrom: "2026-11-27T09:00:00Z", validTo: "2026-11-27T11:00:00Z", changes: ["created" as const] },
    ];
    expect(versionChoices(odd).map((c) => [c.n, c.iso])).toEqual([
      [2, "2026-11-27T11:00:00Z"],
      [1, "2026-11-27T09:00:00Z"],
    ]);
  });
  it("gives no choices for no versions", () => {
    expect(versionChoices([])).toEqual([]);
  });
});

describe("comparePick", () => {
  const choices = versionChoices(versions);
  it("compares the older version with now when the newer is current", () => {
    expect(comparePick("2026-11-27T10:00:00Z", "2026-11-27T10:05:00Z", choices)).toEqual({
      compareFrom: "2026-11-27T10:00:00Z",
      at: null,
    });
  });
  it("orders the two moments whichever is picked first", () => {
    expect(comparePick("2026-11-27T10:05:00Z", "2026-11-27T10:00:00Z", choices)).toEqual({
      compareFrom: "2026-11-27T10:00:00Z",
      at: null,
    });
  });
  it("keeps the later moment as at when it is a past version", () => {
    const three = versionChoices([
      ...versions.slice(1),
      { validFrom: "2026-11-27T10:05:00Z", validTo: "2026-11-27T10:09:00Z", changes: ["schema" as const] },
      { validFrom: "2026-11-27T10:09:00Z", validTo: null, changes: ["facets" as const] },
    ]);
    expect(comparePick("2026-11-27T10:00:00Z", "2026-11-27T10:05:00Z", three)).toEqual({
      compareFrom: "2026-11-27T10:00:00Z",
      at: "2026-11-27T10:05:00Z",
    });
  });
  it("refuses the same moment twice", () => {
    expect(comparePick("2026-11-27T10:00:00Z", "2026-11-27T10:00:00.000Z", choices)).toBeNull();
  });
});

describe("pickedChoices", () => {
  const choices = versionChoices(versions);
  it("shows the picked versions, now as the current one", () => {
    expect(pickedChoices("2026-11-27T10:00:00.000Z", null, choices)).toEqual(["2026-11-27T10:00:00Z", "2026-11-27T10:05:00Z"]);
  });
  it("picks nothing for a typed moment that began no version", () => {
    expect(pickedChoices("2026-11-27T10:02:00Z", "2026-11-27T10:03:00Z", choices)).toEqual(["", ""]);
  });
  it("without a compare, only the 'to' side shows now", () => {
    expect(pickedChoices(null, null, choices)).toEqual(["", "2026-11-27T10:05:00Z"]);
  });
});

describe("choiceLabel", () => {
  it("names the number, the time, now and what changed", () => {
    const [newer, older] = versionChoices(versions);
    expect(choiceLabel(newer, "10:05")).toBe("v2 · 10:05 (now) · schema");
    expect(choiceLabel(older, "10:00")).toBe("v1 · 10:00");
  });
});
