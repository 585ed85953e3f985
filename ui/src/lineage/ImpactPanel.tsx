import type { ImpactAnswer } from "../api/types";
import { CloseIcon, DownloadIcon } from "../components/Icons";
import { impactCsv, sortImpact } from "../model/impact";

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function ImpactPanel({
  target,
  answer,
  error,
  onClose,
  onPick,
}: {
  target: string;
  answer: ImpactAnswer | null;
  error: Error | null;
  onClose: () => void;
  onPick: (id: string) => void;
}) {
  const items = answer ? sortImpact(answer.items) : [];
  return (
    <section className="impact" data-testid="impact-panel">
      <header className="impact-head">
        <h3>
          Impact of <span className="mono">{target}</span>
        </h3>
        {answer && (
          <span className="impact-summary" data-testid="impact-summary">
            <b>{answer.summary.datasets}</b> datasets · <b>{answer.summary.fields}</b> columns · <b>{answer.summary.jobs}</b> jobs
            {answer.truncated && <span className="warn"> · truncated</span>}
          </span>
        )}
        <span className="tb-spacer" />
        <button
          className="tb-btn"
          disabled={!answer}
          data-testid="impact-csv"
          onClick={() => answer && download(`impact-${target.replace(/[^\w.-]+/g, "_")}.csv`, impactCsv(items))}
        >
          <DownloadIcon /> Export CSV
        </button>
        <button className="icon-btn" onClick={onClose} aria-label="Close impact analysis">
          <CloseIcon />
        </button>
      </header>
      {error && <div className="error">Impact analysis failed: {error.message}</div>}
      {!answer && !error && <div className="muted pad">Computing impact…</div>}
      {answer && items.length === 0 && <div className="empty">Nothing downstream.</div>}
      {answer && items.length > 0 && (
        <div className="impact-table-wrap">
          <table className="table impact-table" data-testid="impact-table">
            <thead>
              <tr>
                <th>Depth</th>
                <th>Type</th>
                <th>Name</th>
                <th>Column</th>
                <th>Path</th>
              </tr>
            </thead>
            <tbody>
              {items.map((it) => (
                <tr key={it.id} data-testid="impact-row" data-id={it.id} onClick={() => onPick(it.id)}>
                  <td>{it.depth}</td>
                  <td>
                    <span className={`pill pill-${it.type.toLowerCase()}`}>{it.type.toLowerCase()}</span>
                  </td>
                  <td className="mono">{it.name}</td>
                  <td className="mono">{it.field ?? ""}</td>
                  <td className="path">{it.path.map((p) => p.split(":").slice(-1)[0]).join(" → ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
