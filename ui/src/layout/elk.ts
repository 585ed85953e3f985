// ELK's layered algorithm (Sugiyama style: crossing minimisation) with its orthogonal edge router:
// every edge, column edges included, enters and leaves by a port fixed where the node draws its
// handle, and is routed in the channels between layers and beside the boxes (an edge that spans
// layers goes through a gap of each layer it crosses), so no edge is drawn across a node.
import ELK from "elkjs/lib/elk.bundled.js";
import type { ElkNode } from "elkjs/lib/elk-api";
import { LAYER_GAP, NODE_GAP, type LayoutEdge, type LayoutNode, type Point } from "./types";

const elk = new ELK();

/** ELK's port ids are global: a node's port is `<node id> <port id>` (node ids hold no NUL). */
const portId = (node: string, port: string) => `${node}\u0000${port}`;

export interface ElkResult {
  positions: Record<string, Point>;
  /** each edge's route, its start and end on the node sides included */
  routes: Record<string, Point[]>;
}

export async function elkLayout(nodes: LayoutNode[], edges: LayoutEdge[]): Promise<ElkResult> {
  const ids = new Set(nodes.map((n) => n.id));
  const ports = new Set<string>();
  const children = nodes.map((n) => {
    for (const p of n.ports ?? []) ports.add(portId(n.id, p.id));
    return {
      id: n.id,
      width: n.width,
      height: n.height,
      layoutOptions: { "elk.portConstraints": "FIXED_POS" },
      ports: (n.ports ?? []).map((p) => ({
        id: portId(n.id, p.id),
        x: p.side === "in" ? 0 : n.width,
        y: p.y,
        width: 0,
        height: 0,
        layoutOptions: { "elk.port.side": p.side === "in" ? "WEST" : "EAST" },
      })),
    };
  });
  const end = (node: string, port: string | undefined) => (port && ports.has(portId(node, port)) ? portId(node, port) : node);
  const graph: ElkNode = {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.edgeRouting": "ORTHOGONAL",
      "elk.layered.spacing.nodeNodeBetweenLayers": String(LAYER_GAP),
      "elk.spacing.nodeNode": String(NODE_GAP),
      // the expand controls stick out 13 px on both sides: vertical segments keep clear of them
      "elk.layered.spacing.edgeNodeBetweenLayers": "16",
      "elk.layered.spacing.edgeEdgeBetweenLayers": "5",
      "elk.spacing.edgeNode": "10",
      "elk.spacing.edgeEdge": "5",
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      "elk.layered.crossingMinimization.strategy": "LAYER_SWEEP",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
      "elk.separateConnectedComponents": "false",
    },
    children,
    edges: edges
      .filter((e) => ids.has(e.source) && ids.has(e.target) && e.source !== e.target)
      .map((e) => ({ id: e.id, sources: [end(e.source, e.sourcePort)], targets: [end(e.target, e.targetPort)] })),
  };
  const out = await elk.layout(graph);
  const positions: Record<string, Point> = {};
  for (const c of out.children ?? []) positions[c.id] = { x: c.x ?? 0, y: c.y ?? 0 };
  const routes: Record<string, Point[]> = {};
  for (const e of out.edges ?? []) {
    const s = e.sections?.[0];
    // one section per edge (one source, one target, no hierarchy)
    if (s && e.sections?.length === 1) routes[e.id] = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((p) => ({ x: p.x, y: p.y }));
  }
  return { positions, routes };
}
