// Compare's colours must tell added, removed and changed apart, and changed must not pass for the
// highlight (a column on the selected path): hues at least 60° apart, read from the stylesheet itself.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const css = readFileSync(join(process.cwd(), "src", "styles.css"), "utf8");

function colour(name: string): string {
  const m = new RegExp(`--${name}:\\s*(#[0-9a-f]{6})`, "i").exec(css);
  if (!m) throw new Error(`--${name} is not in styles.css`);
  return m[1];
}

function hue(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const max = Math.max(r, g, b);
  const d = max - Math.min(r, g, b);
  if (d === 0) return 0;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

const apart = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

describe("compare colours", () => {
  it("hue of a known colour", () => {
    expect(hue("#ff0000")).toBe(0);
    expect(Math.round(hue("#00ff00"))).toBe(120);
    expect(Math.round(hue("#8000ff"))).toBe(270);
  });
  it("added, removed and changed are each at least 60° apart, and changed is far from the highlight", () => {
    const names = ["added", "removed", "changed"];
    for (const a of names)
      for (const b of names)
        if (a < b) expect(apart(hue(colour(a)), hue(colour(b))), `${a} vs ${b}`).toBeGreaterThanOrEqual(60);
    expect(apart(hue(colour("changed")), hue(colour("hl")))).toBeGreaterThanOrEqual(60);
  });
  it("the changed rows and legend use the changed colour, not the highlight's", () => {
    for (const rule of [".legend.changed", ".col-row.mark-changed", ".col-retyped"]) {
      const body = new RegExp(`${rule.replace(/\./g, "\\.")}\\s*\\{([^}]*)\\}`).exec(css)?.[1] ?? "";
      expect(body, rule).toContain("var(--changed");
      expect(body, rule).not.toContain("--hl");
    }
  });
});
