// "What if this column were dropped?": the impact check of dropping the column the impact panel is about —
// what would break (a value flows from it), what would warn (rows depend on it), with owners and paths.
import { useEffect, useState } from "react";
import { checkDrop, type AffectedItem, type ImpactReport } from "../api/impactCheck";
import { PathCell, shortNodeName } from "./ImpactPanel";

const SHOWN = 50;

function what(it: AffectedItem): string {
  if (it.type === "RESTRICTED") return "restricted";
  return it.field ? `${shortNodeName(`dataset:${it.namespace}:${it.name}`)}.${it.field}` : shortNodeName(it.id);
}

export function WhatIfDrop({ target, at }: { target: string; at?: string | null }) {
  const [asked, setAsked] = useState(false);
  const [report, setReport] = useState<ImpactReport | null>(null);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    setReport(null);
    setError(null);
    if (!asked) return;
    const ctl = new AbortController();
    checkDrop(target, at, ctl.signal).then(setReport, (e: Error) => {
      if (e.name !== "AbortError") setError(e);
    });
    return () => ctl.abort();
  }, [asked, target, at]);
  useEffect(() => setAsked(false), [target]);
  if (!asked) {
    return (
      <div className="whatif">
        <button className="tb-btn" data-testid="whatif-drop" onClick={() => setAsked(true)}>
          What if this column were dropped?
        </button>
      </div>
    );
  }
  if (error) return <div className="whatif error">Impact check failed: {error.message}</div>;
  if (!report) return <div className="whatif muted">Checking…</div>;
  const s = report.summary;
  const items = report.items.filter((i) => i.severity !== "info");
  return (
    <div className="whatif" data-testid="whatif-result" data-severity={report.severity}>
      <b>Dropping it: </b>
      {report.severity === "none" ? (
        <span>nothing downstream breaks.</span>
      ) : (
        <span>
          <span className={`sev sev-${report.severity}`}>{report.severity}</span> — {s.breaking} breaking, {s.warning} warnings
          {report.published.length > 0 && <>, {report.published.length} published assets</>}
        </span>
      )}
      {items.length > 0 && (
        <table className="table whatif-table" data-testid="whatif-table">
          <thead>
            <tr>
              <th>Severity</th>
              <th>What</th>
              <th>Owners</th>
              <th>Path</th>
            </tr>
          </thead>
          <tbody>
            {items.slice(0, SHOWN).map((it) => (
              <tr key={it.id} data-testid="whatif-row" data-id={it.id}>
                <td>
                  <span className={`sev sev-${it.severity}`}>{it.severity}</span>
                </td>
                <td className="mono">
                  {what(it)}
                  {it.published && <span className="pill"> published</span>}
                </td>
                <td>{it.owners.join(", ")}</td>
                <PathCell path={it.path} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {items.length > SHOWN && <div className="muted small">… and {items.length - SHOWN} more</div>}
    </div>
  );
}
