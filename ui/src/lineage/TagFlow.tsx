// "Where does this tag flow": every column carrying a tag across the graph (declared, or inherited with the
// column it comes from) and where it stopped and why, from GET /api/v1/classify/report (docs/classify.md).
import { tagReport } from "../api/impactCheck";
import { useAsync } from "../lib/useAsync";
import { shortNodeName } from "./ImpactPanel";

export function TagFlow({ tag, at, onPick }: { tag: string; at: string | null; onPick?: (id: string) => void }) {
  const r = useAsync((s) => tagReport(tag, at, s), [tag, at]);
  if (r.error) return <div className="error">{r.error.message}</div>;
  if (!r.data) return <div className="muted small">Loading where {tag} flows…</div>;
  const cols = r.data.columns;
  return (
    <div className="tag-flow" data-testid="tag-flow" data-tag={tag}>
      <div className="small">
        <b>{tag}</b> on {cols.length} column{cols.length === 1 ? "" : "s"}
        {r.data.truncated ? " (truncated)" : ""}
      </div>
      <ul className="path-list">
        {cols.map((c) => (
          <li key={c.id} data-testid="tag-flow-column" data-id={c.id} data-inherited={c.inherited ? "true" : "false"}>
            <button className="link-btn mono" onClick={() => onPick?.(c.dataset)} title={c.id}>
              {shortNodeName(c.id)}
            </button>
            {c.inherited && c.origin ? (
              <span className="muted small"> ← {c.path.map(shortNodeName).join(" → ")}</span>
            ) : (
              <span className="muted small"> declared ({c.sources.map((s) => s.kind).join(", ")})</span>
            )}
          </li>
        ))}
        {r.data.stops.map((s) => (
          <li key={`stop:${s.column}:${s.job}`} data-testid="tag-flow-stop" data-id={s.column}>
            <span className="mono">{shortNodeName(s.column)}</span>{" "}
            <span className="pill pill-mask">stopped: {s.reason}</span>
            <span className="muted small"> by {shortNodeName(s.job)} ({s.transformation})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
