import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import { JobIcon, RunStateBadge } from "../components/Icons";
import { formatDuration } from "../lib/format";
import { useLineageActions } from "./context";
import { ExpandControl } from "./ExpandControl";
import { JOB_HEIGHT, NODE_WIDTH } from "./sizes";
import type { JobFlowNode } from "./types";

function JobNodeView({ data }: NodeProps<JobFlowNode>) {
  const a = useLineageActions();
  const n = data.node;
  const cls = [
    "lnode",
    "lnode-job",
    data.isRoot ? "is-root" : "",
    data.selected ? "is-selected" : "",
    `emph-${data.emphasis}`,
    data.mark ? `mark-${data.mark}` : "",
  ].join(" ");
  return (
    <div
      className={cls}
      style={{ width: NODE_WIDTH, height: JOB_HEIGHT }}
      data-testid="job-node"
      data-node-id={n.id}
      data-emphasis={data.emphasis}
      data-mark={data.mark ?? ""}
      onClick={() => a.selectNode(n.id)}
    >
      <Handle type="target" position={Position.Left} id="in" className="h-node" />
      <Handle type="source" position={Position.Right} id="out" className="h-node" />
      <ExpandControl node={n} side="upstream" expanded={data.expandedUp} />
      <ExpandControl node={n} side="downstream" expanded={data.expandedDown} />
      <div className="lnode-head">
        <span className="lnode-icon is-job">
          <JobIcon />
        </span>
        <span className="lnode-title">
          <span className="lnode-name" title={n.name} data-testid="node-name">
            {n.name}
          </span>
          <span className="lnode-sub">
            <RunStateBadge state={n.latestRun?.state} />
            <span>{formatDuration(n.latestRun?.durationMs)}</span>
            {n.jobType?.jobType && <span className="muted">· {n.jobType.jobType}</span>}
          </span>
        </span>
      </div>
    </div>
  );
}

export const JobNode = memo(JobNodeView);
