export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  /** hops from the root; the fast layout uses it as the layer */
  level: number;
}

export interface LayoutEdge {
  id: string;
  source: string;
  target: string;
}

export type Engine = "elk" | "layered";

export interface LayoutRequest {
  seq: number;
  engine: Engine;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
}

export interface LayoutResult {
  seq: number;
  positions: Record<string, { x: number; y: number }>;
  engine: Engine;
  ms: number;
}

/**
 * Up to this many nodes the fast layout is refined by ELK once it is ready (ELK takes about a
 * second for 100 nodes on a slow machine, most of it warming up); above it the fast layout stays.
 */
export const ELK_MAX_NODES = 300;
/** Between layers: room for the two expand controls (13 px each) and an arrow. */
export const LAYER_GAP = 40;
export const NODE_GAP = 16;
