import { afterEach, describe, expect, it, vi } from "vitest";
import { formatTime, offsetLabel, parseTimeInput, timeInputValue } from "./format";

describe("times in the user's zone", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("accepts pasted ISO timestamps with a zone exactly", () => {
    expect(parseTimeInput("2026-11-22T05:10:10Z", false)).toBe("2026-11-22T05:10:10.000Z");
    expect(parseTimeInput("2026-11-22T07:10:10+02:00", false)).toBe("2026-11-22T05:10:10.000Z");
    expect(parseTimeInput(" 2026-11-22 05:10:10.123z ", true)).toBe("2026-11-22T05:10:10.123Z");
    expect(parseTimeInput("1763788210000", false)).toBe("2025-11-22T05:10:10.000Z");
  });

  it("reads wall-clock values in UTC when asked, else in the browser's zone", () => {
    expect(parseTimeInput("2026-11-22 05:10", true)).toBe("2026-11-22T05:10:00.000Z");
    expect(parseTimeInput("2026-11-22T05:10:10", true)).toBe("2026-11-22T05:10:10.000Z");
    expect(parseTimeInput("2026-11-22", true)).toBe("2026-11-22T00:00:00.000Z");
    const local = parseTimeInput("2026-11-22 05:10:10", false)!;
    expect(new Date(local).getHours()).toBe(5);
    expect(timeInputValue(local, false)).toBe("2026-11-22 05:10:10");
  });

  it("refuses what is not a time", () => {
    for (const v of ["", "yesterday", "2026-02-31", "2026-13-01 00:00", "22/11/2026"]) expect(parseTimeInput(v, true)).toBeNull();
  });

  it("writes the zone next to every time", () => {
    expect(formatTime("2026-11-22T05:10:10.123Z", true)).toBe("2026-11-22 05:10:10 UTC");
    expect(formatTime("2026-11-22T05:10:10Z", false)).toMatch(/^2026-11-2\d \d\d:\d\d:10 UTC([+-]\d\d:\d\d)?$/);
    expect(offsetLabel(new Date(), true)).toBe("UTC");
    expect(timeInputValue("2026-11-22T05:10:10Z", true)).toBe("2026-11-22 05:10:10");
  });
});
