import { useMemo, useState, type PointerEvent as ReactPointerEvent } from "react";
import type { ImpactAnswer, ImpactType } from "../api/types";
import { CloseIcon, DownloadIcon } from "../components/Icons";
import { impactCsv, sortImpact } from "../model/impact";
import { jobLabel } from "../model/names";
import { parseNodeId, splitName } from "../model/nodeid";
import { WhatIfDrop } from "./WhatIfDrop";

/** The distinguishing part of a node id on an impact path: the file or table, the job's action, the column. */
export function shortNodeName(id: string): string {
  try {
    const r = parseNodeId(id);
    if (r.type === "job") return jobLabel(r.name).title;
    const ds = splitName(r.name).title;
    return r.type === "datasetField" ? `${ds}.${r.field}` : ds;
  } catch {
    return id;
  }
}

/** An impact path as a table cell: the distinguishing end of each node, the whole ids on hover (the impact and what-if tables). */
export function PathCell({ path }: { path: string[] }) {
  return (
    <td className="path" title={path.join(" → ")}>
      {path.map(shortNodeName).join(" → ")}
    </td>
  );
}

/** The panel's height range (px) when dragged; folded, only its header shows. */
const MIN_HEIGHT = 120;
const MAX_SHARE = 0.7;

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
  onOpen,
  height,
  onResize,
  folded,
  onFold,
}: {
  target: string;
  answer: ImpactAnswer | null;
  error: Error | null;
  onClose: () => void;
  onPick: (id: string) => void;
  /** open an asset's page */
  onOpen: (id: string) => void;
  /** the panel's height (dragged by its top edge), and whether it is folded to its header */
  height: number;
  onResize: (height: number) => void;
  folded: boolean;
  onFold: (folded: boolean) => void;
}) {
  const all = useMemo(() => (answer ? sortImpact(answer.items) : []), [answer]);
  const [maxDepth, setMaxDepth] = useState(0); // 0 = any depth
  const [type, setType] = useState<ImpactType | "">("");
  const [namespace, setNamespace] = useState("");
  const depths = useMemo(() => [...new Set(all.map((i) => i.depth))].sort((a, b) => a - b), [all]);
  const namespaces = useMemo(() => [...new Set(all.map((i) => i.namespace))].sort(), [all]);
  const items = all.filter(
    (i) => (maxDepth === 0 || i.depth <= maxDepth) && (type === "" || i.type === type) && (namespace === "" || i.namespace === namespace),
  );
  const startDrag = (e: ReactPointerEvent) => {
    e.preventDefault();
    const y0 = e.clientY;
    const h0 = height;
    const max = Math.max(MIN_HEIGHT, window.innerHeight * MAX_SHARE);
    const move = (ev: PointerEvent) => onResize(Math.min(max, Math.max(MIN_HEIGHT, h0 + (y0 - ev.clientY))));
    const up = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  };
  return (
    <section
      className={`impact${folded ? " impact-folded" : ""}`}
      data-testid="impact-panel"
      data-folded={folded ? "true" : "false"}
      style={folded ? undefined : { height }}
    >
      {!folded && (
        <div className="impact-grip" onPointerDown={startDrag} role="separator" aria-orientation="horizontal" aria-label="Resize the impact panel" title="Drag to resize" data-testid="impact-grip" />
      )}
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
          title={items.length === all.length ? "All rows" : `The ${items.length} rows the filters show`}
        >
          <DownloadIcon /> Export CSV
        </button>
        <button
          className="icon-btn"
          onClick={() => onFold(!folded)}
          aria-label={folded ? "Unfold the impact panel" : "Fold the impact panel"}
          title={folded ? "Unfold" : "Fold to this line (the graph gets the room)"}
          data-testid="impact-fold"
        >
          {folded ? "▴" : "▾"}
        </button>
        <button className="icon-btn" onClick={onClose} aria-label="Close impact analysis">
          <CloseIcon />
        </button>
      </header>
      {!folded && answer && all.length > 0 && (
        <div className="impact-filters" data-testid="impact-filters">
          <label>
            Depth{" "}
            <select value={maxDepth} onChange={(e) => setMaxDepth(Number(e.target.value))} data-testid="impact-depth">
              <option value={0}>any</option>
              {depths.map((d) => (
                <option key={d} value={d}>
                  ≤ {d}
                </option>
              ))}
            </select>
          </label>
          <label>
            Type{" "}
            <select value={type} onChange={(e) => setType(e.target.value as ImpactType | "")} data-testid="impact-type">
              <option value="">all</option>
              <option value="DATASET">datasets</option>
              <option value="JOB">jobs</option>
              <option value="FIELD">columns</option>
            </select>
          </label>
          <label>
            Namespace{" "}
            <select value={namespace} onChange={(e) => setNamespace(e.target.value)} data-testid="impact-namespace">
              <option value="">all</option>
              {namespaces.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <span className="muted" data-testid="impact-shown">
            {items.length === all.length ? `${all.length} rows` : `${items.length} of ${all.length} rows`}
          </span>
        </div>
      )}
      {!folded && target.startsWith("datasetField:") && <WhatIfDrop target={target} />}
      {!folded && error && <div className="error">Impact analysis failed: {error.message}</div>}
      {!folded && !answer && !error && <div className="muted pad">Computing impact…</div>}
      {!folded && answer && items.length === 0 && <div className="empty">Nothing downstream.</div>}
      {!folded && answer && items.length > 0 && (
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
                  <td className="mono" title={it.name}>
                    <button className="link" onClick={(e) => { e.stopPropagation(); onOpen(it.type === "FIELD" ? `dataset:${it.namespace}:${it.name}` : it.id); }} title={`Open ${it.name}`}>
                      {it.type === "JOB" ? jobLabel(it.name).title : splitName(it.name).title}
                    </button>
                    <div className="muted small">{it.namespace}</div>
                  </td>
                  <td className="mono">{it.field ?? ""}</td>
                  <PathCell path={it.path} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
