import { useEffect, useState } from "react";
import { ClockIcon } from "../components/Icons";
import { isoToLocalInput, localInputToIso } from "../lib/format";
import type { ViewState } from "../model/urlState";

export function Toolbar({
  view,
  setView,
  allColumnsOpen,
  toggleAllColumns,
  canImpact,
}: {
  view: ViewState;
  setView: (p: Partial<ViewState>) => void;
  allColumnsOpen: boolean;
  toggleAllColumns: () => void;
  canImpact: boolean;
}) {
  const [at, setAt] = useState(isoToLocalInput(view.at));
  const [from, setFrom] = useState(isoToLocalInput(view.compareFrom));
  useEffect(() => setAt(isoToLocalInput(view.at)), [view.at]);
  useEffect(() => setFrom(isoToLocalInput(view.compareFrom)), [view.compareFrom]);
  return (
    <div className="toolbar" data-testid="lineage-toolbar">
      <label className="tb-item">
        <span>Depth</span>
        <select value={view.depth} onChange={(e) => setView({ depth: Number(e.target.value) })} data-testid="depth-select">
          {[1, 2, 3, 4, 5, 6, 8, 10].map((d) => (
            <option key={d} value={d}>
              {d}
            </option>
          ))}
        </select>
      </label>
      <label className="tb-item switch">
        <input
          type="checkbox"
          checked={view.datasetsOnly}
          onChange={(e) => setView({ datasetsOnly: e.target.checked })}
          data-testid="toggle-datasets-only"
        />
        <span className="switch-track" />
        <span>Datasets only</span>
      </label>
      <button className="tb-btn" onClick={toggleAllColumns} data-testid="toggle-all-columns">
        {allColumnsOpen ? "Hide columns" : "Show all columns"}
      </button>
      <span className="tb-sep" />
      <form
        className="tb-item"
        onSubmit={(e) => {
          e.preventDefault();
          setView({ at: localInputToIso(at) });
        }}
      >
        <ClockIcon />
        <span>As of</span>
        <input
          type="datetime-local"
          step={1}
          value={at}
          onChange={(e) => setAt(e.target.value)}
          data-testid="at-input"
          title="UTC"
        />
        <button className="tb-btn" type="submit" data-testid="at-apply">
          Go
        </button>
        {view.at && (
          <button className="tb-btn" type="button" onClick={() => setView({ at: null, compareFrom: null })} data-testid="at-now">
            Now
          </button>
        )}
      </form>
      <form
        className="tb-item"
        onSubmit={(e) => {
          e.preventDefault();
          setView({ compareFrom: localInputToIso(from) });
        }}
      >
        <span>Compare with</span>
        <input type="datetime-local" step={1} value={from} onChange={(e) => setFrom(e.target.value)} data-testid="compare-input" title="UTC" />
        <button className="tb-btn" type="submit" data-testid="compare-apply">
          Compare
        </button>
        {view.compareFrom && (
          <button className="tb-btn" type="button" onClick={() => setView({ compareFrom: null })}>
            Exit
          </button>
        )}
      </form>
      <span className="tb-spacer" />
      <button
        className={`tb-btn primary${view.impact ? " on" : ""}`}
        disabled={!canImpact}
        onClick={() => setView({ impact: !view.impact })}
        data-testid="impact-button"
        title="Everything downstream of the asset, or of the selected column"
      >
        Impact analysis
      </button>
    </div>
  );
}
