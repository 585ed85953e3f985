import { layeredLayout } from "./layered";
import { ELK_MAX_NODES, type LayoutRequest, type LayoutResult } from "./types";

export async function computeLayout(req: LayoutRequest): Promise<LayoutResult> {
  const t0 = performance.now();
  if (req.engine === "elk" && req.nodes.length <= ELK_MAX_NODES) {
    try {
      // loaded on first use: big graphs never pay for parsing ELK
      const { elkLayout } = await import("./elk");
      const positions = await elkLayout(req.nodes, req.edges);
      return { seq: req.seq, positions, engine: "elk", ms: performance.now() - t0 };
    } catch {
      // fall through to the simple layout: a layout problem must never blank the graph
    }
  }
  const positions = layeredLayout(req.nodes, req.edges);
  return { seq: req.seq, positions, engine: "layered", ms: performance.now() - t0 };
}
