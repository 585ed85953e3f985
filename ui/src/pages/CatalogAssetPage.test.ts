import { describe, expect, it } from "vitest";
import { formsToText, textToForms } from "./CatalogAssetPage";

describe("custom forms as text", () => {
  it("round-trips form.key = value lines", () => {
    const forms = { retention: { years: "7", basis: "law = HR act" }, quality: { owner: "hr" } };
    const text = formsToText(forms);
    expect(text).toBe("retention.years = 7\nretention.basis = law = HR act\nquality.owner = hr");
    expect(textToForms(text)).toEqual({ forms, error: null });
    expect(textToForms("\n  \n")).toEqual({ forms: {}, error: null });
  });
  it("names the line that is not form.key = value", () => {
    expect(textToForms("retention.years = 7\nno equals").error).toBe('Forms, line 2: expected form.key = value, got "no equals"');
    expect(textToForms("years = 7").error).toContain("line 1");
    expect(textToForms(".years = 7").error).toContain("line 1");
  });
});
