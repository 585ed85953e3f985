// Everything needed to reopen the same view lives in the URL: the asset, the tab, the
// selected column, the expansions, the datasets with open column lists, the time.
//
//   /asset?node=dataset:file:/data/x.csv&tab=lineage&depth=2&col=datasetField:...&exp=u:job:...
//          &cols=dataset:...&at=2026-01-01T00:00:00Z&cmp=2025-12-01T00:00:00Z&dso=1&impact=1&direct=1
//          &group=1&open=job:...&cat=1

import { isCatalogId } from "./catalogFold";

export type Tab = "lineage" | "schema" | "history" | "events" | "runs" | "job";
const TABS: readonly Tab[] = ["lineage", "schema", "history", "events", "runs", "job"];

export interface ViewState {
  node: string;
  tab: Tab;
  depth: number;
  column: string | null;
  expansions: string[];
  openColumns: string[];
  at: string | null;
  compareFrom: string | null;
  datasetsOnly: boolean;
  impact: boolean;
  /** column edges: only DIRECT dependencies (`direct=1`) */
  directOnly: boolean;
  /** the column path also lists INDIRECT influences: join, filter, group-by keys (`ind=1`) */
  indirect: boolean;
  /** job level: child jobs drawn as their parent job (`group=1`) */
  groupJobs: boolean;
  /** with groupJobs: the parent jobs opened to show their children (`open=job:...`) */
  openJobs: string[];
  /** the catalog's nodes (publish, published, subscription) drawn (`cat=1`) rather than folded to a chip;
   * on by default when the asset is one of them (`cat=0` then folds them) */
  catalogNodes: boolean;
}

export const DEFAULT_DEPTH = 2;
export const MAX_DEPTH = 10;

export function defaultView(node: string): ViewState {
  return {
    node,
    tab: "lineage",
    depth: DEFAULT_DEPTH,
    column: null,
    expansions: [],
    openColumns: [],
    at: null,
    compareFrom: null,
    datasetsOnly: false,
    impact: false,
    directOnly: false,
    indirect: false,
    groupJobs: false,
    openJobs: [],
    catalogNodes: isCatalogId(node),
  };
}

export function encodeView(v: ViewState): string {
  const q = new URLSearchParams();
  q.set("node", v.node);
  if (v.tab !== "lineage") q.set("tab", v.tab);
  if (v.depth !== DEFAULT_DEPTH) q.set("depth", String(v.depth));
  if (v.column) q.set("col", v.column);
  for (const e of v.expansions) q.append("exp", e);
  for (const c of v.openColumns) q.append("cols", c);
  if (v.at) q.set("at", v.at);
  if (v.compareFrom) q.set("cmp", v.compareFrom);
  if (v.datasetsOnly) q.set("dso", "1");
  if (v.impact) q.set("impact", "1");
  if (v.directOnly) q.set("direct", "1");
  if (v.indirect) q.set("ind", "1");
  if (v.groupJobs) {
    q.set("group", "1");
    for (const j of v.openJobs) q.append("open", j);
  }
  if (v.catalogNodes !== isCatalogId(v.node)) q.set("cat", v.catalogNodes ? "1" : "0");
  return q.toString();
}

/**
 * `col`: a column id, or (short links) a bare column name of the asset itself: `col=TotalCompensation`
 * on a dataset's page is that dataset's column.
 */
function columnOf(node: string, col: string | null): string | null {
  if (!col) return null;
  if (col.startsWith("datasetField:") || !node.startsWith("dataset:")) return col;
  return `datasetField:${node.slice("dataset:".length)}:${col}`;
}

/** Reads a query string; unknown or malformed values fall back to the defaults. Null when no node. */
export function decodeView(search: string): ViewState | null {
  const q = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search);
  const node = q.get("node");
  if (!node) return null;
  const tab = q.get("tab") as Tab | null;
  const depth = Number.parseInt(q.get("depth") ?? "", 10);
  const exps = q.getAll("exp").filter((e) => /^[ud]:.+/.test(e));
  return {
    node,
    tab: tab && TABS.includes(tab) ? tab : "lineage",
    depth: Number.isFinite(depth) ? Math.min(MAX_DEPTH, Math.max(1, depth)) : DEFAULT_DEPTH,
    column: columnOf(node, q.get("col")),
    expansions: [...new Set(exps)],
    openColumns: [...new Set(q.getAll("cols").filter(Boolean))],
    at: q.get("at") || null,
    compareFrom: q.get("cmp") || null,
    datasetsOnly: q.get("dso") === "1",
    impact: q.get("impact") === "1",
    directOnly: q.get("direct") === "1",
    indirect: q.get("ind") === "1",
    groupJobs: q.get("group") === "1",
    openJobs: q.get("group") === "1" ? [...new Set(q.getAll("open").filter((j) => j.startsWith("job:")))] : [],
    catalogNodes: q.get("cat") === "1" || (q.get("cat") !== "0" && isCatalogId(node)),
  };
}

export const assetHref = (v: ViewState): string => `/asset?${encodeView(v)}`;
export const nodeHref = (node: string, extra: Partial<ViewState> = {}): string =>
  assetHref({ ...defaultView(node), ...extra });
