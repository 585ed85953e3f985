import type { GraphNode } from "../api/types";
import { ChevronsLeft, ChevronsRight } from "../components/Icons";
import { useLineageActions } from "./context";

/** The double-arrow on a node's side: expand one more hop that way, or collapse it again. */
export function ExpandControl({ node, side, expanded }: { node: GraphNode; side: "upstream" | "downstream"; expanded: boolean }) {
  const a = useLineageActions();
  const more = side === "upstream" ? node.hasMoreUpstream : node.hasMoreDownstream;
  if (!expanded && !more) return null;
  const left = side === "upstream";
  const Icon = left === !expanded ? ChevronsLeft : ChevronsRight;
  return (
    <button
      className={`expander nodrag ${left ? "expander-left" : "expander-right"}${expanded ? " is-expanded" : ""}`}
      title={`${expanded ? "Collapse" : "Expand"} ${side}`}
      aria-label={`${expanded ? "Collapse" : "Expand"} ${side} of ${node.name}`}
      data-testid={`${expanded ? "collapse" : "expand"}-${side}`}
      onClick={(e) => {
        e.stopPropagation();
        if (expanded) a.collapse(node.id, side);
        else a.expand(node.id, side);
      }}
    >
      <Icon />
    </button>
  );
}
