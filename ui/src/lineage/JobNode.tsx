import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import { JobIcon, RunStateBadge } from "../components/Icons";
import { formatDuration } from "../lib/format";
import { CatalogRoleBadge } from "../components/catalog";
import { useCatalogNode, useLineageActions } from "./context";
import { RestrictedNode } from "./DatasetNode";
import { ExpandControl } from "./ExpandControl";
import { JOB_HEIGHT, JOB_WIDTH } from "./sizes";
import type { JobFlowNode } from "./types";
import { NAME_FONT, fitName, jobLabel, sourceMark, textWidth } from "../model/names";
import { refNames } from "../components/refs";

/** Room for a job's name: the box less its borders (2), padding (8 + 10), icon (24) and gap (6). */
const NAME_PX = JOB_WIDTH - 50;

/** A job whose jobType facet says it processes a stream. */
export const isStreaming = (n: { jobType?: { processingType?: string | null } | null }): boolean =>
  (n.jobType?.processingType ?? "").toUpperCase() === "STREAMING";

function JobNodeView(props: NodeProps<JobFlowNode>) {
  if (props.data.node.type === "RESTRICTED") return <RestrictedNode id={props.data.node.id} height={JOB_HEIGHT} job />;
  return <VisibleJobNode {...props} />;
}

function VisibleJobNode({ data }: NodeProps<JobFlowNode>) {
  const a = useLineageActions();
  const n = data.node;
  const cat = useCatalogNode(n.id);
  const label = jobLabel(n.name);
  const kids = n.children?.length ?? 0;
  // "write employee_compensation"; when that is too long, the output alone and the action below it
  const whole = textWidth(label.title, NAME_FONT) <= NAME_PX || !label.output;
  const shown = fitName(whole ? label.title : label.output, NAME_PX);
  const src = sourceMark(n.namespace, n.jobType?.integration);
  const streaming = isStreaming(n);
  const cls = [
    "lnode",
    "lnode-job",
    data.isRoot ? "is-root" : "",
    data.selected ? "is-selected" : "",
    `emph-${data.emphasis}`,
    data.mark ? `mark-${data.mark}` : "",
    kids > 0 ? "is-parent" : "",
    cat ? `cat-node cat-node-${cat.role}` : "",
  ].join(" ");
  return (
    <div
      className={cls}
      style={{ width: JOB_WIDTH, height: JOB_HEIGHT }}
      data-testid="job-node"
      data-node-id={n.id}
      data-emphasis={data.emphasis}
      data-mark={data.mark ?? ""}
      data-children={kids || undefined}
      data-catalog-role={cat?.role ?? ""}
      onClick={() => a.selectNode(n.id)}
    >
      <Handle type="target" position={Position.Left} id="in" className="h-node" />
      <Handle type="source" position={Position.Right} id="out" className="h-node" />
      <ExpandControl node={n} side="upstream" expanded={data.expandedUp} />
      <ExpandControl node={n} side="downstream" expanded={data.expandedDown} hidden={data.hiddenDown} />
      <div className="lnode-head">
        <span className="lnode-icon is-job" title={src.label || "job"}>
          {src.mark && src.label !== "file" ? <span className="src-mark">{src.mark}</span> : <JobIcon />}
        </span>
        <span className="lnode-title">
          <span className="lnode-name" title={n.name} data-testid="node-name" data-name={n.name}>
            {shown}
          </span>
          <span className="lnode-sub" title={label.app ? `${label.action} · Spark application ${label.app}` : undefined}>
            {cat && <CatalogRoleBadge role={cat.role} />}
            {streaming && (
              <span className="pill pill-stream" data-testid="streaming-badge" title="jobType facet: processingType STREAMING">
                streaming
              </span>
            )}
            {!whole && <span className="job-action">{label.action}</span>}
            <RunStateBadge state={n.latestRun?.state} />
            <span>{formatDuration(n.latestRun?.durationMs)}</span>
            {kids > 0 ? (
              <button
                className="job-family nodrag"
                onClick={(e) => {
                  e.stopPropagation();
                  a.openJob(n.id);
                }}
                title={`Draw the ${kids} jobs this job stands for here (its ${kids === 1 ? "child" : "children"})`}
                aria-label={`Show the ${kids} child ${kids === 1 ? "job" : "jobs"} of ${n.name}`}
                data-testid="open-children"
              >
                {kids} {kids === 1 ? "job" : "jobs"} ▸
              </button>
            ) : data.groupedIn ? (
              <button
                className="job-family nodrag"
                onClick={(e) => {
                  e.stopPropagation();
                  a.closeJob(data.groupedIn!);
                }}
                title={`Part of ${refNames(data.groupedIn).full}: draw it and its siblings as that job again`}
                aria-label={`Group the jobs of ${refNames(data.groupedIn).full} again`}
                data-testid="close-parent"
                data-parent={data.groupedIn}
              >
                ◂ in {refNames(data.groupedIn).short}
              </button>
            ) : label.app ? (
              <span className="muted ellipsis">· {label.app}</span>
            ) : (
              n.jobType?.jobType && <span className="muted">· {n.jobType.jobType}</span>
            )}
          </span>
        </span>
      </div>
    </div>
  );
}

export const JobNode = memo(JobNodeView);
