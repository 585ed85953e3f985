// Badges on a drawn dataset node: its data quality when it fails or has an issue upstream, its declared tags,
// and on each column row the column's tags (inherited ones marked). Read from ./annotations (lazy).
import { shortNodeName } from "./ImpactPanel";
import { columnTags, datasetTagNames, useNodeAnnotations } from "./annotations";

export function DatasetBadges({ nodeId }: { nodeId: string }) {
  const a = useNodeAnnotations(nodeId);
  if (!a) return null;
  const q = a.quality;
  const tags = datasetTagNames(a.tags, nodeId);
  const failing = q?.quality.status === "failing";
  const flagged = Boolean(q?.flagged);
  if (!failing && !flagged && tags.length === 0) return null;
  const causes = (q?.upstream ?? []).map((u) => `${shortNodeName(u.cause)}: ${u.path.map(shortNodeName).join(" → ")}`);
  return (
    <span className="node-badges" data-testid="node-badges">
      {failing && (
        <span className="nbadge dq-fail" data-testid="node-quality-badge" data-status="failing" title="A data-quality check of this dataset fails">
          failing
        </span>
      )}
      {!failing && flagged && (
        <span
          className="nbadge dq-upstream"
          data-testid="node-quality-badge"
          data-status="upstream"
          title={`Upstream issue:\n${causes.join("\n")}`}
        >
          upstream issue
        </span>
      )}
      {tags.map((t) => (
        <span key={t} className="nbadge tag" data-testid="node-tag" data-tag={t} title={`Tag ${t} on this dataset`}>
          {t}
        </span>
      ))}
    </span>
  );
}

export function ColumnTagBadges({ nodeId, field }: { nodeId: string; field: string }) {
  const a = useNodeAnnotations(nodeId);
  const tags = columnTags(a?.tags, field);
  if (tags.length === 0) return null;
  return (
    <span className="col-tags">
      {tags.map((t) => (
        <span
          key={t.tag}
          className={`nbadge tag${t.inherited ? " inherited" : ""}`}
          data-testid="column-tag"
          data-tag={t.tag}
          data-inherited={t.inherited ? "true" : "false"}
          title={
            t.inherited && t.origin
              ? `${t.tag}, inherited from ${shortNodeName(t.origin)} (${t.path.map(shortNodeName).join(" → ")})`
              : `${t.tag}, declared on this column`
          }
        >
          {t.inherited ? "↳" : ""}
          {t.tag}
        </span>
      ))}
    </span>
  );
}
