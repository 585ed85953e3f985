// The React Flow canvas: custom nodes and edges, positions from the layout worker, minimap.
import {
  Background,
  BackgroundVariant,
  MiniMap,
  ReactFlow,
  useReactFlow,
  useStore,
  useStoreApi,
  type NodeTypes,
  type EdgeTypes,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { OVERVIEW_AT, OverviewCanvas, type OverviewHandle } from "./OverviewCanvas";
import { LayoutClient } from "../layout/client";
import { ELK_MAX_NODES, type LayoutResult, type Point } from "../layout/types";
import type { Elements } from "./elements";
import { CanvasMiniMap } from "./CanvasMiniMap";
import { DatasetNode } from "./DatasetNode";
import { JobNode } from "./JobNode";
import { LineageEdge } from "./LineageEdge";
import { MapIcon, FitIcon, MinusIcon, PlusIcon } from "../components/Icons";
import type { LineageFlowNode } from "./types";
import { push } from "../lib/multimap";
import { HEADER_HEIGHT } from "./sizes";
import { measureNodes } from "./measure";

const nodeTypes: NodeTypes = { dataset: DatasetNode, job: JobNode };
const edgeTypes: EdgeTypes = { lineage: LineageEdge };

/** Nodes beyond which React Flow only renders what is in the viewport. */
const VIRTUALIZE_AT = 250;
/** Nodes beyond which the SVG minimap gives way to a <canvas> one (SVG: ~0.7 s per 1,000 nodes). */
const MINIMAP_MAX = 500;
/**
 * The least zoom the view opens at: node names (13 px) are >= 11 px on screen. A graph is fitted
 * into view when it fits at this zoom or more (never above FIT_MAX_ZOOM); otherwise the view opens
 * on the focus node and its nearest neighbours at a readable zoom, the minimap shows the rest and a
 * note says how many nodes are outside the view.
 */
export const READABLE_ZOOM = 11 / 13;
const FIT_PADDING = 24;
/**
 * Below this zoom node names would be under 5 px on screen: nodes are drawn as boxes without text
 * (level of detail), which keeps zooming a fitted 1,000-node graph fluid.
 */
export const LOD_ZOOM = 0.4;
const FIT_MAX_ZOOM = 1.1;
/** Graphs up to this many nodes fade their new nodes in after an expansion. */
const ANIMATE_AT = 250;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

type Viewport = { x: number; y: number; zoom: number };

/** The user's last act on the graph: the node whose place on screen the next layout keeps. */
export interface Anchor {
  id: string;
  seq: number;
}

export function Canvas({
  elements,
  root,
  focus,
  selected = null,
  anchor = null,
  onPaneClick,
  client,
}: {
  elements: Elements;
  /** the layout worker, started by the lineage view before the answer arrives */
  client: LayoutClient;
  root: string;
  /** the node the view centres on (the selected node, else the root); re-centred when the canvas resizes */
  focus: string;
  /** the selected node (the overview of a huge graph rings it; React Flow nodes show it themselves) */
  selected?: string | null;
  /** the node the user last acted on (expanded, selected, opened the columns of): it keeps its place on screen */
  anchor?: Anchor | null;
  onPaneClick: () => void;
}) {
  // huge graphs: drawn on one <canvas> with level of detail instead of React Flow's DOM nodes
  const overview = elements.nodes.length > OVERVIEW_AT;
  const overviewRef = useRef<OverviewHandle>(null);
  const lowDetail = useStore((st) => st.transform[2] < LOD_ZOOM);
  const [positions, setPositions] = useState<Record<string, { x: number; y: number }>>({});
  // ELK's routes of the edges around the boxes (none from the fast layout: those edges are curves)
  const [routes, setRoutes] = useState<Record<string, Point[]> | null>(null);
  // bumped with every layout applied: new positions are viewed again
  const [layoutSeq, setLayoutSeq] = useState(0);
  const [ready, setReady] = useState<{ seq: number; ms: number; engine: string } | null>(null);
  const [showMap, setShowMap] = useState(false);
  const rf = useReactFlow();
  const fittedFor = useRef<string>("");
  const box = useRef<HTMLDivElement>(null);
  /** the last viewport the canvas asked for (user zooms reset it) */
  const target = useRef<{ x: number; y: number; zoom: number } | null>(null);
  const sizes = useMemo(() => new Map(elements.layoutNodes.map((n) => [n.id, n])), [elements.layoutNodes]);
  const neighbours = useMemo(() => {
    const m = new Map<string, string[]>();
    for (const e of elements.layoutEdges) {
      push(m, e.source, e.target);
      push(m, e.target, e.source);
    }
    return m;
  }, [elements.layoutEdges]);
  /** the positions the current viewport was chosen for (a new layout keeps the anchor's place from them) */
  const shown = useRef<Record<string, { x: number; y: number }>>({});
  /** the user has panned, zoomed or acted on the graph: layouts keep their place instead of re-opening the view */
  const touched = useRef(false);
  const anchorRef = useRef<Anchor | null>(anchor);
  useEffect(() => {
    anchorRef.current = anchor;
    if (anchor) touched.current = true;
  }, [anchor]);
  const [outside, setOutside] = useState(0);
  /** the nodes a column path or an impact set highlights (the opening view shows them when not all fits) */
  const highlighted = useMemo(() => elements.nodes.filter((n) => n.data.emphasis === "highlight").map((n) => n.id), [elements.nodes]);

  const boxOf = useCallback(
    (id: string, pos: Record<string, { x: number; y: number }>): Box | null => {
      const p = pos[id];
      const n = sizes.get(id);
      return p && n ? { x: p.x, y: p.y, w: n.width, h: n.height } : null;
    },
    [sizes],
  );

  /** Every node's box, and the bounds of `ids` (all when null). */
  const boundsOf = useCallback(
    (pos: Record<string, { x: number; y: number }>, ids: Iterable<string> | null) => {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const id of ids ?? Object.keys(pos)) {
        const b = boxOf(id, pos);
        if (!b) continue;
        x0 = Math.min(x0, b.x - 16); // expand controls stick out 13 px
        y0 = Math.min(y0, b.y);
        x1 = Math.max(x1, b.x + b.w + 16);
        y1 = Math.max(y1, b.y + b.h);
      }
      return Number.isFinite(x0) ? { x0, y0, x1, y1 } : null;
    },
    [boxOf],
  );

  /**
   * The opening view: the whole graph when it fits at a readable zoom; else the highlighted nodes (a
   * column path's datasets and jobs) with the focus when they fit so; else the focus node and its
   * nearest neighbours (two hops: the jobs and the datasets beyond them, then one hop) at the most
   * readable zoom that shows them; else the focus node alone. `fits` says whether everything is in view.
   */
  const viewFor = useCallback(
    (pos: Record<string, { x: number; y: number }>, focusId: string, width: number, height: number): (Viewport & { fits: boolean; story?: boolean }) | null => {
      const all = boundsOf(pos, null);
      if (!all || width <= 0 || height <= 0) return null;
      const zoomFor = (b: { x0: number; y0: number; x1: number; y1: number }) =>
        Math.min((width - 2 * FIT_PADDING) / (b.x1 - b.x0), (height - 2 * FIT_PADDING) / (b.y1 - b.y0), FIT_MAX_ZOOM);
      const centre = (b: { x0: number; y0: number; x1: number; y1: number }, zoom: number) => ({
        x: width / 2 - ((b.x0 + b.x1) / 2) * zoom,
        y: height / 2 - ((b.y0 + b.y1) / 2) * zoom,
        zoom,
      });
      const fit = zoomFor(all);
      if (fit >= READABLE_ZOOM) return { ...centre(all, fit), fits: true };
      const f = pos[focusId] ? focusId : root;
      if (!pos[f]) return null;
      // a column path drawn (the demo's link): its datasets and jobs with the focus, when they fit readable
      const story = [f, ...highlighted];
      if (highlighted.length) {
        const b = boundsOf(pos, story);
        const z = b ? zoomFor(b) : 0;
        // (no minimap then: it would take the room the path needs; the outside count says what is left out)
        if (b && z >= READABLE_ZOOM) return { ...centre(b, z), fits: false, story: true };
      }
      const near = (hops: number) => {
        const seen = new Set([f]);
        let frontier = [f];
        for (let h = 0; h < hops; h++) {
          const next: string[] = [];
          for (const id of frontier) for (const o of neighbours.get(id) ?? []) {
            if (seen.has(o) || !pos[o]) continue;
            seen.add(o);
            next.push(o);
          }
          frontier = next;
        }
        return seen;
      };
      // centred on the focus, at the zoom that shows its neighbours (readable, at most 1); when the focus is
      // at the graph's edge (a pipeline's last dataset: nothing beyond it) centring it would leave half the
      // canvas empty and its neighbours outside, so their own bounds are centred instead
      const fb = boundsOf(pos, [f])!;
      for (const hops of [2, 1]) {
        const b = boundsOf(pos, near(hops));
        if (!b) continue;
        const half = { x0: Math.min(b.x0, 2 * fb.x0 - b.x1 + (fb.x1 - fb.x0)), x1: Math.max(b.x1, fb.x0 + fb.x1 - b.x0), y0: Math.min(b.y0, fb.y0 + fb.y1 - b.y1), y1: Math.max(b.y1, fb.y0 + fb.y1 - b.y0) };
        const z = zoomFor(half);
        if (z >= READABLE_ZOOM) return { ...centre(fb, Math.min(z, 1)), fits: false };
        const zb = zoomFor(b);
        if (zb >= READABLE_ZOOM) return { ...centre(b, Math.min(zb, 1)), fits: false };
      }
      return { ...centre(fb, Math.max(0.2, Math.min(1, zoomFor(fb)))), fits: false };
    },
    [boundsOf, root, neighbours, highlighted],
  );

  // re-layout only when the boxes or the edges change, not on every highlight
  const layoutKey = useMemo(
    () =>
      elements.layoutNodes.map((n) => `${n.id}:${n.height}:${n.level}`).join("|") +
      "#" +
      elements.layoutEdges.map((e) => `${e.id}:${e.sourcePort ?? ""}:${e.targetPort ?? ""}`).join("|"),
    [elements.layoutNodes, elements.layoutEdges],
  );
  // progressive: the fast layered layout paints at once, ELK refines small graphs when it is done
  useEffect(() => {
    let live = true;
    const { layoutNodes, layoutEdges } = elements;
    const refine = layoutNodes.length <= ELK_MAX_NODES;
    setReady(null);
    const apply = (r: LayoutResult, final: boolean) => {
      if (!live) return;
      performance.mark(`headwater:layout-${r.engine}`, { detail: { ms: r.ms } });
      // move the viewport *before* the nodes arrive, so React Flow renders the visible nodes once,
      // where they will be seen (not first around (0, 0) and then again after the view moves)
      const el = box.current;
      if (!overview && el) {
        const prev = shown.current;
        let v: Viewport | null = null;
        if (!touched.current || Object.keys(prev).length === 0) {
          // nothing done yet (the first layout, or ELK refining it): the opening view
          const o = viewFor(r.positions, focus, el.clientWidth, el.clientHeight);
          if (o) {
            v = { x: o.x, y: o.y, zoom: o.zoom };
            if (!o.fits && !o.story && Object.keys(prev).length === 0) setShowMap(true);
          }
        } else {
          // the user's place: the node they acted on (else the focus, else the root) stays where it is on screen
          // the viewport last asked for, not one of an animation in flight (a user's pan clears it)
          const vp = target.current ?? rf.getViewport();
          const id = [anchorRef.current?.id, focus, root].find((k): k is string => Boolean(k && prev[k] && r.positions[k]));
          if (id) v = { x: vp.x + (prev[id].x - r.positions[id].x) * vp.zoom, y: vp.y + (prev[id].y - r.positions[id].y) * vp.zoom, zoom: vp.zoom };
        }
        if (v) {
          target.current = v;
          void rf.setViewport(v);
        }
        shown.current = r.positions;
        fittedFor.current = "placed";
      }
      setPositions(r.positions);
      setRoutes(r.routes ?? null);
      setLayoutSeq((n) => n + 1);
      if (final) setReady({ seq: r.seq, ms: Math.round(r.ms), engine: r.engine });
    };
    client.layout(layoutNodes, layoutEdges, "layered").then(
      (r) => {
        apply(r, !refine);
        if (refine && live) client.layout(layoutNodes, layoutEdges, "elk").then((e) => apply(e, true), () => undefined);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [layoutKey]);

  // React Flow measures each node's box and its handles in the DOM; edges are drawn and "fit view" works only
  // for measured nodes. A node object handed over without `measured` tells it to forget that measurement and
  // measure again, which its node wrapper notices only on its next render: when new node objects land after
  // the measurement but before that render (a relayout, a highlight and a fetched column path in quick
  // succession), the nodes stay unmeasured for good — no edge drawn, fit view waiting forever. So every node
  // object carries the size React Flow last measured for it (its handles stay measured with it: a box that
  // changes size is measured again by React Flow's ResizeObserver, a node whose handles change at the same
  // size asks for it, DatasetNode), and a node still without handle bounds after an update is measured at once.
  // (The size is read from React Flow's store when the node objects are made.)
  const store = useStoreApi<LineageFlowNode>();
  const nodes: LineageFlowNode[] = useMemo(() => {
    if (overview) return [];
    const { nodeLookup } = store.getState();
    return elements.nodes
      .filter((n) => positions[n.id])
      .map((n) => {
        const m = nodeLookup.get(n.id)?.measured;
        return { ...n, position: positions[n.id], ...(m?.width && m.height ? { measured: { width: m.width, height: m.height } } : {}) } as LineageFlowNode;
      });
  }, [elements.nodes, positions, overview, store]);
  useEffect(() => {
    // (React Flow's own effect has handed these nodes to its store: the canvas is its parent)
    const { nodeLookup } = store.getState();
    const unmeasured = nodes.filter((n) => !n.handles && nodeLookup.get(n.id)?.internals.handleBounds === undefined).map((n) => n.id);
    if (unmeasured.length) measureNodes(store, unmeasured);
  }, [nodes, store]);
  // each edge with its route, when the layout gave one
  const edges = useMemo(
    () =>
      routes
        ? elements.edges.map((e) => (routes[e.id] && e.data ? { ...e, data: { ...e.data, route: routes[e.id] } } : e))
        : elements.edges,
    [elements.edges, routes],
  );
  const placedCount = overview ? elements.nodes.filter((n) => positions[n.id]).length : nodes.length;
  const placed = placedCount === elements.nodes.length && placedCount > 0;

  useEffect(() => {
    if (placed) performance.mark("headwater:graph-painted", { detail: { nodes: placedCount } });
  }, [placed, placedCount]);

  // the canvas size: a pane opening or closing shrinks or grows it
  const [size, setSize] = useState<{ w: number; h: number }>({ w: 0, h: 0 });
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setSize({ w: el.clientWidth, h: el.clientHeight }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // set the view when the graph is first placed, when the final layout lands, when the focus
  // changes and when the canvas resizes (a pane opened): re-centred within the remaining space
  // the overview's view: the same rule (readable zoom around the focus, or the whole graph when it fits)
  const overviewView = useMemo(
    () => (overview && placed && size.w > 0 ? viewFor(positions, focus, size.w, size.h) : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [overview, placed, layoutSeq, focus, size.w, size.h],
  );

  /** Nodes not wholly inside the canvas at viewport `vp`. */
  const countOutside = useCallback(
    (vp: Viewport) => {
      if (size.w === 0) return 0;
      let n = 0;
      for (const id of Object.keys(positions)) {
        const b = boxOf(id, positions);
        if (!b) continue;
        const x = vp.x + b.x * vp.zoom, y = vp.y + b.y * vp.zoom;
        if (x < 0 || y < 0 || x + b.w * vp.zoom > size.w || y + b.h * vp.zoom > size.h) n++;
      }
      return n;
    },
    [positions, boxOf, size.w, size.h],
  );

  // a pane opened or closed, another node selected: the view stays where the user left it; only when
  // the node to keep in view (the one acted on, else the focus) left the canvas is it panned back in,
  // at the zoom the user chose (less only when the node would not fit)
  const lastSize = useRef("");
  const lastFocus = useRef(focus);
  useEffect(() => {
    if (overview || !placed || size.w === 0) return;
    const sizeKey = `${size.w}x${size.h}`;
    const resized = lastSize.current !== "" && lastSize.current !== sizeKey;
    const refocused = lastFocus.current !== focus;
    const shorter = resized && size.h < Number(lastSize.current.split("x")[1]);
    lastSize.current = sizeKey;
    lastFocus.current = focus;
    // a new layout keeps its own place (see apply); only a new focus or a new canvas size moves the view
    if (!resized && !refocused) return;
    if (!touched.current && resized) {
      const o = viewFor(positions, focus, size.w, size.h);
      if (o) void rf.setViewport({ x: o.x, y: o.y, zoom: o.zoom }, { duration: 200 });
      return;
    }
    // the new focus, else the node the user acted on last, else the focus; placed as the viewport was
    // last chosen for (a layout may have landed since this render's positions)
    const pos = Object.keys(shown.current).length ? shown.current : positions;
    const keep = [refocused ? focus : anchorRef.current?.id, focus].find((k): k is string => Boolean(k && pos[k]));
    const whole = keep ? boxOf(keep, pos) : null;
    if (!whole) return;
    // a node the user clicked on the canvas is where they look: only its head has to stay in view (a
    // tall column list may go on below the edge); a node chosen elsewhere (the pane, the impact table)
    // is brought wholly into view
    // is brought wholly into view, and so is a node the canvas just grew shorter under (the impact panel)
    const f = anchorRef.current?.id === keep && !shorter ? { ...whole, h: Math.min(whole.h, HEADER_HEIGHT) } : whole;
    const vp = target.current ?? rf.getViewport();
    const zoom = Math.min(vp.zoom, (size.h - 2 * FIT_PADDING) / f.h, (size.w - 2 * FIT_PADDING) / (f.w + 32));
    const sx = vp.x + f.x * zoom, sy = vp.y + f.y * zoom;
    const inside = zoom === vp.zoom && sx >= 8 && sy >= 8 && sx + f.w * zoom <= size.w - 8 && sy + f.h * zoom <= size.h - 8;
    if (inside) return;
    const clamp = (v: number, lo: number, hi: number) => (lo > hi ? (lo + hi) / 2 : Math.min(Math.max(v, lo), hi));
    // the least move that brings the node in (centred when it is wider or taller than the room)
    const nx = clamp(sx, FIT_PADDING, size.w - FIT_PADDING - f.w * zoom);
    const ny = clamp(sy, FIT_PADDING, size.h - FIT_PADDING - f.h * zoom);
    target.current = { x: nx - f.x * zoom, y: ny - f.y * zoom, zoom };
    void rf.setViewport(target.current, { duration: 200 });
  }, [overview, placed, focus, size, positions, rf, viewFor, boxOf]);

  // how many nodes are outside the view: said beside the rail when the whole graph is not in view
  useEffect(() => {
    if (overview || !placed) return;
    setOutside(countOutside(target.current ?? rf.getViewport()));
  }, [overview, placed, positions, size, countOutside, rf]);

  const fitAll = () => (overview ? overviewRef.current?.fit() : void rf.fitView({ padding: 0.08, maxZoom: FIT_MAX_ZOOM, duration: 200 }));
  const big = elements.nodes.length > VIRTUALIZE_AT;
  return (
    <div
      className={`canvas${lowDetail && !overview ? " lod-low" : ""}${elements.nodes.length <= ANIMATE_AT ? " animate-new" : ""}`}
      data-testid="lineage-canvas"
      data-detail={lowDetail && !overview ? "boxes" : "full"}
      data-ready={placed && ready ? "true" : "false"}
      data-node-count={placedCount}
      data-edge-count={placed ? edges.length : 0}
      data-renderer={overview ? "overview" : "flow"}
      data-layout-ms={ready?.ms ?? ""}
      data-layout-engine={ready?.engine ?? ""}
    >
      <div className="canvas-flow" ref={box}>
        {overview ? (
          placed && (
            <OverviewCanvas
              elements={elements}
              positions={positions}
              root={root}
              selected={selected}
              initialView={overviewView}
              onPaneClick={onPaneClick}
              handle={overviewRef}
            />
          )
        ) : (
        <ReactFlow
          nodes={nodes}
          edges={placed ? edges : []}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          onlyRenderVisibleElements={big}
          nodesConnectable={false}
          nodesDraggable={!big}
          elementsSelectable={false}
          minZoom={0.05}
          maxZoom={2}
          onPaneClick={onPaneClick}
          onMoveStart={(e) => {
            // a user's pan or zoom (an event; the canvas's own moves have none): their zoom is kept
            if (e) {
              target.current = null;
              touched.current = true;
            }
          }}
          onMoveEnd={(_e, vp) => setOutside(countOutside(vp))}
          proOptions={{ hideAttribution: true }}
        >
          <Background variant={BackgroundVariant.Dots} gap={18} size={1} color="#cbd5e1" />
          {showMap && elements.nodes.length > MINIMAP_MAX && placed && <CanvasMiniMap nodes={nodes} root={root} />}

        </ReactFlow>
        )}
        {!placed && elements.nodes.length > 0 && <div className="canvas-loading">Laying out {elements.nodes.length} nodes…</div>}
        {!overview && placed && outside > 0 && (
          <button className="canvas-outside" data-testid="outside-count" onClick={fitAll} title="Fit the whole graph into view">
            {outside} of {placedCount} nodes outside the view · fit
          </button>
        )}
      </div>
      {!overview && showMap && elements.nodes.length <= MINIMAP_MAX && (
        // beside the graph, not over it: the map never covers a node
        <div className="canvas-map" data-testid="canvas-map">
          <MiniMap
            pannable
            zoomable
            position="top-left"
            ariaLabel="Minimap"
            nodeColor={(n) => (n.type === "job" ? "#a78bfa" : n.id === root ? "#0f766e" : "#94a3b8")}
            maskColor="rgba(241,245,249,0.7)"
          />
        </div>
      )}
      <div className="canvas-rail" role="toolbar" aria-label="Graph view" data-testid="canvas-rail">
        <button className="rail-btn" aria-label="Zoom in" title="Zoom in" onClick={() => (overview ? overviewRef.current?.zoomBy(1.25) : void rf.zoomIn({ duration: 150 }))}>
          <PlusIcon />
        </button>
        <button className="rail-btn" aria-label="Zoom out" title="Zoom out" onClick={() => (overview ? overviewRef.current?.zoomBy(0.8) : void rf.zoomOut({ duration: 150 }))}>
          <MinusIcon />
        </button>
        <button className="rail-btn" aria-label="Fit view" title="Fit the whole graph into view" onClick={fitAll} data-testid="fit-view">
          <FitIcon />
        </button>
        {!overview && (
        <button
          className={`rail-btn${showMap ? " on" : ""}`}
          aria-label={showMap ? "Hide minimap" : "Show minimap"}
          aria-pressed={showMap}
          title={showMap ? "Hide the minimap" : "Show the minimap"}
          onClick={() => setShowMap(!showMap)}
          data-testid="toggle-minimap"
        >
          <MapIcon />
        </button>
        )}
      </div>
    </div>
  );
}
