// The lineage toolbar: depth, view switches, time (as of / compare, in the browser's zone or UTC)
// and impact. When the toolbar is narrower than its one-row width, the view switches and compare
// collapse into a "View" menu instead of wrapping onto a second row.
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { api } from "../api/client";
import { MenuIcon } from "../components/Icons";
import { formatTime, parseTimeInput, timeInputValue, zoneLabel, zoneName } from "../lib/format";
import { setUtc, useUtcSetting } from "../lib/timezone";
import { useAsync } from "../lib/useAsync";
import type { ViewState } from "../model/urlState";
import { choiceLabel, comparePick, pickedChoices, type VersionChoice, versionChoices } from "../model/versionPicker";

/** Compare two of the node's versions: two pickers fed by its history (no time typed by hand). */
/** A labelled on/off switch of the toolbar. */
function Switch({
  label,
  title,
  checked,
  onChange,
  testId,
}: {
  label: string;
  title?: string;
  checked: boolean;
  onChange: (on: boolean) => void;
  testId: string;
}) {
  return (
    <label className="tb-item switch" title={title}>
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      <span className="switch-track" />
      <span>{label}</span>
    </label>
  );
}

function VersionPicker({
  view,
  setView,
  utc,
  choices,
}: {
  view: ViewState;
  setView: (p: Partial<ViewState>) => void;
  utc: boolean;
  choices: VersionChoice[];
}) {
  const [from, to] = pickedChoices(view.compareFrom, view.at, choices);
  const pick = (a: string, b: string) => {
    const next = a && b ? comparePick(a, b, choices) : null;
    if (next) setView(next);
  };
  const options = choices.map((c) => (
    <option key={c.iso} value={c.iso}>
      {choiceLabel(c, formatTime(c.iso, utc))}
    </option>
  ));
  return (
    <span className="tb-versions" data-testid="compare-versions">
      <select
        value={from}
        onChange={(e) => pick(e.target.value, to || (choices.find((c) => c.current)?.iso ?? ""))}
        aria-label="Compare from version"
        data-testid="compare-from-version"
      >
        <option value="">version…</option>
        {options}
      </select>
      <span>→</span>
      <select
        value={to}
        onChange={(e) => pick(from || (choices.find((c) => c.iso !== e.target.value)?.iso ?? ""), e.target.value)}
        aria-label="Compare to version"
        data-testid="compare-to-version"
      >
        <option value="">version…</option>
        {options}
      </select>
    </span>
  );
}

function TimeInput({
  value,
  utc,
  onApply,
  testId,
  label,
}: {
  value: string | null;
  utc: boolean;
  onApply: (iso: string | null) => void;
  testId: string;
  label: string;
}) {
  const [text, setText] = useState(timeInputValue(value, utc));
  const [bad, setBad] = useState(false);
  useEffect(() => {
    setText(timeInputValue(value, utc));
    setBad(false);
  }, [value, utc]);
  const zone = zoneLabel(utc);
  const where = utc ? "UTC (switched to UTC)" : `${zoneName(false)}, your browser's zone (${zone})`;
  return (
    <>
      <input
        type="text"
        className={`tb-time${bad ? " is-bad" : ""}`}
        value={text}
        placeholder="YYYY-MM-DD HH:MM:SS"
        spellCheck={false}
        autoComplete="off"
        aria-label={`${label} (${where}; or paste an ISO timestamp)`}
        aria-invalid={bad}
        title={`${label}: a time in ${where}, or an ISO timestamp with its zone (2026-11-22T05:10:10Z)`}
        onChange={(e) => {
          setText(e.target.value);
          setBad(false);
        }}
        onPaste={(e) => {
          // a pasted ISO timestamp with a zone is shown in the input's zone at once
          const pasted = e.clipboardData.getData("text");
          const iso = parseTimeInput(pasted, utc);
          if (iso && /(?:z|[+-]\d\d(?::?\d\d)?)\s*$/i.test(pasted.trim())) {
            e.preventDefault();
            setText(timeInputValue(iso, utc));
            onApply(iso);
          }
        }}
        onBlur={() => setBad(text.trim() !== "" && parseTimeInput(text, utc) === null)}
        data-testid={testId}
        data-iso={parseTimeInput(text, utc) ?? ""}
      />
      <span className="tb-zone" data-testid={`${testId}-zone`} title={where}>
        {zone}
      </span>
    </>
  );
}

export function Toolbar({
  view,
  setView,
  allColumnsOpen,
  toggleAllColumns,
  canImpact,
  catalogSwitch,
}: {
  view: ViewState;
  setView: (p: Partial<ViewState>) => void;
  allColumnsOpen: boolean;
  toggleAllColumns: () => void;
  canImpact: boolean;
  /** the graph has catalog nodes (drawn or folded): offer the "Catalog nodes" switch */
  catalogSwitch: boolean;
}) {
  const utc = useUtcSetting();
  const bar = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [menuOpen, setMenuOpen] = useState(false);
  const [atText, setAtText] = useState<string | null>(null);
  // compare picks two of the node's versions; typing a time is one click away
  const history = useAsync((sig) => api.history(view.node, sig), [view.node]);
  const choices = versionChoices(history.data?.versions ?? []);
  const [typed, setTyped] = useState(false);
  const picking = choices.length >= 2 && !typed;
  // one row or a menu: the toolbar is measured laid out in full (fullWidth, its scroll width);
  // narrower than that, the view switches and compare go into the "View" menu
  const [fullWidth, setFullWidth] = useState(0);
  const narrow = fullWidth > 0 && width < fullWidth;
  useEffect(() => {
    const el = bar.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // the catalog switch comes or goes with the graph: measure the one-row width again (before the
  // measuring effect below, which runs after it in the same commit)
  useLayoutEffect(() => setFullWidth(0), [catalogSwitch]);
  useLayoutEffect(() => {
    const el = bar.current;
    if (!el || narrow) return;
    // laid out in full: remember how wide that is (content changes, such as a Now button, re-measure)
    if (el.scrollWidth > el.clientWidth) setFullWidth(el.scrollWidth + 1);
    else if (fullWidth !== 0 && fullWidth > el.clientWidth) setFullWidth(0);
  }, [narrow, fullWidth, width, view.at, view.compareFrom, utc, atText, picking, catalogSwitch]);

  const applyAt = (form: HTMLFormElement, key: "at" | "compareFrom") => {
    const input = form.querySelector("input.tb-time") as HTMLInputElement | null;
    const text = input?.value ?? "";
    const iso = parseTimeInput(text, utc);
    if (text.trim() && !iso) {
      input?.setAttribute("aria-invalid", "true");
      input?.classList.add("is-bad");
      setAtText(text);
      return;
    }
    setAtText(null);
    setView({ [key]: iso });
  };

  const switches = (
    <>
      <Switch
        label="Datasets only"
        checked={view.datasetsOnly}
        onChange={(on) => setView({ datasetsOnly: on })}
        testId="toggle-datasets-only"
      />
      <Switch
        label="Group jobs"
        title="Job level: draw child jobs (a Spark application's actions, an Airflow DAG's tasks) as their parent job; open a parent on its node to see its children"
        checked={view.groupJobs}
        onChange={(on) => setView({ groupJobs: on, openJobs: [] })}
        testId="toggle-group-jobs"
      />
      {catalogSwitch && (
        <Switch
          label="Catalog nodes"
          title="Draw the catalog's nodes (publishing, the published dataset, subscriptions); off: they are summed up as a chip on the dataset they hang from"
          checked={view.catalogNodes}
          onChange={(on) => setView({ catalogNodes: on })}
          testId="toggle-catalog-nodes"
        />
      )}
      <button className="tb-btn" onClick={toggleAllColumns} data-testid="toggle-all-columns">
        {allColumnsOpen ? "Hide columns" : "All columns"}
      </button>
      <Switch
        label="Direct only"
        title="Column edges: show only DIRECT dependencies (the value flows), not INDIRECT ones (join, filter, group-by keys)"
        checked={view.directOnly}
        onChange={(on) => setView({ directOnly: on })}
        testId="toggle-direct-only"
      />
      <span className="tb-legend" data-testid="edge-legend" aria-label="Column edges: solid = direct, dashed = indirect">
        <svg width="16" height="8" aria-hidden="true">
          <line x1="0" y1="4" x2="16" y2="4" className="legend-direct" />
        </svg>
        direct
        <svg width="16" height="8" aria-hidden="true">
          <line x1="0" y1="4" x2="16" y2="4" className="legend-indirect" />
        </svg>
        indirect
      </span>
    </>
  );
  const compare = (
    <form
      className="tb-item"
      onSubmit={(e) => {
        e.preventDefault();
        applyAt(e.currentTarget, "compareFrom");
      }}
    >
      <span>Compare</span>
      {picking ? (
        <>
          <VersionPicker view={view} setView={setView} utc={utc} choices={choices} />
          <button className="tb-btn" type="button" onClick={() => setTyped(true)} title="Type a time instead" data-testid="compare-type-time">
            time…
          </button>
        </>
      ) : (
        <>
          <TimeInput value={view.compareFrom} utc={utc} onApply={(iso) => setView({ compareFrom: iso })} testId="compare-input" label="Compare with" />
          <button className="tb-btn" type="submit" data-testid="compare-apply">
            Compare
          </button>
        </>
      )}
      {view.compareFrom && (
        <button className="tb-btn" type="button" onClick={() => setView({ compareFrom: null })} data-testid="compare-exit">
          Exit
        </button>
      )}
    </form>
  );

  return (
    <div className={`toolbar${narrow ? " is-narrow" : ""}`} ref={bar} data-testid="lineage-toolbar" data-full-width={fullWidth}>
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
      {!narrow && switches}
      <span className="tb-sep" />
      <form
        className={`tb-item${view.at ? " tb-asof-on" : ""}`}
        onSubmit={(e) => {
          e.preventDefault();
          applyAt(e.currentTarget, "at");
        }}
      >
        <span>As of</span>
        <TimeInput value={view.at} utc={utc} onApply={(iso) => setView({ at: iso })} testId="at-input" label="As of" />
        <button className="tb-btn" type="submit" data-testid="at-apply">
          Go
        </button>
        {view.at && (
          <button className="tb-btn" type="button" onClick={() => setView({ at: null, compareFrom: null })} data-testid="at-now">
            Now
          </button>
        )}
      </form>
      <Switch
        label="UTC"
        title="Show and type times in UTC instead of your browser's zone"
        checked={utc}
        onChange={setUtc}
        testId="toggle-utc"
      />
      {!narrow && compare}
      {atText !== null && (
        <span className="error small" role="alert" data-testid="time-error">
          Not a time: "{atText}" — type YYYY-MM-DD HH:MM:SS or paste an ISO timestamp
        </span>
      )}
      <span className="tb-spacer" />
      {narrow && (
        <div
          className="tb-menu"
          onKeyDown={(e) => {
            if (e.key === "Escape" && menuOpen) {
              e.stopPropagation();
              e.preventDefault();
              setMenuOpen(false);
            }
          }}
        >
          <button
            className={`tb-btn${menuOpen ? " on" : ""}`}
            aria-haspopup="true"
            aria-expanded={menuOpen}
            onClick={() => setMenuOpen(!menuOpen)}
            data-testid="toolbar-menu"
          >
            <MenuIcon /> View
          </button>
          {menuOpen && (
            <div className="tb-menu-body" data-testid="toolbar-menu-body">
              {switches}
              {compare}
            </div>
          )}
        </div>
      )}
      <button
        className={`tb-btn primary${view.impact ? " on" : ""}`}
        disabled={!canImpact}
        onClick={() => setView({ impact: !view.impact })}
        data-testid="impact-button"
        aria-pressed={view.impact}
        title="Everything downstream of the asset, or of the selected column"
      >
        Impact analysis
      </button>
    </div>
  );
}
