import { Handle, Position, useStoreApi, type NodeProps } from "@xyflow/react";
import { memo, useEffect, useRef } from "react";
import { DatasetKindIcon, ColumnsIcon } from "../components/Icons";
import { CatalogRoleBadge } from "../components/catalog";
import { useCatalogNode, useLineageActions } from "./context";
import { ExpandControl } from "./ExpandControl";
import { ColumnTagBadges, DatasetBadges } from "./NodeBadges";
import type { DatasetFlowNode, LineageFlowNode } from "./types";
import { measureNodes } from "./measure";
import { DATASET_WIDTH, JOB_WIDTH, NODE_WIDTH } from "./sizes";
import { splitName } from "../model/nodeid";
import { fitName, sourceMark } from "../model/names";

/** Room for a dataset's name: the box less its borders (2), padding (8 + 10), icon (24) and gap (6). */
const NAME_PX = DATASET_WIDTH - 50;

/** What the catalog hides from this reader (docs/catalog.md): an opaque node, no name, no columns, not expandable. */
export function RestrictedNode({ id, height, job }: { id: string; height: number; job: boolean }) {
  return (
    <div
      className={`lnode lnode-restricted ${job ? "lnode-job" : "lnode-dataset"}`}
      style={{ width: job ? JOB_WIDTH : NODE_WIDTH, height }}
      data-testid="restricted-node"
      data-node-id={id}
      title="Restricted: a node of another project's inventory that you may not see"
    >
      <Handle type="target" position={Position.Left} id="in" className="h-node" />
      <Handle type="source" position={Position.Right} id="out" className="h-node" />
      <div className="lnode-head">
        <span className="lnode-icon">🔒</span>
        <span className="lnode-title">
          <span className="lnode-name">Restricted</span>
          <span className="lnode-sub">{job ? "a job" : "a dataset"} you may not see</span>
        </span>
      </div>
    </div>
  );
}

function DatasetNodeView(props: NodeProps<DatasetFlowNode>) {
  if (props.data.node.type === "RESTRICTED") return <RestrictedNode id={props.data.node.id} height={props.data.height} job={false} />;
  return <VisibleDatasetNode {...props} />;
}

/**
 * React Flow keeps a node's measured handles while its box keeps its size (Canvas): when other column rows
 * (and so other handles) are drawn at the same size — another page, a filter, another column path — it is
 * asked to measure the node's handles again, else the edges to the new rows would have no end.
 */
function useHandlesMeasured(id: string, handles: string) {
  const store = useStoreApi<LineageFlowNode>();
  const last = useRef(handles);
  useEffect(() => {
    if (last.current === handles) return; // (a new node is measured by React Flow itself)
    last.current = handles;
    measureNodes(store, [id]);
  }, [id, handles, store]);
}

function VisibleDatasetNode({ id, data }: NodeProps<DatasetFlowNode>) {
  const a = useLineageActions();
  const n = data.node;
  useHandlesMeasured(id, data.columnsMode === "none" ? "" : `${data.columnsMode}\n${data.columns.map((c) => c.path).join("\n")}`);
  const cat = useCatalogNode(n.id);
  const label = splitName(n.name);
  const src = sourceMark(n.namespace);
  const cls = [
    "lnode",
    "lnode-dataset",
    data.isRoot ? "is-root" : "",
    data.selected ? "is-selected" : "",
    `emph-${data.emphasis}`,
    data.mark ? `mark-${data.mark}` : "",
    n.deleted ? "is-deleted" : "",
    cat ? `cat-node cat-node-${cat.role}` : "",
  ].join(" ");
  return (
    <div
      className={cls}
      style={{ width: DATASET_WIDTH, height: data.height }}
      data-testid="dataset-node"
      data-node-id={n.id}
      data-emphasis={data.emphasis}
      data-mark={data.mark ?? ""}
      data-catalog-role={cat?.role ?? ""}
    >
      <Handle type="target" position={Position.Left} id="in" className="h-node" />
      <Handle type="source" position={Position.Right} id="out" className="h-node" />
      <ExpandControl node={n} side="upstream" expanded={data.expandedUp} />
      <ExpandControl node={n} side="downstream" expanded={data.expandedDown} hidden={data.hiddenDown} />
      <div className="lnode-head" onClick={() => a.selectNode(n.id)}>
        <span className={`lnode-icon kind-${n.kind ?? "other"}`} title={src.label}>
          {src.mark ? <span className="src-mark">{src.mark}</span> : <DatasetKindIcon kind={n.kind} />}
        </span>
        <span className="lnode-title">
          <span className="lnode-name" title={n.name} data-testid="node-name" data-name={n.name}>
            {fitName(label.title, NAME_PX)}
          </span>
          <span className="lnode-sub">
            <span className="lnode-place" title={`${n.namespace} ${n.name}`}>
              {data.place}
            </span>
            {cat && <CatalogRoleBadge role={cat.role} />}
            <button
              className={`lnode-cols nodrag${data.columnsOpen ? " on" : ""}`}
              title={data.columnsOpen ? "Hide columns" : `Show all ${data.columnCount} columns`}
              aria-label={`${data.columnsOpen ? "Hide" : "Show"} the ${data.columnCount} columns of ${label.title}`}
              aria-expanded={data.columnsOpen}
              data-testid="toggle-columns"
              onClick={(e) => {
                e.stopPropagation();
                a.toggleColumns(n.id);
              }}
            >
              <ColumnsIcon />
              {data.columnCount}
            </button>
          </span>
          <DatasetBadges nodeId={n.id} />
          {data.catalogChip && (
            <span className="node-badges cat-chip-row">
              <button
                className="nbadge cat-chip nodrag"
                data-testid="catalog-chip"
                title={`The catalog's ${data.catalogChip.nodes.length} nodes hanging from this dataset are folded: draw them`}
                onClick={(e) => {
                  e.stopPropagation();
                  a.showCatalogNodes();
                }}
              >
                {data.catalogChip.label}
              </button>
            </span>
          )}
        </span>
      </div>
      {data.columnsMode !== "none" && (
        <div className="lnode-columns nodrag nowheel" data-mode={data.columnsMode}>
          {data.columnsMode === "all" && data.columnCount > 10 && (
            <input
              className="col-filter"
              placeholder={`Filter ${data.columnCount} columns…`}
              aria-label={`Filter the columns of ${label.title}`}
              value={data.filter}
              data-testid="column-filter"
              onChange={(e) => a.setColumnFilter(n.id, e.target.value)}
            />
          )}
          {data.columnCount === 0 && data.columnsMode === "all" && <div className="col-empty muted">no columns known</div>}
          {data.columns.map((c) => (
            <div
              key={c.id}
              className={`col-row emph-${c.emphasis}${c.selected ? " is-selected" : ""}${c.mark ? ` mark-${c.mark}` : ""}`}
              data-testid="column-row"
              data-field-id={c.id}
              data-highlighted={c.emphasis === "highlight" ? "true" : "false"}
              data-mark={c.mark ?? ""}
              onClick={() => a.selectColumn(c.id)}
              title={c.change ? `${c.path}: ${c.change.from ?? "?"} → ${c.change.to ?? "?"}` : (c.description ?? c.path)}
            >
              <Handle type="target" position={Position.Left} id={`in:${c.path}`} className="h-col" />
              <span className="col-name" style={{ paddingLeft: c.depth * 12 }}>
                {c.depth > 0 ? "↳ " : ""}
                {c.name}
              </span>
              <ColumnTagBadges nodeId={n.id} field={c.path} />
              {c.change ? (
                <span className="col-type col-retyped" data-testid="col-retyped">
                  <s>{c.change.from ?? "?"}</s> → {c.change.to ?? "?"}
                </span>
              ) : (
                <span className="col-type">{c.type ?? ""}</span>
              )}
              <Handle type="source" position={Position.Right} id={`out:${c.path}`} className="h-col" />
            </div>
          ))}
          {data.filter && data.columnTotal === 0 && <div className="col-empty muted">no column matches</div>}
          {data.pages > 1 && (
            <div className="col-pager">
              <button
                disabled={data.page === 0}
                onClick={() => a.setColumnPage(n.id, data.page - 1)}
                data-testid="col-prev"
                aria-label={`Previous columns of ${label.title}`}
                title="Previous columns"
              >
                ‹
              </button>
              <span>
                {data.page + 1} / {data.pages}
                {data.hiddenHighlighted > 0 && <span className="hl-note"> · {data.hiddenHighlighted} on path elsewhere</span>}
              </span>
              <button
                disabled={data.page >= data.pages - 1}
                onClick={() => a.setColumnPage(n.id, data.page + 1)}
                data-testid="col-next"
                aria-label={`Next columns of ${label.title}`}
                title="Next columns"
              >
                ›
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}

export const DatasetNode = memo(DatasetNodeView);
