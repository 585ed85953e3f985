import type { CompareAnswer } from "../api/types";
import { formatTime } from "../lib/format";

export function CompareBar({ answer, error }: { answer: CompareAnswer | null; error: Error | null }) {
  if (error) return <div className="banner banner-error">Compare failed: {error.message}</div>;
  if (!answer) return <div className="banner">Comparing…</div>;
  const n = (a: unknown[]) => a.length;
  return (
    <div className="banner banner-compare" data-testid="compare-bar">
      <b>Changes</b> from {formatTime(answer.from)} to {formatTime(answer.to)}:
      <span className="legend added">+{n(answer.nodes.added)} nodes</span>
      <span className="legend removed">−{n(answer.nodes.removed)} nodes</span>
      <span className="legend added">+{n(answer.edges.added)} edges</span>
      <span className="legend removed">−{n(answer.edges.removed)} edges</span>
      <span className="legend added">+{n(answer.columns.added)} columns</span>
      <span className="legend removed">−{n(answer.columns.removed)} columns</span>
      {answer.columns.changed.length > 0 && <span className="legend changed">~{n(answer.columns.changed)} retyped</span>}
    </div>
  );
}
