// Names from events are data, never markup: every place that shows them renders text.
import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SchemaTable } from "./details";
import { CodeBlock } from "../lib/highlight";
import { AssetRow } from "../pages/HomePage";
import type { ListNode } from "../api/types";

const EVIL = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b>bold</b>`;

afterEach(cleanup);

function assertInert(container: HTMLElement) {
  expect(container.querySelector("img")).toBeNull();
  expect(container.querySelector("script")).toBeNull();
  expect(container.querySelector("b")?.textContent ?? "").not.toBe("bold");
  expect(container.textContent).toContain(EVIL);
}

describe("HTML in data is shown as text", () => {
  it("in the schema table (names, types, descriptions, nested fields)", () => {
    const { container } = render(
      <SchemaTable fields={[{ name: EVIL, type: EVIL, description: EVIL, fields: [{ name: EVIL, type: null, description: null, fields: [] }] }]} />,
    );
    assertInert(container);
  });

  it("in highlighted SQL and JSON", () => {
    const sql = render(<CodeBlock code={`SELECT '${EVIL}' AS x FROM t`} language="sql" />);
    assertInert(sql.container);
    expect(sql.container.querySelector(".tok-keyword")?.textContent).toBe("SELECT");
    cleanup();
    const json = render(<CodeBlock code={JSON.stringify({ name: EVIL }, null, 2)} language="json" />);
    expect(json.container.querySelector("img")).toBeNull();
    expect(json.container.textContent).toContain('onerror=\\"window.__xss=1\\"');
  });

  it("in Python and Scala source code", () => {
    for (const language of ["python", "scala", "java"]) {
      const { container } = render(<CodeBlock code={`x = "${EVIL}"  # comment`} language={language} />);
      expect(container.querySelector("img")).toBeNull();
      expect(container.querySelector("script")).toBeNull();
      expect(container.querySelector(".tok-string")).not.toBeNull();
      expect(container.textContent).toContain(EVIL);
      cleanup();
    }
  });

  it("in asset lists", () => {
    const n: ListNode = {
      id: `dataset:file:${EVIL}`,
      type: "DATASET",
      namespace: "file",
      name: EVIL,
      kind: "file",
      fields: [],
      jobType: null,
      latestRun: null,
      updatedAt: "2026-01-05T02:00:00Z",
      deleted: false,
    };
    const { container } = render(<AssetRow n={n} />);
    assertInert(container);
    // the link's href is a URL-encoded query, not raw text
    expect(container.querySelector("a")?.getAttribute("href")).toMatch(/^\/asset\?node=dataset%3Afile%3A%3Cimg/);
  });
});
