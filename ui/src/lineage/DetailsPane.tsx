// The right-hand pane: what the clicked node is, its schema/history or job code/runs, and the
// selected column's path.
import { useState } from "react";
import { api } from "../api/client";
import type { Version } from "../api/types";
import { DatasetInfo, FacetsBlock, JobInfo, RunsTable, SchemaTable, VersionList } from "../components/details";
import { CloseIcon, DatasetKindIcon, JobIcon } from "../components/Icons";
import { useAsync } from "../lib/useAsync";
import { catalogAssetHref } from "../api/catalog";
import { CatalogRoleBadge } from "../components/catalog";
import { Link } from "../components/Link";
import { useCatalogNode } from "./context";
import { QualityTab } from "./QualityTab";
import type { ColumnPath } from "../model/columns";
import { datasetOfField, fieldName, parseNodeId, splitName } from "../model/nodeid";
import { jobLabel, tailCut } from "../model/names";

const parseDatasetName = (id: string): string => {
  try {
    return parseNodeId(id).name;
  } catch {
    return id;
  }
};

type PaneTab = "info" | "schema" | "history" | "runs" | "facets" | "quality";

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
}) {
  const [tab, setTab] = useState<PaneTab>("info");
  const cat = useCatalogNode(nodeId);
  const node = useAsync((s) => api.node(nodeId, at, s), [nodeId, at]);
  const isJob = nodeId.startsWith("job:");
  const tabs: PaneTab[] = isJob ? ["info", "runs", "history", "facets"] : ["info", "schema", "history", "facets", "quality"];
  const current = tabs.includes(tab) ? tab : "info";
  return (
    <aside className="details" data-testid="details-pane">
      {column && path && (
        <section className="column-path" data-testid="column-path">
          <header>
            <h4>Column lineage</h4>
            <button className="icon-btn" onClick={onClearColumn} aria-label="Clear column selection">
              <CloseIcon />
            </button>
          </header>
          <div className="muted small">
            {path.columns.size} columns on the path of <b className="mono">{fieldName(column)}</b>
          </div>
          <ul className="path-list">
            {[...path.columns].sort().map((c) => (
              <li
                key={c}
                data-testid="path-column"
                data-field-id={c}
                data-drawn={drawn.has(datasetOfField(c)) ? "true" : "false"}
                className={`${c === column ? "is-selected" : ""}${drawn.has(datasetOfField(c)) ? "" : " not-drawn"}`}
              >
                <span className="mono">{fieldName(c)}</span>
                <button
                  className="link muted small ellipsis"
                  onClick={() => onOpenAsset(datasetOfField(c))}
                  title={`Open ${parseDatasetName(datasetOfField(c))}`}
                  data-testid="path-dataset"
                >
                  {tailCut(splitName(parseDatasetName(datasetOfField(c))).title, 32)}
                </button>
                {!drawn.has(datasetOfField(c)) && <span className="pill">not drawn</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <header className="details-head">
        <span className={`asset-icon ${isJob ? "is-job" : "is-dataset"}`}>
          {isJob ? <JobIcon /> : <DatasetKindIcon kind={node.data?.kind} />}
        </span>
        <div className="details-title">
          <div className="details-name" data-testid="details-name" title={node.data?.name}>
            {node.data ? (isJob ? jobLabel(node.data.name).title : splitName(node.data.name).title) : nodeId}
          </div>
          <div className="muted small break">
            {node.data?.namespace}
            {node.data && !isJob && splitName(node.data.name).context ? ` · ${splitName(node.data.name).context}` : ""}
            {node.data && isJob && jobLabel(node.data.name).app ? ` · Spark application ${jobLabel(node.data.name).app}` : ""}
          </div>
        </div>
        <button className="icon-btn" onClick={onClose} aria-label="Close details">
          <CloseIcon />
        </button>
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
    </aside>
  );
}
