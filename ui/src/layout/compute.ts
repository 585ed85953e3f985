import { layeredLayout, layeredPacked } from "./layered";
import { ELK_MAX_NODES, type LayoutRequest, type LayoutResult, type PackedResult } from "./types";

export async function computeLayout(req: LayoutRequest): Promise<LayoutResult | PackedResult> {
  const t0 = performance.now();
  if (req.engine === "layered") {
    const { x, y } = layeredPacked(req.packed);
    return { seq: req.seq, engine: "layered", x, y, ms: performance.now() - t0 };
  }
  if (req.nodes.length <= ELK_MAX_NODES) {
    try {
      // loaded on first use: big graphs never pay for parsing ELK
      const { elkLayout } = await import("./elk");
      // ELK's bundle made itself this worker's `onmessage` handler: drop it (no task can run
      // between the bundle's evaluation and this line), requests go to layout.worker.ts's listener
      if (typeof self !== "undefined" && "onmessage" in self) (self as { onmessage: unknown }).onmessage = null;
      const { positions, routes } = await elkLayout(req.nodes, req.edges);
      return { seq: req.seq, positions, routes, engine: "elk", ms: performance.now() - t0 };
    } catch {
      // fall through to the simple layout: a layout problem must never blank the graph
    }
  }
  const positions = layeredLayout(req.nodes, req.edges);
  return { seq: req.seq, positions, engine: "layered", ms: performance.now() - t0 };
}
