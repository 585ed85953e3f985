// A dataset's "quality" tab in the details pane: its data-quality status and latest results, the failing
// datasets upstream with the path to each, and its columns' tags (inherited ones marked, with their origin).
import { datasetTags, quality } from "../api/impactCheck";
import { useState } from "react";
import { useAsync } from "../lib/useAsync";
import { shortNodeName } from "./ImpactPanel";
import { TagFlow } from "./TagFlow";

/** A tag that shows, when clicked, where it flows across the graph. */
function TagButton({ tag, open, onToggle }: { tag: string; open: boolean; onToggle: (tag: string) => void }) {
  return (
    <button
      className={`pill tag-btn${open ? " on" : ""}`}
      data-testid="tag-flow-toggle"
      data-tag={tag}
      aria-expanded={open}
      title={`Where does ${tag} flow?`}
      onClick={() => onToggle(tag)}
    >
      {tag}
    </button>
  );
}

export function QualityTab({ nodeId, at }: { nodeId: string; at: string | null }) {
  const q = useAsync((s) => quality(nodeId, at, s), [nodeId, at]);
  const tags = useAsync((s) => datasetTags(nodeId, at, s), [nodeId, at]);
  const [flow, setFlow] = useState<string | null>(null);
  const toggle = (t: string) => setFlow((f) => (f === t ? null : t));
  return (
    <div className="quality-tab" data-testid="quality-tab">
      {q.error && <div className="error">{q.error.message}</div>}
      {q.data && (
        <>
          <div data-testid="quality-status" data-status={q.data.quality.status}>
            Data quality: <b className={`dq dq-${q.data.quality.status}`}>{q.data.quality.status}</b>
            {q.data.flagged && <span className="pill warn" data-testid="quality-flagged"> upstream issue</span>}
          </div>
          {q.data.upstream.length > 0 && (
            <ul className="path-list" data-testid="quality-upstream">
              {q.data.upstream.map((u) => (
                <li key={u.cause} data-testid="quality-cause" data-id={u.cause}>
                  <b>{shortNodeName(u.cause)}</b> ({u.status}): {u.reasons.join("; ")}
                  <div className="muted small">{u.path.map(shortNodeName).join(" → ")}</div>
                </li>
              ))}
            </ul>
          )}
          {q.data.quality.assertions.length > 0 && (
            <table className="table" data-testid="quality-assertions">
              <thead>
                <tr>
                  <th>Check</th>
                  <th>Column</th>
                  <th>Result</th>
                  <th>Expected / actual</th>
                </tr>
              </thead>
              <tbody>
                {q.data.quality.assertions.map((a) => (
                  <tr key={`${a.source}:${a.name}:${a.column ?? ""}`} data-testid="quality-assertion">
                    <td className="mono">{a.name}</td>
                    <td className="mono">{a.column ?? ""}</td>
                    <td>{a.success === null ? "skipped" : a.success ? "pass" : `fail${a.severity ? ` (${a.severity})` : ""}`}</td>
                    <td className="mono">{a.expected || a.actual ? `${a.expected ?? ""} / ${a.actual ?? ""}` : ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {tags.data && tags.data.columns.length + tags.data.datasets.length > 0 && (
        <div data-testid="quality-tags">
          <h4>Tags</h4>
          <ul className="path-list">
            {tags.data.datasets.filter((d) => d.sources.length > 0).map((d) => (
              <li key={`ds:${d.tag}`} data-testid="tag-dataset">
                <TagButton tag={d.tag} open={flow === d.tag} onToggle={toggle} /> on the dataset
              </li>
            ))}
            {tags.data.columns.map((c) => (
              <li key={`${c.field}:${c.tag}`} data-testid="tag-column" data-inherited={c.inherited ? "true" : "false"}>
                <span className="mono">{c.field}</span> <TagButton tag={c.tag} open={flow === c.tag} onToggle={toggle} />
                {c.inherited && c.origin && <span className="muted small"> inherited from {shortNodeName(c.origin)}</span>}
              </li>
            ))}
          </ul>
          {flow && <TagFlow tag={flow} at={at} />}
        </div>
      )}
    </div>
  );
}
