// Marks for "compare two moments": which nodes, edges and columns were added or removed.
import type { CompareAnswer, GraphEdge, GraphNode } from "../api/types";
import type { Graph } from "./graph";

export type Mark = "added" | "removed";

export interface CompareMarks {
  nodes: Map<string, Mark>;
  edges: Map<string, Mark>;
  /** key `${datasetId}|${field}` */
  columns: Map<string, Mark | "changed">;
  /** the old and new type of each changed column (same keys) */
  changes?: Map<string, { from: string | null; to: string | null }>;
}

/**
 * The logical family of a type name, so that two producers' spellings of one type compare equal
 * (`bigint`/`integer`/`long`/`int64` are integers, `double`/`decimal(12,2)`/`numeric` are numbers,
 * `varchar(20)`/`string`/`text` are strings); a change of family is a real change.
 */
export function typeFamily(type: string | null | undefined): string {
  const t = (type ?? "").trim().toLowerCase().replace(/\(.*\)$/, "").replace(/\s+/g, " ");
  if (!t) return "";
  if (/^(tiny|small|medium|big)?int(eger)?(\d+)?$|^(long|short|byte|serial|bigserial|smallserial|int[248]|u?int(8|16|32|64))$/.test(t)) return "integer";
  if (/^(double( precision)?|float\d*|real|decimal|numeric|number|dec|money)$/.test(t)) return "number";
  if (/^(string|text|varchar|char|character( varying)?|nvarchar|nchar|bpchar|citext|utf8|large_string)$/.test(t)) return "string";
  if (/^(bool|boolean|bit)$/.test(t)) return "boolean";
  if (/^(timestamp|timestamptz|timestamp_ntz|timestamp_ltz|datetime|timestamp with(out)? time zone)$/.test(t)) return "timestamp";
  if (t === "date") return "date";
  if (/^(binary|bytea|blob|varbinary|bytes)$/.test(t)) return "binary";
  return t;
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
  const changes = new Map<string, { from: string | null; to: string | null }>();
  for (const col of c.columns.changed) {
    // a producer's spelling of the same type (bigint for integer, double for decimal) is not a change
    if (typeFamily(col.fromType) === typeFamily(col.toType)) continue;
    columns.set(columnKey(col.dataset, col.field), "changed");
    changes.set(columnKey(col.dataset, col.field), { from: col.fromType ?? null, to: col.toType ?? null });
  }
  return { nodes, edges, columns, changes };
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

type AddedColumn = CompareAnswer["columns"]["added"][number];

/**
 * The added columns as changes: a column added to a dataset and carried on into the datasets made from it
 * (an added column edge between two added columns: a crawler's table of the changed file, a job's copy) is
 * one change, listed source first.
 */
export function addedColumnChanges(answer: CompareAnswer): AddedColumn[][] {
  const key = (dataset: string, field: string) => `datasetField:${dataset.slice("dataset:".length)}:${field}`;
  const byKey = new Map(answer.columns.added.map((c) => [key(c.dataset, c.field), c]));
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    const p = parent.get(k);
    if (!p || p === k) return k;
    const r = find(p);
    parent.set(k, r);
    return r;
  };
  const fed = new Set<string>();
  for (const e of answer.columnEdges.added) {
    if (!byKey.has(e.source) || !byKey.has(e.target)) continue;
    if ((e.transformations ?? []).length > 0 && e.transformations.every((t) => t.type === "INDIRECT")) continue;
    parent.set(find(e.target), find(e.source));
    fed.add(e.target);
  }
  const groups = new Map<string, AddedColumn[]>();
  for (const [k, c] of byKey) {
    const r = find(k);
    const list = groups.get(r) ?? [];
    // the column nothing added feeds first
    if (fed.has(k)) list.push(c);
    else list.unshift(c);
    groups.set(r, list);
  }
  return [...groups.values()];
}
