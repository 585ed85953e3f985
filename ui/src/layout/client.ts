// Main-thread side of the layout worker: one worker, latest request wins.
import { layeredLayout } from "./layered";
import type { LayoutEdge, LayoutNode, LayoutResult } from "./types";

type Pending = { resolve: (r: LayoutResult) => void; reject: (e: unknown) => void };

export class LayoutClient {
  private worker: Worker | null = null;
  private seq = 0;
  private pending = new Map<number, Pending>();

  private ensure(): Worker | null {
    if (this.worker || typeof Worker === "undefined") return this.worker;
    this.worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
    this.worker.onmessage = (ev: MessageEvent<LayoutResult>) => {
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

  async layout(nodes: LayoutNode[], edges: LayoutEdge[]): Promise<LayoutResult> {
    const seq = ++this.seq;
    const w = this.ensure();
    if (!w) {
      // no Worker (non-browser environments): the fast layout on this thread
      return { seq, positions: layeredLayout(nodes, edges), engine: "layered", ms: 0 };
    }
    return new Promise<LayoutResult>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      w.postMessage({ seq, nodes, edges });
    });
  }

  /** True when a newer request was made after `seq`: its answer should be dropped. */
  isStale(seq: number): boolean {
    return seq !== this.seq;
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}
