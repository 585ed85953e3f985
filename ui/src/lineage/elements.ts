// From the graph model to React Flow nodes and edges (pure): emphasis for a selected column
// path or an impact set, compare marks, open/paged columns, and the boxes the layout needs.
import { MarkerType } from "@xyflow/react";
import type { Graph } from "../model/graph";
import { expansionKey } from "../model/graph";
import { PAGE_SIZE, flattenFields, pageColumns, type ColumnPath } from "../model/columns";
import { columnKey, edgeMark, type CompareMarks } from "../model/compare";
import { datasetOfField, fieldId, fieldName, isField } from "../model/nodeid";
import type { LayoutEdge, LayoutNode } from "../layout/types";
import { JOB_HEIGHT, NODE_WIDTH, datasetHeight, handleBoxes } from "./sizes";
import type { ColumnView, Emphasis, LineageFlowEdge, LineageFlowNode } from "./types";

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
}

/** A column edge is INDIRECT when it ends at a dataset (the facet's dataset-level list) or every transformation it carries is INDIRECT. */
/** A job, or the catalog's opaque restricted node standing for a hidden job (`job:restricted://hidden:<n>`). */
export const isJobNode = (n: { id: string; type: string }): boolean => n.type === "JOB" || (n.type === "RESTRICTED" && n.id.startsWith("job:"));

export function dependencyOf(target: string, transformations: { type: string }[] | null | undefined): "direct" | "indirect" {
  if (!isField(target)) return "indirect";
  const t = transformations ?? [];
  return t.length > 0 && t.every((x) => x.type === "INDIRECT") ? "indirect" : "direct";
}

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

export function buildElements(inp: ElementsInput): Elements {
  const { graph, path, impact, marks } = inp;
  const ids = new Set(graph.nodes.map((n) => n.id));
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
        width: NODE_WIDTH,
        height: JOB_HEIGHT,
        ...(inp.precomputeHandles ? { handles: handleBoxes([], false) } : {}),
        data: { ...common, groupedIn: inp.openedParentOf?.get(n.id) ?? null },
      });
      layoutNodes.push({ id: n.id, width: NODE_WIDTH, height: JOB_HEIGHT, level });
      continue;
    }
    const open = inp.openColumns.has(n.id);
    // a closed node needs only its column count (huge graphs: most nodes are closed)
    const all = open ? flattenFields(n.fields) : null;
    const count = all ? all.length : countFields(n.fields);
    const ui = inp.columnUi.get(n.id) ?? { page: 0, filter: "" };
    const pg = all ? pageColumns(all, ui.filter, ui.page) : { items: [], page: 0, pages: 1, total: count };
    const columns: ColumnView[] = open
      ? pg.items.map((c) => {
          const id = fieldId(n.id, c.path);
          return { ...c, id, emphasis: colEmphasis(id), mark: marks?.columns.get(columnKey(n.id, c.path)), selected: id === inp.column };
        })
      : [];
    if (open) visibleCols.set(n.id, new Set(columns.map((c) => c.path)));
    const shown = new Set(columns.map((c) => c.id));
    const hiddenHighlighted = path ? [...path.columns].filter((c) => datasetOfField(c) === n.id && !shown.has(c)).length : 0;
    const height = datasetHeight(count, open);
    nodes.push({
      id: n.id,
      type: "dataset",
      position: { x: 0, y: 0 },
      // known sizes let React Flow skip off-screen nodes before it has measured them
      width: NODE_WIDTH,
      height,
      ...(inp.precomputeHandles ? { handles: handleBoxes(columns.map((c) => c.path), count > PAGE_SIZE) } : {}),
      data: {
        ...common,
        columnsOpen: open,
        columns,
        columnTotal: pg.total,
        columnCount: count,
        page: pg.page,
        pages: pg.pages,
        filter: ui.filter,
        hiddenHighlighted,
        height,
      },
    });
    layoutNodes.push({ id: n.id, width: NODE_WIDTH, height, level });
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
    layoutEdges.push({ id, source: e.source, target: e.target });
  }

  graph.columnEdges.forEach((ce, i) => {
    const srcDs = datasetOfField(ce.source);
    const tgtIsField = isField(ce.target);
    const tgtDs = tgtIsField ? datasetOfField(ce.target) : ce.target;
    if (!ids.has(srcDs) || !ids.has(tgtDs)) return;
    const srcOpen = visibleCols.get(srcDs);
    const tgtOpen = visibleCols.get(tgtDs);
    if (!srcOpen && !tgtOpen) return;
    const sf = fieldName(ce.source);
    const tf = tgtIsField ? fieldName(ce.target) : null;
    const emphasis: Emphasis = path ? (path.edges.has(i) ? "highlight" : "dim") : "normal";
    const t = ce.transformations ?? [];
    const dependency = dependencyOf(ce.target, t);
    if (inp.directOnly && dependency === "indirect") return;
    edges.push({
      id: `c:${i}`,
      source: srcDs,
      target: tgtDs,
      sourceHandle: srcOpen?.has(sf) ? `out:${sf}` : "out",
      targetHandle: tf !== null && tgtOpen?.has(tf) ? `in:${tf}` : "in",
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
  });
  // highlighted edges last: drawn on top of the other edges (all of them under the nodes)
  const rank = (e: LineageFlowEdge) => (e.data?.emphasis === "highlight" ? 2 : e.data?.emphasis === "dim" ? 0 : 1);
  edges.sort((a, b) => rank(a) - rank(b));
  return { nodes, edges, layoutNodes, layoutEdges };
}
