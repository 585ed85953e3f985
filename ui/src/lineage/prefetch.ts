// The lineage answer of an asset page asked for as soon as the app's code runs, before React renders: the
// request is in flight while React builds the page, and useLineageGraph takes the answer over (same key,
// same request) instead of asking again. Only the plain first answer of a lineage tab is prefetched.
import { api } from "../api/client";
import { fragmentOf, type Fragment } from "../model/graph";
import { datasetOfField, isField } from "../model/nodeid";
import { decodeView } from "../model/urlState";

const pending = new Map<string, Promise<Fragment>>();

/** A dataset hop is two node hops (dataset -> job -> dataset). */
export const nodeDepth = (datasetHops: number): number => datasetHops * 2;

export const baseKey = (grouped: boolean, root: string, depth: number, at: string | null): string =>
  `base|${grouped ? "g" : ""}|${root}|${depth}|${at ?? ""}`;

/** The plain lineage request of the first answer (what useLineageGraph asks for a root). */
export const baseRequest = (root: string, depth: number, at: string | null) =>
  api.lineage({ nodeId: root, direction: "both", depth: nodeDepth(depth), at, columns: true }).then(fragmentOf);

export function prefetchFromLocation(path: string, search: string): void {
  if (path !== "/asset") return;
  const view = decodeView(search);
  if (!view || view.tab !== "lineage" || view.groupJobs || view.compareFrom) return;
  const root = isField(view.node) ? datasetOfField(view.node) : view.node;
  const p = baseRequest(root, view.depth, view.at);
  p.catch(() => undefined); // a failure is seen (and retried) by the page
  pending.set(baseKey(false, root, view.depth, view.at), p);
}

/** The prefetched answer for `key`, once (null when there is none). */
export function takePrefetched(key: string): Promise<Fragment> | null {
  const p = pending.get(key) ?? null;
  pending.delete(key);
  return p;
}
