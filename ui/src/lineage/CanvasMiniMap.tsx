// A minimap drawn on a <canvas> for big graphs: one fillRect per node, redrawn on pan/zoom, so
// it costs milliseconds at 10,000 nodes (React Flow's SVG minimap costs seconds there).
import { useReactFlow, useStore } from "@xyflow/react";
import { useEffect, useMemo, useRef } from "react";
import type { LineageFlowNode } from "./types";

const W = 220;
const H = 150;

export function CanvasMiniMap({ nodes, root }: { nodes: LineageFlowNode[]; root: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const rf = useReactFlow();
  const [tx, ty, zoom] = useStore((s) => s.transform);
  const paneW = useStore((s) => s.width);
  const paneH = useStore((s) => s.height);

  const bounds = useMemo(() => {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const n of nodes) {
      x0 = Math.min(x0, n.position.x);
      y0 = Math.min(y0, n.position.y);
      x1 = Math.max(x1, n.position.x + (n.width ?? 0));
      y1 = Math.max(y1, n.position.y + (n.height ?? 0));
    }
    const pad = 40;
    const bw = x1 - x0 + 2 * pad;
    const bh = y1 - y0 + 2 * pad;
    const scale = Math.min(W / bw, H / bh);
    return { x0: x0 - pad, y0: y0 - pad, scale, ox: (W - bw * scale) / 2, oy: (H - bh * scale) / 2 };
  }, [nodes]);

  useEffect(() => {
    const ctx = ref.current?.getContext("2d");
    if (!ctx || !nodes.length) return;
    const { x0, y0, scale, ox, oy } = bounds;
    ctx.clearRect(0, 0, W, H);
    for (const n of nodes) {
      ctx.fillStyle = n.id === root ? "#0f766e" : n.type === "job" ? "#a78bfa" : "#94a3b8";
      ctx.fillRect(ox + (n.position.x - x0) * scale, oy + (n.position.y - y0) * scale, Math.max(1, (n.width ?? 0) * scale), Math.max(1, (n.height ?? 0) * scale));
    }
    // the part of the graph the canvas shows
    ctx.strokeStyle = "#0f766e";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(ox + (-tx / zoom - x0) * scale, oy + (-ty / zoom - y0) * scale, (paneW / zoom) * scale, (paneH / zoom) * scale);
  }, [nodes, root, bounds, tx, ty, zoom, paneW, paneH]);

  return (
    <canvas
      ref={ref}
      width={W}
      height={H}
      className="canvas-minimap"
      data-testid="canvas-minimap"
      title="Click to move there"
      onClick={(e) => {
        const r = e.currentTarget.getBoundingClientRect();
        const { x0, y0, scale, ox, oy } = bounds;
        rf.setCenter(x0 + (e.clientX - r.left - ox) / scale, y0 + (e.clientY - r.top - oy) / scale, { zoom, duration: 200 });
      }}
    />
  );
}
