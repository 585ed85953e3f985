// Asking React Flow to measure nodes again (their boxes and handles), as its `useUpdateNodeInternals` does,
// but finding each node's element with its id escaped: lineage ids hold quotes, brackets and anything
// else a name may hold, which break the unescaped selector React Flow's hook builds.
import type { useStoreApi } from "@xyflow/react";
import type { LineageFlowNode } from "./types";

type Store = ReturnType<typeof useStoreApi<LineageFlowNode>>;

/** Measures the drawn nodes of `ids` again on the next frame (nodes not in the DOM are measured when drawn). */
export function measureNodes(store: Store, ids: string[]): void {
  const { domNode } = store.getState();
  const updates = new Map<string, { id: string; nodeElement: HTMLDivElement; force: boolean }>();
  for (const id of ids) {
    const el = domNode?.querySelector<HTMLDivElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
    if (el) updates.set(id, { id, nodeElement: el, force: true });
  }
  if (updates.size) requestAnimationFrame(() => store.getState().updateNodeInternals(updates));
}
