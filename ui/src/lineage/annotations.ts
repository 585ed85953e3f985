// Tags and data quality drawn on the lineage graph's dataset nodes, fetched lazily: after the graph has
// painted, a few at a time, once per dataset and moment (GET /api/v1/classify/node, GET /api/v1/quality;
// docs/classify.md). A node subscribes while it is drawn; a failed fetch leaves it without badges.
import { createContext, useCallback, useContext, useSyncExternalStore } from "react";
import { datasetTags, quality, type QualityAnswer, type TagsAnswer } from "../api/impactCheck";

export interface NodeAnnotations {
  tags: TagsAnswer | null;
  quality: QualityAnswer | null;
}

/** The moment the graph is drawn as of (null: now); the annotations are read as of the same moment. */
export const AnnotationsAtContext = createContext<string | null>(null);

const MAX_IN_FLIGHT = 2; // the graph's own requests come first; badges fill in behind them
const START_DELAY_MS = 250;

const cache = new Map<string, NodeAnnotations>();
const requested = new Set<string>();
const listeners = new Map<string, Set<() => void>>();
const queue: Array<() => Promise<void>> = [];
let inFlight = 0;

function pump(): void {
  while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
    const job = queue.shift()!;
    inFlight++;
    void job().finally(() => {
      inFlight--;
      pump();
    });
  }
}

function request(key: string, nodeId: string, at: string | null): void {
  if (requested.has(key)) return;
  requested.add(key);
  queue.push(async () => {
    const [t, q] = await Promise.allSettled([datasetTags(nodeId, at), quality(nodeId, at)]);
    cache.set(key, {
      tags: t.status === "fulfilled" ? t.value : null,
      quality: q.status === "fulfilled" ? q.value : null,
    });
    listeners.get(key)?.forEach((l) => l());
  });
  setTimeout(pump, START_DELAY_MS);
}

/** The tags and data quality of a drawn dataset, once fetched (undefined until then). */
export function useNodeAnnotations(nodeId: string): NodeAnnotations | undefined {
  const at = useContext(AnnotationsAtContext);
  const key = `${at ?? ""}|${nodeId}`;
  const subscribe = useCallback(
    (onChange: () => void) => {
      const set = listeners.get(key) ?? new Set();
      set.add(onChange);
      listeners.set(key, set);
      request(key, nodeId, at);
      return () => {
        set.delete(onChange);
        if (set.size === 0) listeners.delete(key);
      };
    },
    [key, nodeId, at],
  );
  return useSyncExternalStore(subscribe, () => cache.get(key));
}

export interface ColumnTag {
  tag: string;
  /** every source of the tag on this column is inheritance along column lineage */
  inherited: boolean;
  /** where an inherited tag comes from (the declared column), for its tooltip */
  origin: string | null;
  path: string[];
}

/** The tags of one column of a dataset, a declared tag winning over the same tag inherited. */
export function columnTags(tags: TagsAnswer | null | undefined, field: string): ColumnTag[] {
  const out = new Map<string, ColumnTag>();
  for (const c of tags?.columns ?? []) {
    if (c.field !== field) continue;
    const seen = out.get(c.tag);
    if (!seen || (seen.inherited && !c.inherited)) {
      out.set(c.tag, { tag: c.tag, inherited: c.inherited, origin: c.origin, path: c.path });
    }
  }
  return [...out.values()].sort((a, b) => a.tag.localeCompare(b.tag));
}

/** The declared tags of the dataset `nodeId` itself. */
export function datasetTagNames(tags: TagsAnswer | null | undefined, nodeId: string): string[] {
  const own = (tags?.datasets ?? []).filter((d) => d.id === nodeId && d.sources.length > 0);
  return [...new Set(own.map((d) => d.tag))].sort();
}

/** Forget every fetched annotation (tests; a new session). */
export function clearNodeAnnotations(): void {
  cache.clear();
  requested.clear();
}
