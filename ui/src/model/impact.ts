// Impact analysis results as CSV, the same columns as the API's format=csv.
import type { ImpactItem } from "../api/types";

export const IMPACT_CSV_COLUMNS = ["depth", "type", "id", "namespace", "name", "field", "path"] as const;

/** RFC 4180 quoting; a leading = + - @ is prefixed with ' so spreadsheets do not run it as a formula. */
export function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function impactCsv(items: ImpactItem[]): string {
  const rows = [IMPACT_CSV_COLUMNS.join(",")];
  for (const it of items) {
    rows.push(
      [it.depth, it.type, it.id, it.namespace, it.name, it.field ?? "", it.path.join(" > ")].map(csvCell).join(","),
    );
  }
  return rows.join("\r\n") + "\r\n";
}

/** Items sorted by depth then type (datasets, fields, jobs) then name: the order the list shows. */
export function sortImpact(items: ImpactItem[]): ImpactItem[] {
  const rank = { DATASET: 0, FIELD: 1, JOB: 2 } as const;
  return [...items].sort(
    (a, b) =>
      a.depth - b.depth ||
      rank[a.type] - rank[b.type] ||
      a.name.localeCompare(b.name) ||
      (a.field ?? "").localeCompare(b.field ?? ""),
  );
}

/**
 * For each drawn node, how many datasets and jobs downstream of it the impact answer knows that
 * the graph does not show: an item not drawn is counted on the last drawn node of its path (the
 * node whose "expand downstream" would bring it closer). Columns are not counted (their dataset is).
 */
export function hiddenDownstream(items: Array<{ id: string; type: string; path: string[] }>, drawn: Set<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const it of items) {
    if (it.type === "FIELD" || drawn.has(it.id)) continue;
    let last: string | null = null;
    for (const p of it.path) if (drawn.has(p)) last = p;
    if (last) counts.set(last, (counts.get(last) ?? 0) + 1);
  }
  return counts;
}
