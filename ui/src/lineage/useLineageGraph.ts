// Loads the graph around an asset: the base answer plus one answer per expansion in the URL.
//
// With job grouping (`group=1`) every answer is asked twice, plain and with `collapseJobs=true`: the
// plain answers are what is drawn, the collapsed ones say which parent job stands for which child job
// (model/hierarchy.ts groups the drawn graph with that, so a parent can be opened on its own). A job
// with children (a Spark application, an Airflow DAG) has no datasets of its own: its lineage is its
// children's, so around such a job the children's answers are loaded too.
import { useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import {
  expand,
  fragmentOf,
  initialState,
  parseExpansionKey,
  union,
  type Direction,
  type Fragment,
  type GraphState,
} from "../model/graph";
import { hierarchyOf } from "../model/hierarchy";
import { baseKey, nodeDepth, takePrefetched } from "./prefetch";

/** At most this many descendant jobs are loaded around a parent job (levels: DAG -> task -> query). */
const MAX_FAMILY = 60;
const FAMILY_LEVELS = 3;

/** The jobs below `jobId` (children, their children, ...), nearest first, as the job details answer them. */
export async function descendants(jobId: string, at: string | null): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set([jobId]);
  let frontier = [jobId];
  for (let level = 0; level < FAMILY_LEVELS && frontier.length && out.length < MAX_FAMILY; level++) {
    const details = await Promise.all(frontier.map((j) => api.node(j, at).catch(() => null)));
    const next: string[] = [];
    for (const d of details) {
      if (d?.type !== "JOB") continue;
      for (const c of d.children ?? []) {
        if (seen.has(c) || out.length + next.length >= MAX_FAMILY) continue;
        seen.add(c);
        next.push(c);
      }
    }
    out.push(...next);
    frontier = next;
  }
  return out;
}

type Around = { nodeId: string; direction: Direction | "both"; depth: number };

async function loadAround(q: Around, at: string | null, grouped: boolean): Promise<Fragment> {
  const ask = (nodeId: string, collapseJobs: boolean) =>
    api.lineage({ nodeId, direction: q.direction, depth: q.depth, at, columns: !collapseJobs, collapseJobs: collapseJobs || undefined }).then(fragmentOf);
  if (!grouped) return ask(q.nodeId, false);
  const family = q.nodeId.startsWith("job:") ? await descendants(q.nodeId, at) : [];
  const ids = [q.nodeId, ...family];
  const [plain, collapsed] = await Promise.all([Promise.all(ids.map((id) => ask(id, false))), Promise.all(ids.map((id) => ask(id, true)))]);
  const g = union(plain);
  return { ...g, hierarchy: hierarchyOf(collapsed) };
}

export function useLineageGraph(root: string, depth: number, at: string | null, expansions: string[], grouped = false) {
  const cache = useRef(new Map<string, Promise<Fragment>>());
  const [state, setState] = useState<GraphState | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const expKey = expansions.join("\n");

  useEffect(() => {
    let cancelled = false;
    const g = grouped ? "g" : "";
    const get = (key: string, load: () => Promise<Fragment>) => {
      let p = cache.current.get(key);
      if (!p) {
        p = load();
        p.catch(() => cache.current.delete(key));
        cache.current.set(key, p);
      }
      return p;
    };
    setLoading(true);
    const key = baseKey(grouped, root, depth, at);
    const loadBase = () => loadAround({ nodeId: root, direction: "both", depth: nodeDepth(depth) }, at, grouped);
    // the answer asked for before React rendered; if that failed (a 401 before the token prompt listened,
    // say), asked again now
    const base = get(key, () => takePrefetched(key)?.catch(loadBase) ?? loadBase());
    const exps = expansions
      .map(parseExpansionKey)
      .filter((e): e is NonNullable<typeof e> => e !== null)
      .map((e) =>
        get(`exp|${g}|${e.direction}|${e.nodeId}|${at ?? ""}`, () =>
          loadAround({ nodeId: e.nodeId, direction: e.direction, depth: e.nodeId.startsWith("job:") ? 1 : 2 }, at, grouped),
        ).then((f) => [e, f] as const),
      );
    Promise.all([base, Promise.allSettled(exps)]).then(
      ([b, settled]) => {
        if (cancelled) return;
        performance.mark("headwater:lineage-loaded");
        let s = initialState(root, b);
        for (const r of settled) if (r.status === "fulfilled") s = expand(s, r.value[0], r.value[1]);
        const failed = settled.find((r) => r.status === "rejected");
        setError(failed && failed.status === "rejected" ? (failed.reason as Error) : null);
        setState(s);
        setLoading(false);
      },
      (e: Error) => {
        if (cancelled) return;
        setError(e);
        setState(null);
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [root, depth, at, expKey, grouped]);

  return { state, error, loading };
}
