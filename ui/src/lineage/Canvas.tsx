// The React Flow canvas: custom nodes and edges, positions from the layout worker, minimap.
import {
  Background,
  BackgroundVariant,
  MiniMap,
  ReactFlow,
  useReactFlow,
  useStore,
  type NodeTypes,
  type EdgeTypes,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { OVERVIEW_AT, OverviewCanvas, type OverviewHandle } from "./OverviewCanvas";
import { LayoutClient } from "../layout/client";
import { ELK_MAX_NODES, type LayoutResult } from "../layout/types";
import type { Elements } from "./elements";
import { CanvasMiniMap } from "./CanvasMiniMap";
import { DatasetNode } from "./DatasetNode";
import { JobNode } from "./JobNode";
import { LineageEdge } from "./LineageEdge";
import { MapIcon, FitIcon, MinusIcon, PlusIcon } from "../components/Icons";
import type { LineageFlowNode } from "./types";

const nodeTypes: NodeTypes = { dataset: DatasetNode, job: JobNode };
const edgeTypes: EdgeTypes = { lineage: LineageEdge };

/** Nodes beyond which React Flow only renders what is in the viewport. */
const VIRTUALIZE_AT = 250;
/** Nodes beyond which the SVG minimap gives way to a <canvas> one (SVG: ~0.7 s per 1,000 nodes). */
const MINIMAP_MAX = 500;
/**
 * The zoom the view opens at: node names (13 px) and column rows (12 px, types 11 px) are drawn at
 * their CSS size, so names are >= 12 px and column rows >= 11 px on screen. A graph is fitted
 * into view only when it fits at this zoom or more; otherwise the view is centred on the focus
 * node (the root, or the selected node) and "fit" and the minimap are one click away.
 */
export const READABLE_ZOOM = 1;
const FIT_PADDING = 24;
/**
 * Below this zoom node names would be under 5 px on screen: nodes are drawn as boxes without text
 * (level of detail), which keeps zooming a fitted 1,000-node graph fluid.
 */
export const LOD_ZOOM = 0.4;
const FIT_MAX_ZOOM = 1.1;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export function Canvas({
  elements,
  root,
  focus,
  selected = null,
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
  onPaneClick: () => void;
}) {
  // huge graphs: drawn on one <canvas> with level of detail instead of React Flow's DOM nodes
  const overview = elements.nodes.length > OVERVIEW_AT;
  const overviewRef = useRef<OverviewHandle>(null);
  const lowDetail = useStore((st) => st.transform[2] < LOD_ZOOM);
  const [positions, setPositions] = useState<Record<string, { x: number; y: number }>>({});
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

  const boxOf = useCallback(
    (id: string, pos: Record<string, { x: number; y: number }>): Box | null => {
      const p = pos[id];
      const n = sizes.get(id);
      return p && n ? { x: p.x, y: p.y, w: n.width, h: n.height } : null;
    },
    [sizes],
  );

  /**
   * The opening view: the whole graph when it fits at a readable zoom, else the focus node
   * centred at the readable zoom (zoomed out only as far as needed to show the whole focus node).
   */
  const viewFor = useCallback(
    (pos: Record<string, { x: number; y: number }>, focusId: string, width: number, height: number) => {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const id of Object.keys(pos)) {
        const b = boxOf(id, pos);
        if (!b) continue;
        x0 = Math.min(x0, b.x - 16); // expand controls stick out 13 px
        y0 = Math.min(y0, b.y);
        x1 = Math.max(x1, b.x + b.w + 16);
        y1 = Math.max(y1, b.y + b.h);
      }
      if (!Number.isFinite(x0) || width <= 0 || height <= 0) return null;
      const fit = Math.min((width - 2 * FIT_PADDING) / (x1 - x0), (height - 2 * FIT_PADDING) / (y1 - y0), FIT_MAX_ZOOM);
      if (fit >= READABLE_ZOOM) {
        return { x: width / 2 - ((x0 + x1) / 2) * fit, y: height / 2 - ((y0 + y1) / 2) * fit, zoom: fit };
      }
      const f = boxOf(focusId, pos) ?? boxOf(root, pos);
      if (!f) return null;
      const zoom = Math.min(READABLE_ZOOM, (height - 2 * FIT_PADDING) / f.h, (width - 2 * FIT_PADDING) / (f.w + 32));
      return { x: width / 2 - (f.x + f.w / 2) * zoom, y: height / 2 - (f.y + f.h / 2) * zoom, zoom };
    },
    [boxOf, root],
  );

  // re-layout only when the boxes or the edges change, not on every highlight
  const layoutKey = useMemo(
    () =>
      elements.layoutNodes.map((n) => `${n.id}:${n.height}:${n.level}`).join("|") +
      "#" +
      elements.layoutEdges.map((e) => e.id).join("|"),
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
      if (fittedFor.current === "" && el) {
        const v = viewFor(r.positions, focus, el.clientWidth, el.clientHeight);
        if (v) void rf.setViewport(v);
      }
      setPositions(r.positions);
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

  const nodes: LineageFlowNode[] = useMemo(
    () =>
      overview
        ? []
        : elements.nodes.filter((n) => positions[n.id]).map((n) => ({ ...n, position: positions[n.id] }) as LineageFlowNode),
    [elements.nodes, positions, overview],
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

  useEffect(() => {
    if (overview || !placed || size.w === 0) return;
    const key = `${root}|${layoutSeq}|${ready ? "final" : "first"}|${focus}|${size.w}x${size.h}`;
    if (fittedFor.current === key) return;
    const first = fittedFor.current === "";
    const focusOnly = fittedFor.current.split("|").slice(0, 3).join("|") === key.split("|").slice(0, 3).join("|");
    fittedFor.current = key;
    const v = viewFor(positions, focus, size.w, size.h);
    if (!v) return;
    if (focusOnly) {
      // the same graph, a pane opened or closed or another node selected: re-centre on the focus
      // within the space there is now, at the zoom the user chose (less if the node would not fit).
      // The zoom is that of the last view asked for, not the one of an animation in flight.
      const f = boxOf(focus, positions);
      if (f) {
        const zoom = Math.min(target.current?.zoom ?? rf.getViewport().zoom, (size.h - 2 * FIT_PADDING) / f.h, (size.w - 2 * FIT_PADDING) / (f.w + 32));
        target.current = { x: size.w / 2 - (f.x + f.w / 2) * zoom, y: size.h / 2 - (f.y + f.h / 2) * zoom, zoom };
        void rf.setViewport(target.current, { duration: 200 });
        return;
      }
    }
    target.current = v;
    void rf.setViewport(v, { duration: first ? 0 : 200 });
  }, [overview, placed, ready, root, focus, size, layoutSeq, positions, rf, viewFor, boxOf]);

  const fitAll = () => (overview ? overviewRef.current?.fit() : void rf.fitView({ padding: 0.08, maxZoom: FIT_MAX_ZOOM, duration: 200 }));
  const big = elements.nodes.length > VIRTUALIZE_AT;
  return (
    <div
      className={`canvas${lowDetail && !overview ? " lod-low" : ""}`}
      data-testid="lineage-canvas"
      data-detail={lowDetail && !overview ? "boxes" : "full"}
      data-ready={placed && ready ? "true" : "false"}
      data-node-count={placedCount}
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
          edges={placed ? elements.edges : []}
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
            if (e) target.current = null;
          }}
          proOptions={{ hideAttribution: true }}
        >
          <Background variant={BackgroundVariant.Dots} gap={18} size={1} color="#cbd5e1" />
          {showMap && elements.nodes.length > MINIMAP_MAX && placed && <CanvasMiniMap nodes={nodes} root={root} />}
          {showMap && elements.nodes.length <= MINIMAP_MAX && (
            <MiniMap
              pannable
              zoomable
              position="bottom-right"
              ariaLabel="Minimap"
              nodeColor={(n) => (n.type === "job" ? "#a78bfa" : n.id === root ? "#0f766e" : "#94a3b8")}
              maskColor="rgba(241,245,249,0.7)"
            />
          )}
        </ReactFlow>
        )}
        {!placed && elements.nodes.length > 0 && <div className="canvas-loading">Laying out {elements.nodes.length} nodes…</div>}
      </div>
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
