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

export interface LayoutRequest {
  seq: number;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
}

export interface LayoutResult {
  seq: number;
  positions: Record<string, { x: number; y: number }>;
  engine: "elk" | "layered";
  ms: number;
}

/** Above this many nodes ELK's layered algorithm gets slow; the simple layered layout takes over. */
export const ELK_MAX_NODES = 600;
export const LAYER_GAP = 110;
export const NODE_GAP = 26;
