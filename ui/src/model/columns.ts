// Column-level lineage as pure functions: the highlighted path of a column, paging of long
// column lists, flattening of nested fields.
import type { ColumnEdge, Field } from "../api/types";
import { push } from "../lib/multimap";
import { datasetOfField, isField } from "./nodeid";

export interface ColumnPath {
  /** the selected column and every column upstream and downstream of it (datasetField ids) */
  columns: Set<string>;
  /** datasets that hold a path column or that depend on one at dataset level */
  datasets: Set<string>;
  /** indexes into the given columnEdges that lie on the path */
  edges: Set<number>;
}

/**
 * Breadth-first search over column edges from one column: upstream follows edges backwards
 * from the column and its ancestors only, downstream follows them forwards from the column and
 * its descendants only (siblings that merely share an upstream are *not* on the path).
 * A target that is a dataset id (a dataset-level dependency) ends that branch: the dataset is
 * marked, the walk does not continue into all its columns.
 */
export function columnPath(selected: string, columnEdges: ColumnEdge[]): ColumnPath {
  const bySource = new Map<string, number[]>();
  const byTarget = new Map<string, number[]>();
  columnEdges.forEach((e, i) => {
    push(bySource, e.source, i);
    push(byTarget, e.target, i);
  });
  const columns = new Set<string>([selected]);
  const datasets = new Set<string>([datasetOfField(selected)]);
  const edges = new Set<number>();

  const walk = (index: Map<string, number[]>, next: (e: ColumnEdge) => string) => {
    const seen = new Set<string>([selected]);
    let frontier = [selected];
    while (frontier.length) {
      const nextFrontier: string[] = [];
      for (const id of frontier) {
        for (const i of index.get(id) ?? []) {
          edges.add(i);
          const n = next(columnEdges[i]);
          if (!isField(n)) {
            datasets.add(n);
            continue;
          }
          if (seen.has(n)) continue;
          seen.add(n);
          columns.add(n);
          datasets.add(datasetOfField(n));
          nextFrontier.push(n);
        }
      }
      frontier = nextFrontier;
    }
  };
  walk(byTarget, (e) => e.source);
  walk(bySource, (e) => e.target);
  return { columns, datasets, edges };
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
