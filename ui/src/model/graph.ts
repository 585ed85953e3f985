// The lineage graph shown on screen, as pure data.
//
// The view is the union of *fragments*: the first lineage answer around the asset, plus one
// fragment per expansion ("upstream of X", "downstream of Y"). Collapsing an expansion drops
// its fragment, and every expansion whose node is no longer on screen goes with it. Nothing
// is mutated: each function returns a new value.
import type { ColumnEdge, GraphEdge, GraphNode, LineageAnswer } from "../api/types";
import { push } from "../lib/multimap";
import { mergeHierarchies, type Hierarchy } from "./hierarchy";
import { datasetOfField, isField } from "./nodeid";

export type Direction = "upstream" | "downstream";

export interface Fragment {
  nodes: GraphNode[];
  edges: GraphEdge[];
  columnEdges: ColumnEdge[];
  truncated: boolean;
  /** with job grouping: which parent job stands for which child job in this fragment's answers */
  hierarchy?: Hierarchy;
}

export interface Expansion {
  nodeId: string;
  direction: Direction;
}

export const expansionKey = (e: Expansion): string => `${e.direction === "upstream" ? "u" : "d"}:${e.nodeId}`;

export function parseExpansionKey(key: string): Expansion | null {
  const m = /^([ud]):(.+)$/.exec(key);
  if (!m) return null;
  return { nodeId: m[2], direction: m[1] === "u" ? "upstream" : "downstream" };
}

export interface GraphState {
  root: string;
  base: Fragment;
  /** expansion key -> fragment, in the order they were expanded */
  expansions: Array<[string, Fragment]>;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  columnEdges: ColumnEdge[];
  truncated: boolean;
}

export function fragmentOf(answer: LineageAnswer): Fragment {
  return {
    nodes: answer.nodes ?? [],
    edges: answer.edges ?? [],
    columnEdges: answer.columnEdges ?? [],
    truncated: Boolean(answer.truncated),
  };
}

export function initialState(root: string, base: Fragment): GraphState {
  return { root, base, expansions: [] };
}

export const columnEdgeKey = (e: ColumnEdge): string => `${e.source}->${e.target}@${e.job ?? ""}`;

/**
 * Union of fragments. A node seen twice keeps its first appearance's data; its "has more"
 * flags are true only if every fragment says so (one fragment that saw all its neighbours on
 * a side settles that side).
 */
export function union(fragments: Fragment[]): Graph {
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const columnEdges = new Map<string, ColumnEdge>();
  let truncated = false;
  for (const f of fragments) {
    truncated ||= f.truncated;
    for (const n of f.nodes) {
      const seen = nodes.get(n.id);
      nodes.set(
        n.id,
        seen
          ? {
              ...seen,
              hasMoreUpstream: Boolean(seen.hasMoreUpstream && n.hasMoreUpstream),
              hasMoreDownstream: Boolean(seen.hasMoreDownstream && n.hasMoreDownstream),
            }
          : n,
      );
    }
    for (const e of f.edges) edges.set(`${e.source}->${e.target}`, e);
    for (const c of f.columnEdges) columnEdges.set(columnEdgeKey(c), c);
  }
  const ids = new Set(nodes.keys());
  const keptEdges = [...edges.values()].filter((e) => ids.has(e.source) && ids.has(e.target));
  return { nodes: [...nodes.values()], edges: keptEdges, columnEdges: [...columnEdges.values()], truncated };
}

function fragmentNodeIds(f: Fragment): Set<string> {
  return new Set(f.nodes.map((n) => n.id));
}

/**
 * Expansions whose node is still reachable through base or earlier kept expansions. `alias` names the
 * node a fragment's node is drawn as (a child job as its parent, when jobs are grouped).
 */
function liveExpansions(state: GraphState, dropped: Set<string>, alias: (id: string) => string): Array<[string, Fragment]> {
  const present = new Set<string>();
  const add = (f: Fragment) => {
    for (const id of fragmentNodeIds(f)) {
      present.add(id);
      present.add(alias(id));
    }
  };
  add(state.base);
  const kept: Array<[string, Fragment]> = [];
  let changed = true;
  const pending = state.expansions.filter(([k]) => !dropped.has(k));
  // an expansion can be anchored on a node brought by a later expansion; iterate to a fixed point
  while (changed) {
    changed = false;
    for (let i = 0; i < pending.length; i++) {
      const [key, frag] = pending[i];
      const exp = parseExpansionKey(key);
      if (exp && present.has(exp.nodeId)) {
        kept.push([key, frag]);
        add(frag);
        pending.splice(i, 1);
        i--;
        changed = true;
      }
    }
  }
  const order = new Map(state.expansions.map(([k], i) => [k, i]));
  return kept.sort((a, b) => (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0));
}

export function expand(state: GraphState, exp: Expansion, fragment: Fragment): GraphState {
  const key = expansionKey(exp);
  const others = state.expansions.filter(([k]) => k !== key);
  return { ...state, expansions: [...others, [key, fragment]] };
}

export function collapse(state: GraphState, exp: Expansion, alias: (id: string) => string = (id) => id): GraphState {
  const key = expansionKey(exp);
  // collapsing also drops the nodes this expansion brought that nothing else shows
  return { ...state, expansions: liveExpansions({ ...state, expansions: state.expansions }, new Set([key]), alias) };
}

export function isExpanded(state: GraphState, exp: Expansion): boolean {
  const key = expansionKey(exp);
  return state.expansions.some(([k]) => k === key);
}

export function currentGraph(state: GraphState): Graph {
  return union([state.base, ...state.expansions.map(([, f]) => f)]);
}

/** The job hierarchy the state's fragments carry (empty unless they were loaded with grouping). */
export function currentHierarchy(state: GraphState): Hierarchy {
  return mergeHierarchies([state.base, ...state.expansions.map(([, f]) => f)].flatMap((f) => (f.hierarchy ? [f.hierarchy] : [])));
}

/** What `foldNodes` returns: the graph without the folded nodes, and which drawn node each hangs from. */
export interface Folded {
  graph: Graph;
  /** drawn node -> the folded nodes reached downstream of it through folded nodes only (graph order) */
  hanging: Map<string, string[]>;
}

/**
 * Fold the nodes `hide` picks away (the one machinery behind "Datasets only" and the catalog fold):
 * a drawn node that reaches another drawn node only through folded nodes gets a DERIVED edge to it,
 * with the folded nodes on those paths in `via` (graph order); an edge between drawn nodes stays as it
 * is (a folded path beside it adds its nodes to the edge's `via`). A folded node's "has more" side
 * passes to the drawn nodes it reaches on the other side (they have more beyond it). Column edges
 * whose source or target dataset is folded go too.
 */
export function foldNodes(graph: Graph, hide: (n: GraphNode) => boolean): Folded {
  const hidden = new Set(graph.nodes.filter(hide).map((n) => n.id));
  if (!hidden.size) return { graph, hanging: new Map() };
  const order = new Map(graph.nodes.map((n, i) => [n.id, i]));
  const down = new Map<string, string[]>();
  const up = new Map<string, string[]>();
  const edges = new Map<string, GraphEdge>();
  for (const e of graph.edges) {
    push(down, e.source, e.target);
    push(up, e.target, e.source);
    if (!hidden.has(e.source) && !hidden.has(e.target)) edges.set(`${e.source}->${e.target}`, e);
  }
  /** folded nodes reached from `from` over `adj` through folded nodes only, and the drawn nodes at the ends */
  const walk = (from: string, adj: Map<string, string[]>): { folded: Set<string>; ends: Set<string> } => {
    const folded = new Set<string>();
    const ends = new Set<string>();
    // from a folded node, its drawn neighbours are ends too; from a drawn one they are plain edges
    const stack = hidden.has(from) ? [from] : (adj.get(from) ?? []).filter((n) => hidden.has(n));
    for (const n of stack) folded.add(n);
    while (stack.length) {
      for (const m of adj.get(stack.pop()!) ?? []) {
        if (!hidden.has(m)) ends.add(m);
        else if (!folded.has(m)) {
          folded.add(m);
          stack.push(m);
        }
      }
    }
    return { folded, ends };
  };
  const byOrder = (ids: Iterable<string>): string[] => [...ids].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  const hanging = new Map<string, string[]>();
  const upWalks = new Map<string, Set<string>>();
  for (const n of graph.nodes) {
    if (hidden.has(n.id)) continue;
    const fwd = walk(n.id, down);
    if (!fwd.folded.size) continue;
    hanging.set(n.id, byOrder(fwd.folded));
    for (const dst of fwd.ends) {
      if (dst === n.id) continue;
      let back = upWalks.get(dst);
      if (!back) upWalks.set(dst, (back = walk(dst, up).folded));
      const via = byOrder([...fwd.folded].filter((h) => back.has(h)));
      const key = `${n.id}->${dst}`;
      const seen = edges.get(key);
      edges.set(
        key,
        seen
          ? { ...seen, via: [...(seen.via ?? []), ...via.filter((h) => !seen.via?.includes(h))] }
          : { id: `derived:${key}`, source: n.id, target: dst, type: "DERIVED", via },
      );
    }
  }
  // a column edge's end is a column or (dataset-wide dependencies) a dataset
  const datasetOf = (id: string): string => (isField(id) ? datasetOfField(id) : id);
  // a folded node that has more beyond it means the drawn nodes past it have more too
  const moreUp = new Set<string>();
  const moreDown = new Set<string>();
  for (const n of graph.nodes) {
    if (!hidden.has(n.id)) continue;
    if (n.hasMoreUpstream) for (const d of walk(n.id, down).ends) moreUp.add(d);
    if (n.hasMoreDownstream) for (const d of walk(n.id, up).ends) moreDown.add(d);
  }
  return {
    graph: {
      nodes: graph.nodes
        .filter((n) => !hidden.has(n.id))
        .map((n) =>
          moreUp.has(n.id) || moreDown.has(n.id)
            ? {
                ...n,
                hasMoreUpstream: Boolean(n.hasMoreUpstream || moreUp.has(n.id)),
                hasMoreDownstream: Boolean(n.hasMoreDownstream || moreDown.has(n.id)),
              }
            : n,
        ),
      edges: [...edges.values()],
      columnEdges: graph.columnEdges.filter((c) => !hidden.has(datasetOf(c.source)) && !hidden.has(datasetOf(c.target))),
      truncated: graph.truncated,
    },
    hanging,
  };
}

/**
 * Fold jobs away: every input dataset of a job gets a DERIVED edge to each of its outputs,
 * with the job in `via`. Jobs with no dataset on one side disappear (nothing to connect).
 */
export function datasetsOnly(graph: Graph): Graph {
  const g = foldNodes(graph, (n) => n.type === "JOB" || n.id.startsWith("job:")).graph;
  // every edge left joins two datasets: drawn as derived
  return { ...g, edges: g.edges.map((e) => (e.type === "DERIVED" ? e : { ...e, type: "DERIVED", via: e.via ?? [] })) };
}

/**
 * Hops from the root over the drawn edges: negative upstream, positive downstream. Nodes not on
 * a directed path from/to the root get the column next to a neighbour that has one.
 */
export function levels(graph: Graph, root: string): Map<string, number> {
  const up = new Map<string, string[]>();
  const down = new Map<string, string[]>();
  for (const e of graph.edges) {
    push(down, e.source, e.target);
    push(up, e.target, e.source);
  }
  const out = new Map<string, number>([[root, 0]]);
  for (const [adj, sign] of [
    [up, -1],
    [down, 1],
  ] as const) {
    let frontier = [root];
    let d = 0;
    const seen = new Set([root]);
    while (frontier.length) {
      d++;
      const next: string[] = [];
      for (const id of frontier) {
        for (const n of adj.get(id) ?? []) {
          if (seen.has(n)) continue;
          seen.add(n);
          if (!out.has(n)) out.set(n, sign * d);
          next.push(n);
        }
      }
      frontier = next;
    }
  }
  // nodes off the root's directed paths (another input of a downstream job, ...) sit one column
  // before the node they feed, or one after the node that feeds them
  let changed = true;
  while (changed) {
    changed = false;
    for (const e of graph.edges) {
      const s = out.get(e.source);
      const t = out.get(e.target);
      if (s === undefined && t !== undefined) {
        out.set(e.source, t - 1);
        changed = true;
      } else if (t === undefined && s !== undefined) {
        out.set(e.target, s + 1);
        changed = true;
      }
    }
  }
  return out;
}
