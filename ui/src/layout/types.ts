export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  /** hops from the root; the fast layout uses it as the layer */
  level: number;
  /** where edges attach (the node's handles): ELK routes edges to these points, the fast layout ignores them */
  ports?: LayoutPort[];
}

/** An edge's end on a node: on its left (`in`) or right (`out`) side, `y` px below its top. */
export interface LayoutPort {
  id: string;
  side: "in" | "out";
  y: number;
}

export interface LayoutEdge {
  id: string;
  source: string;
  target: string;
  /** the port ids (LayoutPort.id) the edge leaves and enters by; the node's middle when absent */
  sourcePort?: string;
  targetPort?: string;
  /**
   * a column edge: ELK lays it out and routes it around the boxes like any other; the fast layout
   * (big graphs) orders nodes by the dataset-to-dataset edges alone
   */
  routeOnly?: boolean;
}

export type Point = { x: number; y: number };

export type Engine = "elk" | "layered";

/**
 * The fast layout's graph as typed arrays (node i: ids[i], its box and level; edge k: from[k] -> to[k],
 * column edges left out): sent to the worker and back by transferring the arrays' buffers, where a
 * graph of objects is copied object by object on both threads (most of the fast layout's time at
 * 10,000 nodes was that copying).
 */
export interface PackedGraph {
  ids: string[];
  width: Float64Array;
  height: Float64Array;
  level: Float64Array;
  from: Int32Array;
  to: Int32Array;
}

export type LayoutRequest =
  | { seq: number; engine: "elk"; nodes: LayoutNode[]; edges: LayoutEdge[] }
  | { seq: number; engine: "layered"; packed: PackedGraph };

/** The fast layout's answer from the worker: node i's top left corner at (x[i], y[i]). */
export interface PackedResult {
  seq: number;
  engine: "layered";
  x: Float64Array;
  y: Float64Array;
  ms: number;
}

export interface LayoutResult {
  seq: number;
  positions: Record<string, { x: number; y: number }>;
  /** ELK only: each edge's route around the node boxes, start to end (graph coordinates) */
  routes?: Record<string, Point[]>;
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
