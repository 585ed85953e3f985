// Job hierarchy on screen: child jobs (a Spark application's actions, an Airflow DAG's tasks) drawn as
// their parent job, edges lifted to it, unless the user opened that parent to see its children.
//
// Which job stands for which comes from the server (`lineage?collapseJobs=true`: a parent node lists the
// `children` it stands for in that answer; graph/hierarchy.py). The graph on screen is grouped here, in the
// browser, from the plain answers and that map — the same rule as the server's collapse (a test checks
// they agree), so one parent can be opened while the others stay grouped.
import type { GraphEdge, GraphNode } from "../api/types";
import type { Fragment, Graph } from "./graph";

export interface Hierarchy {
  /** child job -> the top parent job that stands for it */
  top: Map<string, string>;
  /** the parent jobs (their nodes as the server answered them) */
  parents: Map<string, GraphNode>;
}

export const emptyHierarchy = (): Hierarchy => ({ top: new Map(), parents: new Map() });

/** The child -> parent map of collapsed answers (each parent node's `children`). */
export function hierarchyOf(collapsed: Fragment[]): Hierarchy {
  const h = emptyHierarchy();
  for (const f of collapsed) {
    for (const n of f.nodes) {
      if (!n.children?.length) continue;
      if (!h.parents.has(n.id)) h.parents.set(n.id, n);
      for (const c of n.children) h.top.set(c, n.id);
    }
  }
  return h;
}

export function mergeHierarchies(hs: Hierarchy[]): Hierarchy {
  const out = emptyHierarchy();
  for (const h of hs) {
    for (const [c, p] of h.top) out.top.set(c, p);
    for (const [id, n] of h.parents) if (!out.parents.has(id)) out.parents.set(id, n);
  }
  return out;
}

/**
 * `graph` with every child job whose parent is not in `open` drawn as that parent: the parent's node
 * lists the children it stands for (`children`), edges are lifted to it and merged (`via` names the
 * children), a side has more when any child's side has more. Jobs of an opened parent stay as they
 * are; an opened parent's own node is dropped when nothing connects to it (its children show its
 * lineage), unless it is `keep` (the root).
 */
export function groupJobs(graph: Graph, h: Hierarchy, open: ReadonlySet<string>, keep: string | null = null): Graph {
  if (!h.top.size) return graph;
  const target = (id: string): string => {
    const t = h.top.get(id);
    return t !== undefined && t !== id && !open.has(t) ? t : id;
  };
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const merged = new Map<string, GraphNode>();
  const members = new Map<string, Set<string>>();
  for (const n of graph.nodes) {
    const t = target(n.id);
    const seen = merged.get(t);
    const base = seen ?? byId.get(t) ?? h.parents.get(t) ?? n;
    const item: GraphNode = seen ?? { ...base, children: null };
    if (t !== n.id) {
      item.hasMoreUpstream = Boolean(item.hasMoreUpstream || n.hasMoreUpstream);
      item.hasMoreDownstream = Boolean(item.hasMoreDownstream || n.hasMoreDownstream);
      const m = members.get(t) ?? new Set<string>();
      m.add(n.id);
      members.set(t, m);
    }
    merged.set(t, item);
  }
  for (const [p, kids] of members) merged.set(p, { ...merged.get(p)!, children: [...kids].sort() });

  const edges = new Map<string, GraphEdge>();
  for (const e of graph.edges) {
    const source = target(e.source);
    const dest = target(e.target);
    const lifted = [e.source, e.target].filter((j) => target(j) !== j);
    const via = e.type === "DERIVED" ? (e.via ?? []).map(target) : [...(e.via ?? []), ...lifted];
    const key = `${source}->${dest}`;
    const seen = edges.get(key);
    if (seen) {
      const all = new Set([...(seen.via ?? []), ...via]);
      edges.set(key, { ...seen, via: [...all].sort() });
    } else {
      edges.set(key, { id: key, source, target: dest, type: e.type, via: [...new Set(via)].sort() });
    }
  }
  const connected = new Set<string>();
  for (const e of edges.values()) {
    connected.add(e.source);
    connected.add(e.target);
  }
  const nodes = [...merged.values()].filter((n) => !open.has(n.id) || n.id === keep || connected.has(n.id));
  const columnEdges = graph.columnEdges.map((c) => (c.job && target(c.job) !== c.job ? { ...c, job: target(c.job) } : c));
  return { nodes, edges: [...edges.values()], columnEdges, truncated: graph.truncated };
}

/** The top parent of `jobId` when it is a child job (so opening that parent shows it), else null. */
export function topParent(h: Hierarchy, jobId: string): string | null {
  const t = h.top.get(jobId);
  return t !== undefined && t !== jobId ? t : null;
}
