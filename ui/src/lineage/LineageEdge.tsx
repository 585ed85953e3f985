import { BaseEdge, getBezierPath, type EdgeProps } from "@xyflow/react";
import { memo, useLayoutEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import type { LineageFlowEdge } from "./types";

type Point = { x: number; y: number };

/** How far the drawn ends may be from the route's ends (a node dragged away): beyond, a curve is drawn. */
const ROUTE_SLACK = 8;
const CORNER = 8;

/**
 * An orthogonal route as an SVG path from (sx, sy) to (tx, ty), corners rounded; null when the
 * route's ends are not where the edge is drawn (the node was moved after the layout).
 */
export function routePath(route: Point[] | undefined, sx: number, sy: number, tx: number, ty: number): string | null {
  if (!route || route.length < 2) return null;
  const a = route[0];
  const b = route[route.length - 1];
  if (Math.abs(a.x - sx) > ROUTE_SLACK || Math.abs(a.y - sy) > ROUTE_SLACK || Math.abs(b.x - tx) > ROUTE_SLACK || Math.abs(b.y - ty) > ROUTE_SLACK) return null;
  // the drawn ends (the handles' outer sides) replace the route's (the node sides); the first and last
  // segments keep the handles' heights so they stay level
  const pts: Point[] = [{ x: sx, y: sy }, ...route.slice(1, -1), { x: tx, y: ty }];
  if (pts.length > 2) {
    pts[1] = { x: pts[1].x, y: sy };
    pts[pts.length - 2] = { x: pts[pts.length - 2].x, y: ty };
  }
  let d = `M ${sx} ${sy}`;
  for (let i = 1; i < pts.length - 1; i++) {
    const p = pts[i - 1], c = pts[i], n = pts[i + 1];
    const r = Math.min(CORNER, Math.hypot(c.x - p.x, c.y - p.y) / 2, Math.hypot(n.x - c.x, n.y - c.y) / 2);
    const into = unit(p, c), out = unit(c, n);
    d += ` L ${c.x - into.x * r} ${c.y - into.y * r} Q ${c.x} ${c.y} ${c.x + out.x * r} ${c.y + out.y * r}`;
  }
  return `${d} L ${tx} ${ty}`;
}

function unit(a: Point, b: Point): Point {
  const l = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  return { x: (b.x - a.x) / l, y: (b.y - a.y) / l };
}

type Rect = { left: number; top: number; right: number; bottom: number };
const overlap = (a: Rect, b: Rect) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));

/**
 * Where an edge's card goes beside the pointer: the first of above-right, below-right, above-left,
 * below-left that keeps off the selected node and inside the window (else the one covering least).
 */
export function placeCard(pointer: Point, card: { w: number; h: number }, avoid: Rect | null, win: { w: number; h: number }): Point {
  const gap = 14;
  const spots: Point[] = [
    { x: pointer.x + gap, y: pointer.y - gap - card.h },
    { x: pointer.x + gap, y: pointer.y + gap },
    { x: pointer.x - gap - card.w, y: pointer.y - gap - card.h },
    { x: pointer.x - gap - card.w, y: pointer.y + gap },
  ];
  const cost = (s: Point) => {
    const r = { left: s.x, top: s.y, right: s.x + card.w, bottom: s.y + card.h };
    const out = Math.max(0, -r.left) + Math.max(0, -r.top) + Math.max(0, r.right - win.w) + Math.max(0, r.bottom - win.h);
    return (avoid ? overlap(r, avoid) * 1000 : 0) + out;
  };
  return spots.reduce((best, s) => (cost(s) < cost(best) ? s : best));
}

function EdgeCard({ data, pointer }: { data: NonNullable<LineageFlowEdge["data"]>; pointer: Point }) {
  const ref = useRef<HTMLDivElement>(null);
  const [at, setAt] = useState<Point | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const sel = document.querySelector(".react-flow__node .lnode.is-selected")?.getBoundingClientRect() ?? null;
    setAt(placeCard(pointer, { w: el.offsetWidth, h: el.offsetHeight }, sel, { w: window.innerWidth, h: window.innerHeight }));
  }, [pointer]);
  return createPortal(
    <div
      ref={ref}
      className="edge-card"
      style={{ position: "fixed", left: at?.x ?? pointer.x, top: at?.y ?? pointer.y, visibility: at ? "visible" : "hidden" }}
      data-testid="edge-card"
    >
      {data.label && <div className="edge-card-title">{data.label}</div>}
      {data.transformations?.map((t, i) => (
        <div key={i} className="edge-card-t">
          <span className={`pill pill-t-${t.type.toLowerCase()}`}>{t.type}</span>
          {t.subtype && <span className="pill">{t.subtype}</span>}
          {t.masking && <span className="pill pill-mask">masking</span>}
          {t.description && <div className="edge-card-desc">{t.description}</div>}
        </div>
      ))}
      {data.job && <div className="edge-card-via mono">job: {data.job}</div>}
      {data.via?.map((v) => (
        <div key={v} className="edge-card-via mono">
          via {v}
        </div>
      ))}
    </div>,
    document.body,
  );
}

/**
 * A flow or column edge, along the layout's route around the boxes (a curve before the route is
 * known); hovering shows what it carries (transformation type, subtype, description; or the jobs)
 * beside the pointer, never over the selected node.
 */
function LineageEdgeView(props: EdgeProps<LineageFlowEdge>) {
  const { id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data, markerEnd } = props;
  const [pointer, setPointer] = useState<Point | null>(null);
  const routed = routePath(data?.route, sourceX, sourceY, targetX, targetY);
  const path = routed ?? getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition })[0];
  const cls = ["ledge", `ledge-${data?.kind ?? "flow"}`, data?.dependency ? `dep-${data.dependency}` : "", `emph-${data?.emphasis ?? "normal"}`, data?.mark ? `mark-${data.mark}` : ""].join(" ");
  const hasCard = Boolean(data && (data.transformations?.length || data.via?.length || data.label));
  return (
    <>
      <BaseEdge id={id} path={path} className={cls} markerEnd={markerEnd} />
      <path
        d={path}
        className="ledge-hit"
        data-testid={`edge-${data?.kind ?? "flow"}`}
        data-emphasis={data?.emphasis ?? "normal"}
        data-dependency={data?.dependency ?? ""}
        data-routed={routed ? "true" : "false"}
        onMouseEnter={(e) => setPointer({ x: e.clientX, y: e.clientY })}
        onMouseLeave={() => setPointer(null)}
      />
      {pointer && hasCard && data ? <EdgeCard data={data} pointer={pointer} /> : null}
    </>
  );
}

export const LineageEdge = memo(LineageEdgeView);
