// Main-thread side of the layout worker: one worker; answers come back in request order.
import { layeredLayout, packGraph, unpackPositions } from "./layered";
import type { Engine, LayoutEdge, LayoutNode, LayoutResult, PackedResult } from "./types";

type Pending = { resolve: (r: LayoutResult | PackedResult) => void; reject: (e: unknown) => void };

export class LayoutClient {
  private worker: Worker | null = null;
  private seq = 0;
  private pending = new Map<number, Pending>();

  private ensure(): Worker | null {
    if (this.worker || typeof Worker === "undefined") return this.worker;
    this.worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
    this.worker.onmessage = (ev: MessageEvent<LayoutResult | PackedResult>) => {
      const p = this.pending.get(ev.data.seq);
      this.pending.delete(ev.data.seq);
      p?.resolve(ev.data);
    };
    this.worker.onerror = (ev) => {
      for (const p of this.pending.values()) p.reject(ev);
      this.pending.clear();
    };
    return this.worker;
  }

  /** Start the worker early so its start-up overlaps the first lineage request. */
  warm(): void {
    this.ensure();
  }

  async layout(nodes: LayoutNode[], edges: LayoutEdge[], engine: Engine): Promise<LayoutResult> {
    const seq = ++this.seq;
    const w = this.ensure();
    if (!w) {
      // no Worker (non-browser environments): the fast layout on this thread
      return { seq, positions: layeredLayout(nodes, edges), engine: "layered", ms: 0 };
    }
    if (engine === "elk") {
      return new Promise<LayoutResult>((resolve, reject) => {
        this.pending.set(seq, { resolve: (r) => resolve(r as LayoutResult), reject });
        w.postMessage({ seq, engine, nodes, edges });
      });
    }
    // the fast layout: the graph's typed arrays go to the worker and the coordinates come back (transferred)
    const packed = packGraph(nodes, edges);
    return new Promise<LayoutResult>((resolve, reject) => {
      this.pending.set(seq, {
        resolve: (r) => {
          const { x, y, ms } = r as PackedResult;
          resolve({ seq, positions: unpackPositions(packed.ids, x, y), engine: "layered", ms });
        },
        reject,
      });
      const { width, height, level, from, to } = packed;
      w.postMessage({ seq, engine, packed }, [width.buffer, height.buffer, level.buffer, from.buffer, to.buffer]);
    });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}
