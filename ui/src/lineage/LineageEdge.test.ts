import { describe, expect, it } from "vitest";
import { placeCard, routePath } from "./LineageEdge";

describe("edge routes", () => {
  const route = [
    { x: 232, y: 25 },
    { x: 250, y: 25 },
    { x: 250, y: 125 },
    { x: 312, y: 125 },
  ];
  it("draws the route from the drawn ends, level first and last segments, corners rounded", () => {
    const d = routePath(route, 235, 25, 309, 125);
    // starts and ends where React Flow draws the handles, turns at x = 250: the first corner's radius is
    // half the 15 px first segment (7.5), the second the full 8 px
    expect(d).toBe("M 235 25 L 242.5 25 Q 250 25 250 32.5 L 250 117 Q 250 125 258 125 L 309 125");
  });
  it("gives up (a curve is drawn) when a node was moved away from the route's ends", () => {
    expect(routePath(route, 235, 25, 400, 125)).toBeNull();
    expect(routePath(undefined, 0, 0, 1, 1)).toBeNull();
  });
});

describe("edge card placement", () => {
  const card = { w: 200, h: 80 };
  const win = { w: 1600, h: 1000 };
  it("goes above-right of the pointer when nothing is in the way", () => {
    expect(placeCard({ x: 500, y: 500 }, card, null, win)).toEqual({ x: 514, y: 406 });
  });
  it("keeps off the selected node: above-right would cover it, below-right does not", () => {
    const job = { left: 510, top: 380, right: 742, bottom: 428 };
    expect(placeCard({ x: 500, y: 500 }, card, job, win)).toEqual({ x: 514, y: 514 });
  });
  it("goes left when the right would cover the node both above and below", () => {
    const tall = { left: 505, top: 300, right: 800, bottom: 700 };
    expect(placeCard({ x: 500, y: 500 }, card, tall, win)).toEqual({ x: 286, y: 406 });
  });
});
