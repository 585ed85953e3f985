// Every reference to another asset is a link: to its asset page, and — inside the lineage view,
// when the node is drawn — a "show in graph" button that selects and centres it.
import { createContext, useContext } from "react";
import { jobLabel } from "../model/names";
import { parseNodeId, splitName } from "../model/nodeid";
import { nodeHref } from "../model/urlState";
import { Link } from "./Link";

export interface GraphRefs {
  /** is the node on the canvas */
  drawn: (id: string) => boolean;
  /** select it (the view centres on it) */
  show: (id: string) => void;
}

export const GraphRefsContext = createContext<GraphRefs | null>(null);

/** The short, distinguishing name of a dataset or job id (file name, job action), and the full name. */
export function refNames(id: string): { short: string; full: string } {
  try {
    const r = parseNodeId(id);
    if (r.type === "job") return { short: jobLabel(r.name).title, full: r.name };
    if (r.type === "dataset") return { short: splitName(r.name).title, full: r.name };
    return { short: r.name, full: r.name };
  } catch {
    return { short: id, full: id };
  }
}

export function NodeRef({ id, testId = "node-ref" }: { id: string; testId?: string }) {
  const g = useContext(GraphRefsContext);
  const { short, full } = refNames(id);
  const inGraph = g?.drawn(id) ?? false;
  return (
    <span className="node-ref" data-testid={testId} data-ref-id={id}>
      <Link href={nodeHref(id)} title={`Open the page of ${full}`}>
        {short}
      </Link>
      {inGraph && (
        <button className="ref-show" onClick={() => g!.show(id)} aria-label={`Show ${full} in the graph`} title="Show in the graph" data-testid="show-in-graph">
          ◎
        </button>
      )}
    </span>
  );
}

export function NodeRefList({ ids, empty = "—", testId }: { ids: string[] | undefined | null; empty?: string; testId?: string }) {
  if (!ids?.length) return <span className="muted">{empty}</span>;
  return (
    <ul className="ref-list" data-testid={testId}>
      {ids.map((id) => (
        <li key={id}>
          <NodeRef id={id} />
        </li>
      ))}
    </ul>
  );
}
