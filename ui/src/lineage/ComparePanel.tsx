import type { CompareAnswer } from "../api/types";
import { formatTime } from "../lib/format";
import { addedColumnChanges, typeFamily } from "../model/compare";
import { splitName } from "../model/nodeid";

/**
 * What changed between the two moments, counted as people count it: only what is there (no "−0
 * nodes"), columns retyped only when their type family changed (a producer spelling `bigint` where
 * another wrote `integer` is no change), and a few changes named outright.
 */
export function CompareBar({ answer, error }: { answer: CompareAnswer | null; error: Error | null }) {
  if (error) return <div className="banner banner-error">Compare failed: {error.message}</div>;
  if (!answer) return <div className="banner">Comparing…</div>;
  const retyped = answer.columns.changed.filter((c) => typeFamily(c.fromType) !== typeFamily(c.toType));
  const dsName = (id: string) => splitName(id.replace(/^dataset:[^:]*:/, "")).title;
  const parts: { cls: string; text: string; testId: string }[] = [];
  const add = (count: number, cls: string, text: string, testId: string) => count > 0 && parts.push({ cls, text: `${text}`, testId });
  add(answer.nodes.added.length, "added", `+${answer.nodes.added.length} nodes`, "cmp-nodes-added");
  add(answer.nodes.removed.length, "removed", `−${answer.nodes.removed.length} nodes`, "cmp-nodes-removed");
  add(answer.edges.added.length, "added", `+${answer.edges.added.length} edges`, "cmp-edges-added");
  add(answer.edges.removed.length, "removed", `−${answer.edges.removed.length} edges`, "cmp-edges-removed");
  const addedN = addedColumnChanges(answer).length;
  add(addedN, "added", `+${addedN} ${addedN === 1 ? "column" : "columns"}`, "cmp-cols-added");
  add(answer.columns.removed.length, "removed", `−${answer.columns.removed.length} columns`, "cmp-cols-removed");
  add(retyped.length, "changed", `~${retyped.length} retyped`, "cmp-cols-retyped");
  const added = addedColumnChanges(answer);
  const total =
    answer.nodes.added.length + answer.nodes.removed.length + answer.edges.added.length + answer.edges.removed.length +
    added.length + answer.columns.removed.length + retyped.length;
  const named = [
    ...added.map((g) => `+ ${g[0].field} (${g.map((c) => dsName(c.dataset)).join(" → ")})`),
    ...answer.columns.removed.map((c) => `− ${c.field} (${dsName(c.dataset)})`),
    ...retyped.map((c) => `~ ${c.field}: ${c.fromType ?? "?"} → ${c.toType ?? "?"}`),
  ];
  return (
    <div className="banner banner-compare" data-testid="compare-bar" data-changes={total}>
      <b>{total === 0 ? "No changes" : `${total} ${total === 1 ? "change" : "changes"}`}</b> from {formatTime(answer.from)} to {formatTime(answer.to)}
      {parts.map((p) => (
        <span key={p.testId} className={`legend ${p.cls}`} data-testid={p.testId}>
          {p.text}
        </span>
      ))}
      {named.length > 0 && named.length <= 4 && (
        <span className="muted" data-testid="cmp-named">
          : {named.join(", ")}
        </span>
      )}
    </div>
  );
}
