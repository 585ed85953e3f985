import { describe, expect, it } from "vitest";
import { layeredLayout, packGraph } from "./layered";

describe("fast layered layout", () => {
  it("puts each level in its own column, left to right, without overlaps", () => {
    const nodes = [
      { id: "a", width: 200, height: 60, level: -1 },
      { id: "b", width: 200, height: 60, level: -1 },
      { id: "j", width: 200, height: 60, level: 0 },
      { id: "c", width: 200, height: 100, level: 1 },
    ];
    const edges = [
      { id: "1", source: "a", target: "j" },
      { id: "2", source: "b", target: "j" },
      { id: "3", source: "j", target: "c" },
    ];
    const p = layeredLayout(nodes, edges);
    expect(p.a.x).toBe(p.b.x);
    expect(p.a.x).toBeLessThan(p.j.x);
    expect(p.j.x).toBeLessThan(p.c.x);
    expect(Math.abs(p.a.y - p.b.y)).toBeGreaterThanOrEqual(60);
  });
  it("handles 10,000 nodes", () => {
    const nodes = Array.from({ length: 10000 }, (_, i) => ({ id: `n${i}`, width: 240, height: 56, level: i % 20 }));
    const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: nodes[i].id, target: n.id }));
    const p = layeredLayout(nodes, edges);
    expect(Object.keys(p)).toHaveLength(10000);
  });
  it("packs edges by node index, column edges and edges to unknown nodes left out", () => {
    const nodes = [
      { id: "a", width: 200, height: 60, level: 0 },
      { id: "b", width: 120, height: 40, level: 1 },
    ];
    const g = packGraph(nodes, [
      { id: "1", source: "a", target: "b" },
      { id: "2", source: "a", target: "b", routeOnly: true },
      { id: "3", source: "a", target: "zz" },
    ]);
    expect(g.ids).toEqual(["a", "b"]);
    expect([...g.from]).toEqual([0]);
    expect([...g.to]).toEqual([1]);
    expect([...g.width]).toEqual([200, 120]);
    expect([...g.height]).toEqual([60, 40]);
    expect([...g.level]).toEqual([0, 1]);
  });
});
