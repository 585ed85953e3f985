// The catalog's own lineage folded onto the dataset it hangs from.
//
// Publishing and subscribing are drawn by the catalog as OpenLineage lineage in namespaces
// `headwater-catalog://<domain>` (src/headwater/catalog/lineage.py): a job `publish/<project>/<asset>`
// writing the published node, a job `subscription/<id>` writing a subscription's target. By default the
// lineage view does not draw these nodes: they are folded away with the machinery of "Datasets only"
// (graph.ts foldNodes) and summed up as a chip on the drawn node they hang from ("published ·
// 1 subscription"). The toolbar's "Catalog nodes" switch (`cat=1`) draws them.
import type { GraphNode } from "../api/types";
import { foldNodes, type Graph } from "./graph";

export const CATALOG_SCHEME = "headwater-catalog://";

/** Whether a node id (dataset, job or column) is one of the catalog's nodes. */
export function isCatalogId(id: string): boolean {
  const colon = id.indexOf(":");
  return colon > 0 && id.slice(colon + 1).startsWith(CATALOG_SCHEME);
}

const isCatalogNode = (n: GraphNode): boolean => n.namespace.startsWith(CATALOG_SCHEME) || isCatalogId(n.id);

/** The chip on a drawn node: the folded catalog nodes hanging from it, and what they say. */
export interface CatalogChip {
  /** the folded catalog nodes (graph order) */
  nodes: string[];
  /** publishing jobs among them (`publish/...`) */
  publications: number;
  /** subscription jobs among them (`subscription/...`) */
  subscriptions: number;
  label: string;
}

function chipOf(ids: string[], byId: Map<string, GraphNode>): CatalogChip {
  let publications = 0;
  let subscriptions = 0;
  for (const id of ids) {
    const n = byId.get(id);
    if (!n || !id.startsWith("job:")) continue;
    if (n.name.startsWith("publish/")) publications++;
    else if (n.name.startsWith("subscription/")) subscriptions++;
  }
  const parts: string[] = [];
  if (publications) parts.push("published");
  if (subscriptions) parts.push(`${subscriptions} subscription${subscriptions === 1 ? "" : "s"}`);
  const label = parts.length ? parts.join(" · ") : `${ids.length} catalog node${ids.length === 1 ? "" : "s"}`;
  return { nodes: ids, publications, subscriptions, label };
}

/**
 * `graph` without the catalog's nodes (DERIVED edges where they stood between drawn nodes), and the
 * chip of each drawn node they hang from. A graph without catalog nodes comes back as it is.
 */
export function foldCatalog(graph: Graph): { graph: Graph; chips: Map<string, CatalogChip> } {
  const folded = foldNodes(graph, isCatalogNode);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const chips = new Map<string, CatalogChip>();
  for (const [anchor, ids] of folded.hanging) chips.set(anchor, chipOf(ids, byId));
  return { graph: folded.graph, chips };
}
