import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from "@xyflow/react";
import { memo, useState } from "react";
import type { LineageFlowEdge } from "./types";

/** A flow or column edge; hovering shows what it carries (transformation type, subtype, description; or the jobs). */
function LineageEdgeView(props: EdgeProps<LineageFlowEdge>) {
  const { id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data, markerEnd } = props;
  const [hover, setHover] = useState(false);
  const [path, labelX, labelY] = getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  const cls = ["ledge", `ledge-${data?.kind ?? "flow"}`, data?.dependency ? `dep-${data.dependency}` : "", `emph-${data?.emphasis ?? "normal"}`, data?.mark ? `mark-${data.mark}` : ""].join(" ");
  return (
    <>
      <BaseEdge id={id} path={path} className={cls} markerEnd={markerEnd} />
      <path
        d={path}
        className="ledge-hit"
        data-testid={`edge-${data?.kind ?? "flow"}`}
        data-emphasis={data?.emphasis ?? "normal"}
        data-dependency={data?.dependency ?? ""}
        onMouseEnter={() => setHover(true)}
        onMouseLeave={() => setHover(false)}
      />
      {hover && data && (data.transformations?.length || data.via?.length || data.label) ? (
        <EdgeLabelRenderer>
          <div className="edge-card" style={{ transform: `translate(-50%, -110%) translate(${labelX}px, ${labelY}px)` }} data-testid="edge-card">
            {data.label && <div className="edge-card-title">{data.label}</div>}
            {data.transformations?.map((t, i) => (
              <div key={i} className="edge-card-t">
                <span className={`pill pill-t-${t.type.toLowerCase()}`}>{t.type}</span>
                {t.subtype && <span className="pill">{t.subtype}</span>}
                {t.masking && <span className="pill pill-mask">masking</span>}
                {t.description && <div className="edge-card-desc">{t.description}</div>}
              </div>
            ))}
            {data.job && <div className="edge-card-via mono">job: {data.job}</div>}
            {data.via?.map((v) => (
              <div key={v} className="edge-card-via mono">
                via {v}
              </div>
            ))}
          </div>
        </EdgeLabelRenderer>
      ) : null}
    </>
  );
}

export const LineageEdge = memo(LineageEdgeView);
