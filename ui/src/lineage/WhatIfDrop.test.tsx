// The "what if dropped" check: the request it sends for a column, and the answer shown as text.
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WhatIfDrop } from "./WhatIfDrop";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const FIELD = "datasetField:postgres://wh:5432:shop.raw.customers:email";
const BROKEN = "datasetField:postgres://wh:5432:shop.mart.contacts:email";

describe("WhatIfDrop", () => {
  it("asks the impact check to drop the column and lists what breaks, with owners", async () => {
    const bodies: unknown[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn((url: string, init: RequestInit) => {
        expect(url).toBe("/api/v1/impact/check");
        expect(init.method).toBe("POST");
        bodies.push(JSON.parse(String(init.body)));
        const item = {
          id: BROKEN, type: "FIELD", namespace: "postgres://wh:5432", name: "shop.mart.contacts", field: "email",
          severity: "breaking", effect: "DIRECT", reason: "its value comes from ...", change: 0, depth: 2,
          path: [FIELD, "job:postgres://wh:5432:build_mart", BROKEN], transformations: ["DIRECT/IDENTITY"],
          project: "analytics", owners: ["ana@example.com"], subscribers: [], published: true,
        };
        const report = {
          at: null, severity: "breaking", changes: [], items: [item], published: ["dataset:postgres://wh:5432:shop.mart.contacts"],
          summary: { breaking: 1, warning: 0, info: 0, datasets: 0, jobs: 0, fields: 1, restricted: 0 }, truncated: false,
        };
        return Promise.resolve(new Response(JSON.stringify(report), { status: 200 }));
      }),
    );
    render(<WhatIfDrop target={FIELD} />);
    fireEvent.click(screen.getByTestId("whatif-drop"));
    const result = await screen.findByTestId("whatif-result");
    expect(bodies).toEqual([
      { changes: [{ kind: "drop_column", namespace: "postgres://wh:5432", name: "shop.raw.customers", column: "email" }], at: null },
    ]);
    expect(result.getAttribute("data-severity")).toBe("breaking");
    expect(result.textContent).toContain("1 breaking, 0 warnings, 1 published assets");
    const row = screen.getByTestId("whatif-row");
    expect(row.getAttribute("data-id")).toBe(BROKEN);
    expect(row.textContent).toContain("ana@example.com");
  });
});
