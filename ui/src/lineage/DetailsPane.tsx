// The right-hand pane: what the clicked node is, its schema/history or job code/runs, and the
// selected column's path.
import { useState } from "react";
import type React from "react";
import { api } from "../api/client";
import type { Version } from "../api/types";
import { DatasetInfo, FacetsBlock, JobInfo, RunsTable, SchemaTable, VersionList } from "../components/details";
import { CloseIcon, DatasetKindIcon, JobIcon } from "../components/Icons";
import { formatTime } from "../lib/format";
import { useAsync } from "../lib/useAsync";
import { catalogAssetHref } from "../api/catalog";
import { CatalogRoleBadge } from "../components/catalog";
import { Link } from "../components/Link";
import { useCatalogNode } from "./context";
import { INFLUENCE_WORDS, flattenFields, pathInHopOrder, type ColumnPath } from "../model/columns";
import { QualityTab } from "./QualityTab";
import { datasetOfField, fieldName, parseNodeId, splitName } from "../model/nodeid";
import { fitName, jobLabel } from "../model/names";

const parseDatasetName = (id: string): string => {
  try {
    return parseNodeId(id).name;
  } catch {
    return id;
  }
};

type PaneTab = "info" | "schema" | "history" | "runs" | "facets" | "quality";

/** The column path, in hop order: what flows into the column (upstream, nearest first), then where it flows. */
function ColumnPathList({
  column,
  path,
  drawn,
  indirect,
  onIndirect,
  onOpenAsset,
  onClearColumn,
  missing = null,
}: {
  column: string;
  path: ColumnPath;
  drawn: Set<string>;
  indirect: boolean;
  onIndirect: (on: boolean) => void;
  onOpenAsset: (id: string) => void;
  onClearColumn: () => void;
  /** the column's dataset (at the view's moment) has a schema without this column: the link is older than it */
  missing?: { dataset: string; at: string | null } | null;
}) {
  const row = (c: string, extra?: React.ReactNode) => (
    <>
      <span className="mono path-col" title={c}>
        {fitName(fieldName(c), 150, PATH_FONT)}
      </span>
      <button
        className="link muted small ellipsis"
        onClick={() => onOpenAsset(datasetOfField(c))}
        title={`Open ${parseDatasetName(datasetOfField(c))}`}
        data-testid="path-dataset"
      >
        {fitName(splitName(parseDatasetName(datasetOfField(c))).title, 150, PATH_FONT)}
      </button>
      {extra}
      {!drawn.has(datasetOfField(c)) && <span className="pill">not drawn</span>}
    </>
  );
  const ordered = pathInHopOrder(path);
  return (
    <section className="column-path" data-testid="column-path">
      <header>
        <h4>What flows into {fieldName(column)}</h4>
        <button className="icon-btn" onClick={onClearColumn} aria-label="Clear column selection">
          <CloseIcon />
        </button>
      </header>
      {missing ? (
        <div className="small" data-testid="column-missing">
          <p>
            <b className="mono">{fieldName(column)}</b> is not a column of {missing.dataset}
            {missing.at ? ` at ${formatTime(missing.at)}` : " now"}: it may have been renamed or dropped since this
            link was made.
          </p>
          <p className="muted">Its History tab says when its columns changed; its Schema tab lists the ones it has.</p>
        </div>
      ) : (
      <>
      <div className="muted small">
        {path.columns.size} {path.columns.size === 1 ? "column" : "columns"} on the path of <b className="mono">{fieldName(column)}</b>, nearest first
      </div>
      <ul className="path-list">
        {ordered.map((c) => {
          const hop = path.hops.get(c) ?? 0;
          return (
            <li
              key={c}
              data-testid="path-column"
              data-field-id={c}
              data-hop={hop}
              data-drawn={drawn.has(datasetOfField(c)) ? "true" : "false"}
              className={`${c === column ? "is-selected" : ""}${drawn.has(datasetOfField(c)) ? "" : " not-drawn"}`}
            >
              <span className="hop" title={hop < 0 ? `${-hop} hops upstream` : hop > 0 ? `${hop} hops downstream` : "the selected column"}>
                {hop === 0 ? "●" : hop < 0 ? `↑${-hop}` : `↓${hop}`}
              </span>
              {row(c)}
            </li>
          );
        })}
      </ul>
      <label className="check small" title="Join, filter, group-by and sort keys: they choose the rows, their values do not flow">
        <input type="checkbox" checked={indirect} onChange={(e) => onIndirect(e.target.checked)} data-testid="path-indirect" /> Show what
        selects the rows (INDIRECT)
      </label>
      {indirect && (
        <ul className="path-list path-influences" data-testid="path-influences">
          {path.influences.length === 0 && <li className="muted small">no join, filter or group-by keys on this path</li>}
          {path.influences.map((inf) => (
            <li key={`${inf.column}|${inf.on}`} data-testid="path-influence" data-field-id={inf.column}>
              <span className="small muted influence-kind">{inf.kinds.map((k) => INFLUENCE_WORDS[k] ?? INFLUENCE_WORDS[""]).join(", ")}</span>
              {row(inf.column)}
            </li>
          ))}
        </ul>
      )}
      </>
      )}
    </section>
  );
}

const PATH_FONT = '12px ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace';
const MIN_PANE = 260;
const MAX_PANE = 900;

export function DetailsPane({
  nodeId,
  at,
  column,
  path,
  drawn,
  onClose,
  onPickVersion,
  onOpenAsset,
  onClearColumn,
  width = 360,
  folded = false,
  onFold = () => undefined,
  onResize = () => undefined,
  indirect = false,
  onIndirect = () => undefined,
}: {
  nodeId: string;
  at: string | null;
  column: string | null;
  path: ColumnPath | null;
  /** node ids on the canvas: path columns elsewhere are marked "not drawn" */
  drawn: Set<string>;
  onClose: () => void;
  onPickVersion: (v: Version) => void;
  onOpenAsset: (id: string) => void;
  onClearColumn: () => void;
  /** the pane's width in px (dragged by its left edge) */
  width?: number;
  /** folded to a strip at the canvas's edge, the graph gets the room */
  folded?: boolean;
  onFold?: (folded: boolean) => void;
  onResize?: (width: number) => void;
  /** the column path lists INDIRECT influences too */
  indirect?: boolean;
  onIndirect?: (on: boolean) => void;
}) {
  const [tab, setTab] = useState<PaneTab>("info");
  const [main, setMain] = useState<"path" | "node">(column ? "path" : "node");
  // a newly selected column shows its path, a newly selected node its details
  const [shownFor, setShownFor] = useState({ nodeId, column });
  if (shownFor.nodeId !== nodeId || shownFor.column !== column) {
    setShownFor({ nodeId, column });
    setMain(column && column !== shownFor.column ? "path" : "node");
  }
  const cat = useCatalogNode(nodeId);
  const node = useAsync((s) => api.node(nodeId, at, s), [nodeId, at]);
  const isJob = nodeId.startsWith("job:");
  const tabs: PaneTab[] = isJob ? ["info", "runs", "history", "facets"] : ["info", "schema", "history", "facets", "quality"];
  const current = tabs.includes(tab) ? tab : "info";
  const showPath = Boolean(column && path) && main === "path";
  // a column its dataset's schema (at this moment) does not have: a link older than a rename or a drop
  const fields = column && nodeId === datasetOfField(column) ? node.data?.fields : null;
  const missing =
    column && fields?.length && !flattenFields(fields).some((f) => f.path === fieldName(column) || f.name === fieldName(column))
      ? { dataset: splitName(parseDatasetName(nodeId)).title, at }
      : null;
  const title = node.data ? (isJob ? jobLabel(node.data.name).title : splitName(node.data.name).title) : nodeId;
  if (folded) {
    return (
      <aside className="details details-folded" data-testid="details-pane" data-folded="true">
        <button className="fold-btn" onClick={() => onFold(false)} aria-label="Open the side pane" title="Open the side pane" data-testid="pane-unfold">
          ‹
        </button>
        {column && path && (
          <button className="fold-tab" onClick={() => (setMain("path"), onFold(false))} data-testid="pane-tab-path-folded">
            Column path · {path.columns.size}
          </button>
        )}
        <button className="fold-tab" onClick={() => (setMain("node"), onFold(false))} title={node.data?.name}>
          {title}
        </button>
      </aside>
    );
  }
  const startDrag = (e: React.PointerEvent) => {
    e.preventDefault();
    const x0 = e.clientX;
    const w0 = width;
    const move = (ev: PointerEvent) => onResize(Math.min(MAX_PANE, Math.max(MIN_PANE, w0 + (x0 - ev.clientX))));
    const up = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  };
  return (
    <aside className="details" data-testid="details-pane" data-folded="false" style={{ width }}>
      <div className="pane-grip" onPointerDown={startDrag} role="separator" aria-orientation="vertical" aria-label="Resize the side pane" title="Drag to resize" data-testid="pane-grip" />
      <nav className="pane-tabs">
        {column && path && (
          <button className={showPath ? "active" : ""} onClick={() => setMain("path")} data-testid="pane-tab-path">
            Column path
          </button>
        )}
        <button className={!showPath ? "active" : ""} onClick={() => setMain("node")} data-testid="pane-tab-node">
          Details
        </button>
        <span className="spacer" />
        <button className="icon-btn" onClick={() => onFold(true)} aria-label="Fold the side pane" title="Fold the pane: the graph gets the room" data-testid="pane-fold">
          ›
        </button>
        <button className="icon-btn" onClick={onClose} aria-label="Close details">
          <CloseIcon />
        </button>
      </nav>
      {showPath && column && path && (
        <ColumnPathList
          column={column}
          path={path}
          drawn={drawn}
          indirect={indirect}
          onIndirect={onIndirect}
          onOpenAsset={onOpenAsset}
          onClearColumn={onClearColumn}
          missing={missing}
        />
      )}
      {!showPath && (
      <>
      <header className="details-head">
        <span className={`asset-icon ${isJob ? "is-job" : "is-dataset"}`}>
          {isJob ? <JobIcon /> : <DatasetKindIcon kind={node.data?.kind} />}
        </span>
        <div className="details-title">
          <div className="details-name" data-testid="details-name" title={node.data?.name}>
            {title}
          </div>
          <div className="muted small break">
            {node.data?.namespace}
            {node.data && !isJob && splitName(node.data.name).context ? ` · ${splitName(node.data.name).context}` : ""}
            {node.data && isJob && jobLabel(node.data.name).app ? ` · Spark application ${jobLabel(node.data.name).app}` : ""}
          </div>
        </div>
      </header>
      <div className="details-actions">
        <button className="tb-btn" onClick={() => onOpenAsset(nodeId)}>
          Open asset page
        </button>
        {cat && <CatalogRoleBadge role={cat.role} />}
        {cat?.asset && (
          <Link href={catalogAssetHref(cat.asset)} className="tb-btn" testId="details-catalog-asset">
            Catalog asset
          </Link>
        )}
      </div>
      <nav className="subtabs">
        {tabs.map((t) => (
          <button key={t} className={t === current ? "active" : ""} onClick={() => setTab(t)} data-testid={`pane-tab-${t}`}>
            {t}
          </button>
        ))}
      </nav>
      <div className="details-body">
        {node.error && <div className="error">{node.error.message}</div>}
        {node.data && current === "info" && (node.data.type === "JOB" ? <JobInfo node={node.data} /> : <DatasetInfo node={node.data} />)}
        {node.data && current === "schema" && <SchemaTable fields={node.data.fields} testId="pane-schema" />}
        {current === "history" && <VersionList nodeId={nodeId} onPick={onPickVersion} activeAt={at} />}
        {current === "runs" && <RunsTable jobId={nodeId} compact />}
        {node.data && current === "facets" && <FacetsBlock facets={node.data.facets} />}
        {current === "quality" && <QualityTab nodeId={nodeId} at={at} />}
      </div>
      </>
      )}
    </aside>
  );
}
