// Loads the graph around an asset: the base answer plus one answer per expansion in the URL.
import { useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import {
  expand,
  fragmentOf,
  initialState,
  parseExpansionKey,
  type Fragment,
  type GraphState,
} from "../model/graph";

/** A dataset hop is two node hops (dataset -> job -> dataset). */
export const nodeDepth = (datasetHops: number): number => datasetHops * 2;

export function useLineageGraph(root: string, depth: number, at: string | null, expansions: string[]) {
  const cache = useRef(new Map<string, Promise<Fragment>>());
  const [state, setState] = useState<GraphState | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const expKey = expansions.join("\n");

  useEffect(() => {
    let cancelled = false;
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
    const base = get(`base|${root}|${depth}|${at ?? ""}`, () =>
      api.lineage({ nodeId: root, direction: "both", depth: nodeDepth(depth), at, columns: true }).then(fragmentOf),
    );
    const exps = expansions
      .map(parseExpansionKey)
      .filter((e): e is NonNullable<typeof e> => e !== null)
      .map((e) =>
        get(`exp|${e.direction}|${e.nodeId}|${at ?? ""}`, () =>
          api.lineage({ nodeId: e.nodeId, direction: e.direction, depth: e.nodeId.startsWith("job:") ? 1 : 2, at, columns: true }).then(fragmentOf),
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
  }, [root, depth, at, expKey]);

  return { state, error, loading };
}
