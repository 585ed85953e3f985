// Column-level lineage as pure functions: the highlighted path of a column, paging of long
// column lists, flattening of nested fields.
import type { ColumnEdge, Field } from "../api/types";
import { push } from "../lib/multimap";
import { datasetOfField, isField } from "./nodeid";

/** INDIRECT subtypes that select, pair or order whole rows: they affect every column of the output. */
export const DATASET_WIDE = new Set(["JOIN", "FILTER", "GROUP_BY", "SORT"]);

/**
 * How a column edge depends: DIRECT when a value flows (identity, transformation, aggregation; an edge
 * without transformations is taken as DIRECT), INDIRECT when the target is a dataset (the facet's
 * dataset-level list) or every transformation it carries is INDIRECT.
 */
export function dependencyOf(target: string, transformations: { type: string }[] | null | undefined): "direct" | "indirect" {
  if (!isField(target)) return "indirect";
  const t = transformations ?? [];
  return t.length > 0 && t.every((x) => x.type === "INDIRECT") ? "indirect" : "direct";
}

/** The INDIRECT subtypes of an edge ("JOIN", "FILTER", ...), "" for one without a subtype. */
export function indirectKinds(e: ColumnEdge): string[] {
  const kinds = (e.transformations ?? []).filter((t) => t.type === "INDIRECT").map((t) => (t.subtype ?? "").toUpperCase());
  return kinds.length ? [...new Set(kinds)] : [""];
}

/**
 * An INDIRECT edge that stands for a whole-dataset dependency: the facet's dataset-level list, or a
 * join/filter/group-by/sort key that a producer folded into every output column's inputs (the
 * OpenLineage Spark integration's default). A CASE condition or a window key stays on its column.
 */
export function isDatasetWide(e: ColumnEdge): boolean {
  if (!isField(e.target)) return true;
  if (dependencyOf(e.target, e.transformations) !== "indirect") return false;
  return indirectKinds(e).every((k) => DATASET_WIDE.has(k));
}

/** Words for an INDIRECT subtype, as the path list says them. */
export const INFLUENCE_WORDS: Record<string, string> = {
  JOIN: "joined on",
  FILTER: "rows selected by",
  GROUP_BY: "grouped by",
  SORT: "sorted by",
  WINDOW: "window over",
  CONDITIONAL: "chosen by",
  "": "depends on",
};

/** A column that influences the path without its value flowing into it (a join, filter, group-by key...). */
export interface Influence {
  column: string;
  /** the INDIRECT subtypes ("JOIN", "FILTER", ...) */
  kinds: string[];
  /** the path column (or dataset) it influences */
  on: string;
}

export interface ColumnPath {
  /** the selected column and every column whose value flows into it or out of it (datasetField ids) */
  columns: Set<string>;
  /** datasets that hold a path column */
  datasets: Set<string>;
  /** indexes into the given columnEdges that lie on the path (and, with influences, the INDIRECT ones into it) */
  edges: Set<number>;
  /** hops from the selected column: negative upstream, positive downstream, 0 the column itself */
  hops: Map<string, number>;
  /** INDIRECT influences on the upstream path (only when asked for): listed apart, not walked further */
  influences: Influence[];
}

/**
 * What flows into (upstream) and out of (downstream) a column: breadth-first over DIRECT column edges
 * only, backwards from the column and its ancestors, forwards from the column and its descendants
 * (siblings that merely share an upstream are *not* on the path). Join, filter and group-by keys
 * decide which rows there are, not the value: with `indirect` they are listed as influences on the
 * upstream path (the edges into a path column or its dataset), one hop, not walked further. Cycles
 * are safe.
 */
export function columnPath(selected: string, columnEdges: ColumnEdge[], opts: { indirect?: boolean } = {}): ColumnPath {
  const bySource = new Map<string, number[]>();
  const byTarget = new Map<string, number[]>();
  const direct: boolean[] = columnEdges.map((e) => dependencyOf(e.target, e.transformations) === "direct");
  columnEdges.forEach((e, i) => {
    push(bySource, e.source, i);
    push(byTarget, e.target, i);
  });
  const columns = new Set<string>([selected]);
  const datasets = new Set<string>([datasetOfField(selected)]);
  const edges = new Set<number>();
  const hops = new Map<string, number>([[selected, 0]]);
  const upstream: string[] = [selected];

  const walk = (index: Map<string, number[]>, next: (e: ColumnEdge) => string, sign: number) => {
    let frontier = [selected];
    for (let hop = 1; frontier.length; hop++) {
      const nextFrontier: string[] = [];
      for (const id of frontier) {
        for (const i of index.get(id) ?? []) {
          if (!direct[i]) continue;
          const n = next(columnEdges[i]);
          if (!isField(n)) continue;
          edges.add(i);
          if (hops.has(n)) continue;
          hops.set(n, sign * hop);
          columns.add(n);
          datasets.add(datasetOfField(n));
          nextFrontier.push(n);
          if (sign < 0) upstream.push(n);
        }
      }
      frontier = nextFrontier;
    }
  };
  walk(byTarget, (e) => e.source, -1);
  walk(bySource, (e) => e.target, 1);

  const influences: Influence[] = [];
  if (opts.indirect) {
    const seen = new Map<string, Influence>();
    const into = (target: string) => {
      for (const i of byTarget.get(target) ?? []) {
        if (direct[i]) continue;
        const e = columnEdges[i];
        edges.add(i);
        const key = `${e.source}|${target}`;
        const known = seen.get(key);
        const kinds = indirectKinds(e);
        if (known) known.kinds = [...new Set([...known.kinds, ...kinds])];
        else {
          const inf = { column: e.source, kinds, on: target };
          seen.set(key, inf);
          influences.push(inf);
        }
      }
    };
    const upDatasets = new Set<string>();
    for (const c of upstream) {
      into(c);
      upDatasets.add(datasetOfField(c));
    }
    for (const d of upDatasets) into(d);
  }
  return { columns, datasets, edges, hops, influences };
}

/** The path's columns in hop order: the selected column, then upstream nearest first, then downstream nearest first. */
export function pathInHopOrder(p: ColumnPath): string[] {
  const rank = (h: number) => (h <= 0 ? -h : 1e6 + h);
  return [...p.columns].sort((a, b) => rank(p.hops.get(a) ?? 0) - rank(p.hops.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
}

export interface FlatField {
  /** dotted path for nested fields: "address.city" */
  path: string;
  name: string;
  type: string | null;
  description: string | null;
  depth: number;
}

export function flattenFields(fields: Field[] | undefined, prefix = "", depth = 0): FlatField[] {
  const out: FlatField[] = [];
  for (const f of fields ?? []) {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    out.push({ path, name: f.name, type: f.type ?? null, description: f.description ?? null, depth });
    if (f.fields?.length) out.push(...flattenFields(f.fields, path, depth + 1));
  }
  return out;
}

export const PAGE_SIZE = 10;

export interface ColumnPage<T> {
  items: T[];
  page: number;
  pages: number;
  total: number;
}

/**
 * Filter columns by a case-insensitive substring, then cut one page of `size`.
 * An out-of-range page is clamped so a shrinking filter never shows an empty page.
 */
export function pageColumns<T extends { path: string }>(
  columns: T[],
  filter: string,
  page: number,
  size = PAGE_SIZE,
): ColumnPage<T> {
  const needle = filter.trim().toLowerCase();
  const matched = needle ? columns.filter((c) => c.path.toLowerCase().includes(needle)) : columns;
  const pages = Math.max(1, Math.ceil(matched.length / size));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { items: matched.slice(p * size, p * size + size), page: p, pages, total: matched.length };
}
