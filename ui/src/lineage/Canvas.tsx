// The React Flow canvas: custom nodes and edges, positions from the layout worker, minimap.
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  type NodeTypes,
  type EdgeTypes,
} from "@xyflow/react";
import { useEffect, useMemo, useRef, useState } from "react";
import { LayoutClient } from "../layout/client";
import { ELK_MAX_NODES, type LayoutResult } from "../layout/types";
import type { Elements } from "./elements";
import { CanvasMiniMap } from "./CanvasMiniMap";
import { DatasetNode } from "./DatasetNode";
import { JobNode } from "./JobNode";
import { LineageEdge } from "./LineageEdge";
import { NODE_HANDLE_Y, NODE_WIDTH } from "./sizes";
import type { LineageFlowNode } from "./types";

const nodeTypes: NodeTypes = { dataset: DatasetNode, job: JobNode };
const edgeTypes: EdgeTypes = { lineage: LineageEdge };

/** Nodes beyond which React Flow only renders what is in the viewport. */
const VIRTUALIZE_AT = 250;
/** Nodes beyond which the SVG minimap gives way to a <canvas> one (SVG: ~0.7 s per 1,000 nodes). */
const MINIMAP_MAX = 500;
/** Graphs up to this many nodes are fitted into view; bigger ones are centred on the root. */
const FIT_MAX = 60;
const CENTER_ZOOM = 0.75;

export function Canvas({
  elements,
  root,
  onPaneClick,
  fitKey,
  client,
}: {
  elements: Elements;
  /** the layout worker, started by the lineage view before the answer arrives */
  client: LayoutClient;
  root: string;
  onPaneClick: () => void;
  /** the view is fitted again whenever this changes (a panel opened and the canvas shrank) */
  fitKey: string;
}) {
  const [positions, setPositions] = useState<Record<string, { x: number; y: number }>>({});
  const [ready, setReady] = useState<{ seq: number; ms: number; engine: string } | null>(null);
  const rf = useReactFlow();
  const fittedFor = useRef<string>("");
  const box = useRef<HTMLDivElement>(null);

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
      // big graphs: move the viewport onto the root *before* the nodes arrive, so React Flow
      // renders the visible nodes once, where they will be seen (not first around (0, 0) and
      // then again after the view is centred)
      const c = r.positions[root];
      const el = box.current;
      if (fittedFor.current === "" && layoutNodes.length > FIT_MAX && c && el) {
        const zoom = CENTER_ZOOM;
        void rf.setViewport({ x: el.clientWidth / 2 - (c.x + NODE_WIDTH / 2) * zoom, y: el.clientHeight / 2 - (c.y + NODE_HANDLE_Y) * zoom, zoom });
      }
      setPositions(r.positions);
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
      elements.nodes
        .filter((n) => positions[n.id])
        .map((n) => ({ ...n, position: positions[n.id] }) as LineageFlowNode),
    [elements.nodes, positions],
  );
  const placed = nodes.length === elements.nodes.length && nodes.length > 0;

  useEffect(() => {
    if (placed) performance.mark("headwater:graph-painted", { detail: { nodes: nodes.length } });
  }, [placed, nodes.length]);

  useEffect(() => {
    if (!placed) return;
    const key = `${root}|${elements.nodes.length}|${ready ? "final" : "first"}|${fitKey}`;
    if (fittedFor.current === key) return;
    const first = fittedFor.current === "";
    fittedFor.current = key;
    requestAnimationFrame(() => {
      if (nodes.length <= FIT_MAX) rf.fitView({ padding: 0.12, maxZoom: 1.1, duration: first ? 0 : 250 });
      else {
        const r = positions[root];
        if (r) rf.setCenter(r.x + NODE_WIDTH / 2, r.y + NODE_HANDLE_Y, { zoom: CENTER_ZOOM, duration: first ? 0 : 250 });
      }
    });
  }, [placed, ready, root, elements.nodes.length, nodes.length, positions, rf, fitKey]);

  const big = elements.nodes.length > VIRTUALIZE_AT;
  return (
    <div
      ref={box}
      className="canvas"
      data-testid="lineage-canvas"
      data-ready={placed && ready ? "true" : "false"}
      data-node-count={nodes.length}
      data-layout-ms={ready?.ms ?? ""}
      data-layout-engine={ready?.engine ?? ""}
    >
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
        proOptions={{ hideAttribution: true }}
      >
        <Background variant={BackgroundVariant.Dots} gap={18} size={1} color="#cbd5e1" />
        <Controls showInteractive={false} position="bottom-left" />
        {elements.nodes.length > MINIMAP_MAX && placed && <CanvasMiniMap nodes={nodes} root={root} />}
        {elements.nodes.length <= MINIMAP_MAX && (
        <MiniMap
          pannable
          zoomable
          position="bottom-right"
          nodeColor={(n) => (n.type === "job" ? "#a78bfa" : n.id === root ? "#0f766e" : "#94a3b8")}
          maskColor="rgba(241,245,249,0.7)"
        />
        )}
      </ReactFlow>
      {!placed && elements.nodes.length > 0 && <div className="canvas-loading">Laying out {elements.nodes.length} nodes…</div>}
    </div>
  );
}
