import type { GraphNode } from "../api/types";
import { ChevronsLeft, ChevronsRight } from "../components/Icons";
import { useLineageActions } from "./context";

/** The double-arrow on a node's side: expand one more hop that way, or collapse it again. */
export function ExpandControl({
  node,
  side,
  expanded,
  hidden = 0,
}: {
  node: GraphNode;
  side: "upstream" | "downstream";
  expanded: boolean;
  /** downstream nodes the impact analysis found beyond this one and the graph does not show */
  hidden?: number;
}) {
  const a = useLineageActions();
  const more = side === "upstream" ? node.hasMoreUpstream : node.hasMoreDownstream || hidden > 0;
  if (!expanded && !more) return null;
  const left = side === "upstream";
  const Icon = left === !expanded ? ChevronsLeft : ChevronsRight;
  return (
    <button
      className={`expander nodrag ${left ? "expander-left" : "expander-right"}${expanded ? " is-expanded" : ""}`}
      title={`${expanded ? "Collapse" : "Expand"} ${side}${hidden > 0 ? ` (${hidden} more downstream not drawn)` : ""}`}
      aria-label={`${expanded ? "Collapse" : "Expand"} ${side} of ${node.name}${hidden > 0 ? `, ${hidden} more not drawn` : ""}`}
      data-testid={`${expanded ? "collapse" : "expand"}-${side}`}
      onClick={(e) => {
        e.stopPropagation();
        if (expanded) a.collapse(node.id, side);
        else a.expand(node.id, side);
      }}
    >
      <Icon />
      {hidden > 0 && (
        <span className="expander-count" data-testid="hidden-count">
          +{hidden}
        </span>
      )}
    </button>
  );
}
