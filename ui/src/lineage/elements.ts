// From the graph model to React Flow nodes and edges (pure): emphasis for a selected column
// path or an impact set, compare marks, open/paged columns, and the boxes the layout needs.
import { MarkerType } from "@xyflow/react";
import type { Graph } from "../model/graph";
import { expansionKey } from "../model/graph";
import { INFLUENCE_WORDS, PAGE_SIZE, dependencyOf, flattenFields, indirectKinds, isDatasetWide, pageColumns, type ColumnPath, type FlatField } from "../model/columns";
import { columnKey, edgeMark, type CompareMarks } from "../model/compare";
import { datasetOfField, fieldId, fieldName, isField, splitName } from "../model/nodeid";
import { placeOf, sharedFolder } from "../model/names";
import { push } from "../lib/multimap";
import { ELK_MAX_NODES, type LayoutEdge, type LayoutNode, type LayoutPort } from "../layout/types";
import { DATASET_WIDTH, FILTER_HEIGHT, FIRST_ROW_Y, JOB_HEIGHT, JOB_WIDTH, NODE_HANDLE_Y, ROW_HEIGHT, datasetHeight, handleBoxes, pathRowsHeight } from "./sizes";
import type { ColumnView, Emphasis, LineageFlowEdge, LineageFlowNode } from "./types";
import type { CatalogChip } from "../model/catalogFold";

export interface ColumnUi {
  page: number;
  filter: string;
}

export interface ElementsInput {
  graph: Graph;
  root: string;
  levels: Map<string, number>;
  selectedNode: string | null;
  column: string | null;
  path: ColumnPath | null;
  impact: Set<string> | null;
  marks: CompareMarks | null;
  openColumns: Set<string>;
  columnUi: Map<string, ColumnUi>;
  expansions: Set<string>;
  /** give React Flow the handle positions up front (big graphs: no render-to-measure pass) */
  precomputeHandles?: boolean;
  /** draw only DIRECT column dependencies (no INDIRECT ones: join/filter/group keys) */
  directOnly?: boolean;
  /** impact analysis: datasets and jobs downstream of a drawn node that the graph does not show */
  hiddenDownstream?: Map<string, number>;
  /** job grouping: child job -> the opened parent it belongs to */
  openedParentOf?: Map<string, string>;
  /** catalog nodes folded: drawn node -> the chip of those hanging from it */
  catalogChips?: Map<string, CatalogChip>;
}

/** A job, or the catalog's opaque restricted node standing for a hidden job (`job:restricted://hidden:<n>`). */
export const isJobNode = (n: { id: string; type: string }): boolean => n.type === "JOB" || (n.type === "RESTRICTED" && n.id.startsWith("job:"));

export { dependencyOf };

export interface Elements {
  nodes: LineageFlowNode[];
  edges: LineageFlowEdge[];
  layoutNodes: LayoutNode[];
  layoutEdges: LayoutEdge[];
}

/** The arrow at the end of every flow edge (one object for all of them). */
const ARROW = { type: MarkerType.ArrowClosed, width: 16, height: 16 } as const;

/** Columns of a schema, nested ones included (what flattenFields(...).length is, without building the list). */
function countFields(fields: { fields?: unknown[] | null }[] | null | undefined): number {
  let n = 0;
  for (const f of fields ?? []) n += 1 + countFields(f.fields as { fields?: unknown[] | null }[] | null | undefined);
  return n;
}

/** The node-level ports (the header's handles): where flow and dataset-wide edges attach. */
const NODE_PORTS: LayoutPort[] = [
  { id: "in", side: "in", y: NODE_HANDLE_Y },
  { id: "out", side: "out", y: NODE_HANDLE_Y },
];

/** A dataset's ports: the header's and each column row's on screen (the handles sizes.ts places). */
function datasetPorts(paths: string[], paged: boolean): LayoutPort[] {
  const top = FIRST_ROW_Y + (paged ? FILTER_HEIGHT : 0) + ROW_HEIGHT / 2;
  return [
    ...NODE_PORTS,
    ...paths.flatMap((p, i): LayoutPort[] => [
      { id: `in:${p}`, side: "in", y: top + i * ROW_HEIGHT },
      { id: `out:${p}`, side: "out", y: top + i * ROW_HEIGHT },
    ]),
  ];
}

export function buildElements(inp: ElementsInput): Elements {
  const { graph, path, impact, marks } = inp;
  const ids = new Set(graph.nodes.map((n) => n.id));
  // graphs ELK lays out get their edges routed around the boxes: the ports say where edges attach
  const routed = graph.nodes.length <= ELK_MAX_NODES;
  const pathJobs = new Set<string>();
  if (path) {
    graph.columnEdges.forEach((e, i) => {
      if (path.edges.has(i) && e.job) pathJobs.add(e.job);
    });
  }
  const nodeEmphasis = (id: string, isJob: boolean): Emphasis => {
    if (path) return (isJob ? pathJobs.has(id) : path.datasets.has(id)) ? "highlight" : "dim";
    if (impact) return impact.has(id) ? "highlight" : id === inp.root ? "normal" : "dim";
    return "normal";
  };
  const colEmphasis = (id: string): Emphasis => {
    if (path) return path.columns.has(id) ? "highlight" : "dim";
    if (impact) return impact.has(id) ? "highlight" : "normal";
    return "normal";
  };

  const nodes: LineageFlowNode[] = [];
  const layoutNodes: LayoutNode[] = [];
  const visibleCols = new Map<string, Set<string>>(); // dataset -> field paths on screen
  // path columns per dataset: a dataset whose columns are closed still shows the ones on the path
  const pathCols = new Map<string, Set<string>>();
  if (path) for (const c of path.columns) {
    const d = datasetOfField(c);
    const set = pathCols.get(d) ?? new Set<string>();
    set.add(c);
    pathCols.set(d, set);
  }
  if (path?.influences.length) for (const inf of path.influences) {
    const d = datasetOfField(inf.column);
    const set = pathCols.get(d) ?? new Set<string>();
    set.add(inf.column);
    pathCols.set(d, set);
  }
  // subtitles: the folder relative to what the graph's datasets of a namespace share
  const foldersByNs = new Map<string, string[]>();
  for (const n of graph.nodes) if (!isJobNode(n) && n.type !== "RESTRICTED") push(foldersByNs, n.namespace, splitName(n.name).context);
  const shared = new Map([...foldersByNs].map(([ns, f]) => [ns, sharedFolder(f)]));
  for (const n of graph.nodes) {
    const level = inp.levels.get(n.id) ?? 0;
    const common = {
      node: n,
      isRoot: n.id === inp.root,
      selected: n.id === inp.selectedNode,
      emphasis: nodeEmphasis(n.id, isJobNode(n)),
      mark: marks?.nodes.get(n.id),
      expandedUp: inp.expansions.has(expansionKey({ nodeId: n.id, direction: "upstream" })),
      expandedDown: inp.expansions.has(expansionKey({ nodeId: n.id, direction: "downstream" })),
      hiddenDown: inp.hiddenDownstream?.get(n.id) ?? 0,
    };
    if (isJobNode(n)) {
      nodes.push({
        id: n.id,
        type: "job",
        position: { x: 0, y: 0 },
        width: JOB_WIDTH,
        height: JOB_HEIGHT,
        ...(inp.precomputeHandles ? { handles: handleBoxes([], false, JOB_WIDTH) } : {}),
        data: { ...common, groupedIn: inp.openedParentOf?.get(n.id) ?? null },
      });
      layoutNodes.push({ id: n.id, width: JOB_WIDTH, height: JOB_HEIGHT, level, ...(routed ? { ports: NODE_PORTS } : {}) });
      continue;
    }
    const open = inp.openColumns.has(n.id);
    const onPath = open ? undefined : pathCols.get(n.id);
    const mode = open ? "all" : onPath ? "path" : "none";
    // a closed node needs only its column count (huge graphs: most nodes are closed)
    const all = mode !== "none" ? flattenFields(n.fields) : null;
    const count = all ? all.length : countFields(n.fields);
    const ui = inp.columnUi.get(n.id) ?? { page: -1, filter: "" };
    let shownFields: FlatField[] = [];
    let pg = { page: 0, pages: 1, total: count };
    if (mode === "all" && all) {
      // no page chosen yet: the page of the selected column, else of the first path column, else the first
      let page = ui.page;
      if (page < 0) {
        const want = all.findIndex((c) => fieldId(n.id, c.path) === inp.column);
        const onIt = want >= 0 ? want : all.findIndex((c) => path?.columns.has(fieldId(n.id, c.path)));
        page = !ui.filter && onIt >= 0 ? Math.floor(onIt / PAGE_SIZE) : 0;
      }
      const cut = pageColumns(all, ui.filter, page);
      shownFields = cut.items;
      pg = { page: cut.page, pages: cut.pages, total: cut.total };
    } else if (mode === "path" && all && onPath) {
      const known = new Set<string>();
      shownFields = all.filter((c) => {
        const hit = onPath.has(fieldId(n.id, c.path));
        if (hit) known.add(c.path);
        return hit;
      });
      // a path column the schema does not list (a producer's lineage names it): shown without a type
      for (const id of onPath) {
        const f = fieldName(id);
        if (!known.has(f)) shownFields.push({ path: f, name: f, type: null, description: null, depth: 0 });
      }
      pg = { page: 0, pages: 1, total: shownFields.length };
    }
    const columns: ColumnView[] = shownFields.map((c) => {
      const id = fieldId(n.id, c.path);
      return { ...c, id, emphasis: colEmphasis(id), mark: marks?.columns.get(columnKey(n.id, c.path)), selected: id === inp.column, change: marks?.changes?.get(columnKey(n.id, c.path)) };
    });
    if (mode !== "none") visibleCols.set(n.id, new Set(columns.map((c) => c.path)));
    const shown = new Set(columns.map((c) => c.id));
    const hiddenHighlighted = path ? [...path.columns].filter((c) => datasetOfField(c) === n.id && !shown.has(c)).length : 0;
    const height = mode === "path" ? pathRowsHeight(columns.length) : datasetHeight(count, open);
    nodes.push({
      id: n.id,
      type: "dataset",
      position: { x: 0, y: 0 },
      // known sizes let React Flow skip off-screen nodes before it has measured them
      width: DATASET_WIDTH,
      height,
      ...(inp.precomputeHandles ? { handles: handleBoxes(columns.map((c) => c.path), mode === "all" && count > PAGE_SIZE) } : {}),
      data: {
        ...common,
        columnsOpen: open,
        columnsMode: mode,
        columns,
        columnTotal: pg.total,
        columnCount: count,
        page: pg.page,
        pages: pg.pages,
        filter: ui.filter,
        hiddenHighlighted,
        height,
        catalogChip: inp.catalogChips?.get(n.id) ?? null,
        place: placeOf(n.namespace, splitName(n.name).context, shared.get(n.namespace) ?? ""),
      },
    });
    layoutNodes.push({
      id: n.id,
      width: DATASET_WIDTH,
      height,
      level,
      ...(routed ? { ports: datasetPorts(columns.map((c) => c.path), mode === "all" && count > PAGE_SIZE) } : {}),
    });
  }

  const edges: LineageFlowEdge[] = [];
  const layoutEdges: LayoutEdge[] = [];
  const emphOf = (a: string, b: string): Emphasis => {
    if (!path && !impact) return "normal";
    const ea = nodeEmphasis(a, a.startsWith("job:"));
    const eb = nodeEmphasis(b, b.startsWith("job:"));
    return ea !== "dim" && eb !== "dim" ? "highlight" : "dim";
  };
  for (const e of graph.edges) {
    const id = `f:${e.source}->${e.target}`;
    const mark = edgeMark(marks, e);
    edges.push({
      id,
      source: e.source,
      target: e.target,
      sourceHandle: "out",
      targetHandle: "in",
      type: "lineage",
      markerEnd: ARROW,
      data: { kind: "flow", emphasis: emphOf(e.source, e.target), mark, via: e.via, label: e.type === "DERIVED" ? "derived" : "" },
      // every edge is drawn under the nodes (React Flow's edge layer), never across a node's text
      zIndex: 0,
    });
    layoutEdges.push({ id, source: e.source, target: e.target, sourcePort: "out", targetPort: "in" });
  }

  // dataset-wide dependencies (join, filter, group-by, sort keys; the facet's dataset-level list): one
  // edge per dataset pair, header to header, whatever number of output columns a producer fanned them onto
  const pairs = new Map<string, { src: string; tgt: string; idx: number[]; keys: Map<string, Set<string>> }>();
  graph.columnEdges.forEach((ce, i) => {
    const srcDs = datasetOfField(ce.source);
    const tgtIsField = isField(ce.target);
    const tgtDs = tgtIsField ? datasetOfField(ce.target) : ce.target;
    if (!ids.has(srcDs) || !ids.has(tgtDs)) return;
    const srcOpen = visibleCols.get(srcDs);
    const tgtOpen = visibleCols.get(tgtDs);
    // column edges are drawn between column rows on screen (the dataset-to-dataset edges already say the rest)
    if (!srcOpen || !tgtOpen) return;
    const t = ce.transformations ?? [];
    const dependency = dependencyOf(ce.target, t);
    if (inp.directOnly && dependency === "indirect") return;
    const onPath = path ? path.edges.has(i) : false;
    if (dependency === "indirect" && isDatasetWide(ce)) {
      const key = `${srcDs}->${tgtDs}`;
      const pair = pairs.get(key) ?? { src: srcDs, tgt: tgtDs, idx: [], keys: new Map<string, Set<string>>() };
      pair.idx.push(i);
      for (const k of indirectKinds(ce)) {
        const set = pair.keys.get(k) ?? new Set<string>();
        set.add(fieldName(ce.source));
        pair.keys.set(k, set);
      }
      pairs.set(key, pair);
      return;
    }
    const sf = fieldName(ce.source);
    const tf = tgtIsField ? fieldName(ce.target) : null;
    if (!srcOpen.has(sf) || (tf !== null && !tgtOpen.has(tf))) return;
    const sourceHandle = `out:${sf}`;
    const targetHandle = tf !== null ? `in:${tf}` : "in";
    const emphasis: Emphasis = path ? (onPath ? "highlight" : "dim") : "normal";
    edges.push({
      id: `c:${i}`,
      source: srcDs,
      target: tgtDs,
      sourceHandle,
      targetHandle,
      type: "lineage",
      data: {
        kind: "column",
        dependency,
        emphasis,
        transformations: t,
        job: ce.job,
        label: `${sf} → ${tf ?? "(whole dataset)"}`,
      },
      zIndex: 0,
    });
    if (routed) layoutEdges.push({ id: `c:${i}`, source: srcDs, target: tgtDs, sourcePort: sourceHandle, targetPort: targetHandle, routeOnly: true });
  });
  for (const [key, pair] of pairs) {
    const onPath = path ? pair.idx.some((i) => path.edges.has(i)) : false;
    if (path && !onPath) continue;
    const first = graph.columnEdges[pair.idx[0]];
    const words = [...pair.keys].map(([k, cols]) => `${INFLUENCE_WORDS[k] ?? INFLUENCE_WORDS[""]} ${[...cols].sort().join(", ")}`);
    edges.push({
      id: `d:${key}`,
      source: pair.src,
      target: pair.tgt,
      sourceHandle: "out",
      targetHandle: "in",
      type: "lineage",
      data: {
        kind: "column",
        dependency: "indirect",
        datasetLevel: true,
        emphasis: path ? "highlight" : "normal",
        transformations: [...new Map(pair.idx.flatMap((i) => graph.columnEdges[i].transformations ?? []).map((t) => [`${t.type}|${t.subtype ?? ""}`, t])).values()],
        job: first.job,
        label: `rows: ${words.join("; ")}`,
      },
      zIndex: 0,
    });
    if (routed) layoutEdges.push({ id: `d:${key}`, source: pair.src, target: pair.tgt, sourcePort: "out", targetPort: "in", routeOnly: true });
  }
  // highlighted edges last: drawn on top of the other edges (all of them under the nodes)
  const rank = (e: LineageFlowEdge) => (e.data?.emphasis === "highlight" ? 2 : e.data?.emphasis === "dim" ? 0 : 1);
  edges.sort((a, b) => rank(a) - rank(b));
  return { nodes, edges, layoutNodes, layoutEdges };
}
