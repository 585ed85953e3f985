import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { LongName, namePieces } from "./LongName";

afterEach(cleanup);

describe("a long name may wrap after its separators", () => {
  it("splits after each run of separators, keeping every character", () => {
    expect(namePieces("warehouse/finance/ltv_final_v2")).toEqual(["warehouse/", "finance/", "ltv_", "final_", "v2"]);
    expect(namePieces("s3://bucket/a.csv")).toEqual(["s3://", "bucket/", "a.", "csv"]);
    expect(namePieces("plain")).toEqual(["plain"]);
    expect(namePieces("")).toEqual([""]);
  });

  it("renders the name as text with a break opportunity between the pieces", () => {
    const { container } = render(<h1><LongName name="/data/hr/<b>x</b>.csv" /></h1>);
    expect(container.textContent).toBe("/data/hr/<b>x</b>.csv");
    expect(container.querySelector("b")).toBeNull();
    expect(container.querySelectorAll("wbr").length).toBe(namePieces("/data/hr/<b>x</b>.csv").length - 1);
  });
});
