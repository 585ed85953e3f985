// Marks for "compare two moments": which nodes, edges and columns were added or removed.
import type { CompareAnswer, GraphEdge, GraphNode } from "../api/types";
import type { Graph } from "./graph";

export type Mark = "added" | "removed";

export interface CompareMarks {
  nodes: Map<string, Mark>;
  edges: Map<string, Mark>;
  /** key `${datasetId}|${field}` */
  columns: Map<string, Mark | "changed">;
}

export const columnKey = (dataset: string, field: string): string => `${dataset}|${field}`;
const edgeKey = (e: { source: string; target: string }): string => `${e.source}->${e.target}`;

export function compareMarks(c: CompareAnswer): CompareMarks {
  const nodes = new Map<string, Mark>();
  const edges = new Map<string, Mark>();
  const columns = new Map<string, Mark | "changed">();
  for (const n of c.nodes.added) nodes.set(n.id, "added");
  for (const n of c.nodes.removed) nodes.set(n.id, "removed");
  for (const e of c.edges.added) edges.set(edgeKey(e), "added");
  for (const e of c.edges.removed) edges.set(edgeKey(e), "removed");
  for (const col of c.columns.added) columns.set(columnKey(col.dataset, col.field), "added");
  for (const col of c.columns.removed) columns.set(columnKey(col.dataset, col.field), "removed");
  for (const col of c.columns.changed) columns.set(columnKey(col.dataset, col.field), "changed");
  return { nodes, edges, columns };
}

/**
 * The graph at `to` with what existed only at `from` put back as ghosts, so removed things
 * can be drawn (struck through) next to what is there now.
 */
export function withRemoved(graph: Graph, c: CompareAnswer): Graph {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const extraNodes: GraphNode[] = c.nodes.removed.filter((n) => !ids.has(n.id));
  const allIds = new Set([...ids, ...extraNodes.map((n) => n.id)]);
  const have = new Set(graph.edges.map(edgeKey));
  const extraEdges: GraphEdge[] = c.edges.removed.filter(
    (e) => !have.has(edgeKey(e)) && allIds.has(e.source) && allIds.has(e.target),
  );
  return { ...graph, nodes: [...graph.nodes, ...extraNodes], edges: [...graph.edges, ...extraEdges] };
}

export function edgeMark(marks: CompareMarks | null, e: { source: string; target: string }): Mark | undefined {
  return marks?.edges.get(edgeKey(e));
}

/**
 * The compare window: `cmp` and `at` (or now) in time order. `toParam` is the later moment as an
 * `at=` parameter (null when it is now).
 */
export function compareWindow(
  cmp: string | null,
  at: string | null,
  now: string = new Date().toISOString(),
): { from: string; to: string; toParam: string | null } | null {
  if (!cmp) return null;
  const other = at ?? now;
  const [from, to] = Date.parse(cmp) <= Date.parse(other) ? [cmp, other] : [other, cmp];
  return { from, to, toParam: to === now && !at ? null : to };
}
