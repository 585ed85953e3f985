// Huge graphs (more than OVERVIEW_AT nodes) drawn on one <canvas> instead of React Flow's DOM: level of
// detail by zoom — boxes and edge lines when small, the node's name, kind and run state once text would be
// readable — so 50,000 nodes open in seconds and pan and zoom smoothly.
//
// Every node's box is in typed arrays (x, y, w, h); a frame culls by the visible rectangle and draws the
// edges as one path and the boxes by colour, text last; while the view moves, frames are coalesced with
// requestAnimationFrame, and on the largest graphs a gesture over the zoomed-out graph moves a bitmap of the
// whole graph drawn once (the exact drawing follows when the gesture pauses). A click selects a node (the details pane tells everything
// about it), a double click opens its page; wheel zooms around the pointer, dragging pans.
import { useCallback, useEffect, useImperativeHandle, useMemo, useRef, type Ref } from "react";
import { jobLabel, tailCut } from "../model/names";
import { splitName } from "../model/nodeid";
import { useLineageActions } from "./context";
import type { Elements } from "./elements";

/** Above this many nodes the lineage view draws the graph here, not with React Flow. */
export const OVERVIEW_AT = 3000;
/** Text is drawn once a 13 px name would be at least this many pixels high on screen. */
const TEXT_MIN_PX = 7;
const MIN_ZOOM = 0.01;
/** Graphs above this many nodes draw pan and zoom gestures over the zoomed-out graph from a cached bitmap. */
const CACHE_AT = 8000;
const CACHE_PX = 4096;
/** A gesture has paused after this long without input: the exact drawing replaces the cached one. */
const SETTLE_MS = 140;
/** More edges in view than this are drawn as straight lines. */
const MAX_CURVES = 300;
const MAX_ZOOM = 2;

export interface View {
  x: number;
  y: number;
  zoom: number;
}

export interface OverviewHandle {
  zoomBy: (factor: number) => void;
  fit: () => void;
  setView: (v: View) => void;
}

interface Scene {
  ids: string[];
  index: Map<string, number>;
  x: Float64Array;
  y: Float64Array;
  w: Float64Array;
  h: Float64Array;
  job: Uint8Array;
  dim: Uint8Array;
  label: string[];
  sub: string[];
  /** edges as node index pairs */
  from: Int32Array;
  to: Int32Array;
  bounds: { x0: number; y0: number; x1: number; y1: number };
}

function scene(elements: Elements, positions: Record<string, { x: number; y: number }>): Scene {
  const nodes = elements.nodes.filter((n) => positions[n.id]);
  const n = nodes.length;
  const s: Scene = {
    ids: new Array<string>(n),
    index: new Map(),
    x: new Float64Array(n),
    y: new Float64Array(n),
    w: new Float64Array(n),
    h: new Float64Array(n),
    job: new Uint8Array(n),
    dim: new Uint8Array(n),
    label: new Array<string>(n),
    sub: new Array<string>(n),
    from: new Int32Array(0),
    to: new Int32Array(0),
    bounds: { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity },
  };
  const index = s.index;
  nodes.forEach((node, i) => {
    const p = positions[node.id];
    const g = node.data.node;
    index.set(node.id, i);
    s.ids[i] = node.id;
    s.x[i] = p.x;
    s.y[i] = p.y;
    s.w[i] = node.width ?? 300;
    s.h[i] = node.height ?? 60;
    s.job[i] = node.type === "job" ? 1 : 0;
    s.dim[i] = node.data.emphasis === "dim" ? 1 : 0;
    if (node.type === "job") {
      const l = jobLabel(g.name);
      s.label[i] = tailCut(l.title, 34);
      s.sub[i] = [g.latestRun?.state ?? "", l.app || g.namespace].filter(Boolean).join(" · ");
    } else {
      const sn = splitName(g.name);
      s.label[i] = tailCut(sn.title, 34);
      s.sub[i] = tailCut(`${g.namespace}${sn.context ? ` · ${sn.context}` : ""}`, 44);
    }
    s.bounds.x0 = Math.min(s.bounds.x0, p.x);
    s.bounds.y0 = Math.min(s.bounds.y0, p.y);
    s.bounds.x1 = Math.max(s.bounds.x1, p.x + s.w[i]);
    s.bounds.y1 = Math.max(s.bounds.y1, p.y + s.h[i]);
  });
  const from: number[] = [];
  const to: number[] = [];
  for (const e of elements.edges) {
    if (e.data?.kind !== "flow") continue;
    const a = index.get(e.source);
    const b = index.get(e.target);
    if (a !== undefined && b !== undefined) {
      from.push(a);
      to.push(b);
    }
  }
  s.from = Int32Array.from(from);
  s.to = Int32Array.from(to);
  return s;
}

/** The node under a point of the graph (world coordinates), or -1. */
function hit(s: Scene, wx: number, wy: number): number {
  for (let i = s.ids.length - 1; i >= 0; i--) {
    if (wx >= s.x[i] && wx <= s.x[i] + s.w[i] && wy >= s.y[i] && wy <= s.y[i] + s.h[i]) return i;
  }
  return -1;
}

export function fitView(s: Scene | null, width: number, height: number): View | null {
  if (!s || !s.ids.length || width <= 0 || height <= 0) return null;
  const { x0, y0, x1, y1 } = s.bounds;
  const zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, (width - 48) / (x1 - x0), (height - 48) / (y1 - y0)));
  return { x: width / 2 - ((x0 + x1) / 2) * zoom, y: height / 2 - ((y0 + y1) / 2) * zoom, zoom };
}

export function OverviewCanvas({
  elements,
  positions,
  root,
  selected,
  initialView,
  onPaneClick,
  handle,
}: {
  elements: Elements;
  positions: Record<string, { x: number; y: number }>;
  root: string;
  selected: string | null;
  /** the view to open at (the lineage view's readable-zoom rule); later changes of it re-centre */
  initialView: View | null;
  onPaneClick: () => void;
  handle?: Ref<OverviewHandle>;
}) {
  const a = useLineageActions();
  const canvas = useRef<HTMLCanvasElement>(null);
  const view = useRef<View>({ x: 0, y: 0, zoom: 1 });
  const frame = useRef(0);
  const drawnOnce = useRef(false);
  const sc = useMemo(() => scene(elements, positions), [elements, positions]);
  const sel = useRef(selected);

  /** Draws the graph as seen through `v` onto `ctx` (cw x ch CSS pixels at `scale` device pixels each). */
  const paint = useCallback(
    (ctx: CanvasRenderingContext2D, v: View, cw: number, ch: number, scale: number): number => {
      const { x: tx, y: ty, zoom } = v;
      ctx.setTransform(scale, 0, 0, scale, 0, 0);
      ctx.fillStyle = "#f8fafc";
      ctx.fillRect(0, 0, cw, ch);
      ctx.setTransform(scale * zoom, 0, 0, scale * zoom, scale * tx, scale * ty);
      // the visible rectangle of the graph
      const vx0 = -tx / zoom;
      const vy0 = -ty / zoom;
      const vx1 = vx0 + cw / zoom;
      const vy1 = vy0 + ch / zoom;
      const { x, y, w, h, job, dim, from, to } = sc;
      const n = sc.ids.length;
      // edges: one path, from the right middle of the source to the left middle of the target; curves when
      // few are in view and the zoom shows them, straight lines (much cheaper to rasterise) otherwise
      const shown: number[] = [];
      for (let k = 0; k < from.length; k++) {
        const s = from[k];
        const t = to[k];
        const sx = x[s] + w[s];
        const sy = y[s] + h[s] / 2;
        const ex = x[t];
        const ey = y[t] + h[t] / 2;
        if ((sx < vx0 && ex < vx0) || (sx > vx1 && ex > vx1) || (sy < vy0 && ey < vy0) || (sy > vy1 && ey > vy1)) continue;
        shown.push(k);
      }
      const curved = zoom > 0.25 && shown.length <= MAX_CURVES;
      ctx.beginPath();
      for (const k of shown) {
        const s = from[k];
        const t = to[k];
        const sx = x[s] + w[s];
        const sy = y[s] + h[s] / 2;
        const ex = x[t];
        const ey = y[t] + h[t] / 2;
        ctx.moveTo(sx, sy);
        if (curved) {
          const mx = (sx + ex) / 2;
          ctx.bezierCurveTo(mx, sy, mx, ey, ex, ey);
        } else ctx.lineTo(ex, ey);
      }
      ctx.strokeStyle = "rgba(100, 116, 139, 0.55)";
      ctx.lineWidth = Math.max(1 / zoom, 1.2);
      ctx.stroke();
      // boxes: by kind, dimmed ones lighter; the top stripe says dataset (teal) or job (violet)
      const detail = zoom * 13 >= TEXT_MIN_PX;
      const visible: number[] = [];
      for (let i = 0; i < n; i++) {
        if (x[i] > vx1 || x[i] + w[i] < vx0 || y[i] > vy1 || y[i] + h[i] < vy0) continue;
        visible.push(i);
      }
      for (const pass of [0, 1] as const) {
        ctx.fillStyle = pass === 0 ? "#ffffff" : "#f1f5f9";
        for (const i of visible) if (dim[i] === pass) ctx.fillRect(x[i], y[i], w[i], h[i]);
      }
      const stripe = Math.max(3, 1.5 / zoom);
      for (const j of [0, 1] as const) {
        ctx.fillStyle = j ? "#7c3aed" : "#0f766e";
        for (const i of visible) if (job[i] === j) ctx.fillRect(x[i], y[i], w[i], stripe);
      }
      if (zoom * 60 >= 6) {
        ctx.strokeStyle = "#cbd5e1";
        ctx.lineWidth = 1 / zoom;
        ctx.beginPath();
        for (const i of visible) ctx.rect(x[i], y[i], w[i], h[i]);
        ctx.stroke();
      }
      // the root and the selected node
      const ring = (id: string | null, colour: string) => {
        const i = id ? (sc.index.get(id) ?? -1) : -1;
        if (i < 0) return;
        ctx.strokeStyle = colour;
        ctx.lineWidth = Math.max(3, 3 / zoom);
        ctx.strokeRect(x[i], y[i], w[i], h[i]);
      };
      ring(root, "#0f766e");
      ring(sel.current, "#0ea5e9");
      if (detail) {
        ctx.textBaseline = "middle";
        for (const i of visible) {
          ctx.fillStyle = dim[i] ? "#94a3b8" : "#0f172a";
          ctx.font = "600 13px system-ui, sans-serif";
          ctx.fillText(sc.label[i], x[i] + 14, y[i] + 21, w[i] - 24);
          ctx.fillStyle = "#64748b";
          ctx.font = "11px system-ui, sans-serif";
          ctx.fillText(sc.sub[i], x[i] + 14, y[i] + 38, w[i] - 24);
        }
      }
      return visible.length;
    },
    [sc, root],
  );

  /**
   * The whole graph drawn once into a bitmap (CACHE_PX on its long side). While the user pans or zooms out
   * far enough that this bitmap is sharp enough, a frame is one drawImage of it; the exact drawing
   * follows when the gesture pauses.
   */
  const cache = useRef<{ canvas: HTMLCanvasElement; view: View; sc: Scene; sel: string | null } | null>(null);
  const lastInput = useRef(0);
  const settle = useRef(0);
  /** the frame request (set below): the exact drawing after a gesture pauses */
  const redraw = useRef<() => void>(() => undefined);
  const cached = useCallback(() => {
    const c = cache.current;
    if (c && c.sc === sc && c.sel === sel.current) return c;
    const { x0, y0, x1, y1 } = sc.bounds;
    const zoom = CACHE_PX / Math.max(x1 - x0, y1 - y0, 1);
    const cw = Math.ceil((x1 - x0) * zoom) + 2;
    const ch = Math.ceil((y1 - y0) * zoom) + 2;
    const canvas = document.createElement("canvas");
    canvas.width = cw;
    canvas.height = ch;
    const ctx = canvas.getContext("2d", { alpha: false });
    if (!ctx) return null;
    const view = { x: -x0 * zoom + 1, y: -y0 * zoom + 1, zoom };
    paint(ctx, view, cw, ch, 1);
    cache.current = { canvas, view, sc, sel: sel.current };
    return cache.current;
  }, [sc, paint]);

  const draw = useCallback(() => {
    frame.current = 0;
    const el = canvas.current;
    const ctx = el?.getContext("2d", { alpha: false });
    if (!el || !ctx) return;
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const cw = el.clientWidth;
    const ch = el.clientHeight;
    if (el.width !== Math.round(cw * dpr) || el.height !== Math.round(ch * dpr)) {
      el.width = Math.round(cw * dpr);
      el.height = Math.round(ch * dpr);
    }
    const v = view.current;
    const moving = performance.now() - lastInput.current < SETTLE_MS;
    const big = sc.ids.length > CACHE_AT;
    const c = moving && big ? cached() : null;
    if (c && v.zoom * dpr <= c.view.zoom * 1.5) {
      // a gesture over the zoomed-out graph: the cached bitmap, moved and scaled to this view
      const k = v.zoom / c.view.zoom;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = "#f8fafc";
      ctx.fillRect(0, 0, cw, ch);
      ctx.imageSmoothingEnabled = true;
      ctx.drawImage(c.canvas, v.x - c.view.x * k, v.y - c.view.y * k, c.canvas.width * k, c.canvas.height * k);
      window.clearTimeout(settle.current);
      settle.current = window.setTimeout(() => redraw.current(), SETTLE_MS);
      el.dataset.frame = "cached";
      el.dataset.cachedFrames = String(Number(el.dataset.cachedFrames ?? 0) + 1);
    } else {
      el.dataset.visible = String(paint(ctx, v, cw, ch, dpr));
      el.dataset.frame = "exact";
    }
    if (!drawnOnce.current) {
      drawnOnce.current = true;
      el.dataset.drawn = "true";
      performance.mark("headwater:overview-drawn", { detail: { nodes: sc.ids.length } });
    }
    el.dataset.zoom = v.zoom.toFixed(3);
    el.dataset.drawMs = String(Math.round(performance.now() - t0));
  }, [sc, paint, cached]);

  const request = useCallback(() => {
    if (!frame.current) frame.current = requestAnimationFrame(draw);
  }, [draw]);
  useEffect(() => {
    redraw.current = request;
  }, [request]);

  const setView = useCallback(
    (v: View, input = false) => {
      view.current = { ...v, zoom: Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, v.zoom)) };
      if (input) lastInput.current = performance.now();
      request();
    },
    [request],
  );

  useImperativeHandle(
    handle,
    () => ({
      zoomBy: (factor: number) => {
        const el = canvas.current;
        if (!el) return;
        const v = view.current;
        const cx = el.clientWidth / 2;
        const cy = el.clientHeight / 2;
        const zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, v.zoom * factor));
        setView({ x: cx - ((cx - v.x) / v.zoom) * zoom, y: cy - ((cy - v.y) / v.zoom) * zoom, zoom });
      },
      fit: () => {
        const el = canvas.current;
        const v = el ? fitView(sc, el.clientWidth, el.clientHeight) : null;
        if (v) setView(v);
      },
      setView,
    }),
    [sc, setView],
  );

  // the opening view, and a new one when the lineage view asks (a pane opened, another focus)
  useEffect(() => {
    if (initialView) setView(initialView);
  }, [initialView, setView]);
  useEffect(() => {
    sel.current = selected;
    request();
  }, [request, selected]);
  useEffect(
    () => () => {
      cancelAnimationFrame(frame.current);
      window.clearTimeout(settle.current);
    },
    [],
  );
  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const ro = new ResizeObserver(() => request());
    ro.observe(el);
    // wheel: zoom around the pointer (a non-passive listener, so the page does not scroll)
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      const px = e.clientX - r.left;
      const py = e.clientY - r.top;
      const v = view.current;
      const zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, v.zoom * Math.exp(-e.deltaY * 0.0015)));
      setView({ x: px - ((px - v.x) / v.zoom) * zoom, y: py - ((py - v.y) / v.zoom) * zoom, zoom }, true);
    };
    el.addEventListener("wheel", onWheel, { passive: false });
    return () => {
      ro.disconnect();
      el.removeEventListener("wheel", onWheel);
    };
  }, [request, setView]);

  const drag = useRef<{ x: number; y: number; vx: number; vy: number; moved: boolean } | null>(null);
  const worldAt = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const v = view.current;
    return { x: (e.clientX - r.left - v.x) / v.zoom, y: (e.clientY - r.top - v.y) / v.zoom };
  };
  return (
    <canvas
      ref={canvas}
      className="overview-canvas"
      data-testid="overview-canvas"
      data-node-count={sc.ids.length}
      role="img"
      aria-label={`Lineage graph of ${sc.ids.length} nodes, drawn as an overview: scroll to zoom, drag to pan, click a node for its details, double-click to open it`}
      onMouseDown={(e) => {
        drag.current = { x: e.clientX, y: e.clientY, vx: view.current.x, vy: view.current.y, moved: false };
      }}
      onMouseMove={(e) => {
        const d = drag.current;
        if (!d || !(e.buttons & 1)) return;
        if (Math.abs(e.clientX - d.x) + Math.abs(e.clientY - d.y) > 3) d.moved = true;
        setView({ ...view.current, x: d.vx + e.clientX - d.x, y: d.vy + e.clientY - d.y }, true);
      }}
      onMouseUp={(e) => {
        const d = drag.current;
        drag.current = null;
        if (d?.moved) return;
        const p = worldAt(e);
        const i = hit(sc, p.x, p.y);
        if (i >= 0) a.selectNode(sc.ids[i]);
        else onPaneClick();
      }}
      onDoubleClick={(e) => {
        const p = worldAt(e);
        const i = hit(sc, p.x, p.y);
        if (i >= 0) a.openAsset(sc.ids[i]);
      }}
    />
  );
}
