import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { CodeBlock, highlightLines } from "./highlight";

afterEach(cleanup);

const SCRIPT = `import sys
doc = """two
lines"""
df.write.parquet(out)  # <img src=x>
`;

describe("source code by lines", () => {
  it("keeps a token that spans lines highlighted on each of them", () => {
    const lines = highlightLines(SCRIPT, "python");
    expect(lines).toHaveLength(4); // the last newline ends line 4, it does not open a fifth
    const { container } = render(<CodeBlock code={SCRIPT} language="python" lineNumbers mark={4} testId="c" />);
    const rows = container.querySelectorAll(".code-line");
    expect(rows).toHaveLength(4);
    expect(rows[1].querySelector(".tok-string")?.textContent).toBe('"""two');
    expect(rows[2].querySelector(".tok-string")?.textContent).toBe('lines"""');
    const marked = container.querySelector('[data-testid="code-marked-line"]');
    expect(marked?.getAttribute("data-line")).toBe("4");
    expect(marked?.textContent).toContain("df.write.parquet(out)");
    // the text is the code, line numbers aside; markup in it stays text
    expect(container.querySelector("img")).toBeNull();
    const text = [...rows].map((r) => [...r.childNodes].slice(1).map((n) => n.textContent).join("")).join("");
    expect(text).toBe(SCRIPT);
  });

  it("without numbers or a mark, the plain block", () => {
    const { container } = render(<CodeBlock code="SELECT 1" language="sql" />);
    expect(container.querySelector(".code-line")).toBeNull();
    expect(container.textContent).toBe("SELECT 1");
  });
});
