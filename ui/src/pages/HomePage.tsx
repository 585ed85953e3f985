import { api } from "../api/client";
import type { ListNode } from "../api/types";
import { Link } from "../components/Link";
import { DatasetKindIcon, JobIcon, RunStateBadge } from "../components/Icons";
import { formatDuration, formatTime, timeAgo } from "../lib/format";
import { useAsync } from "../lib/useAsync";
import { nodeHref } from "../model/urlState";
import { jobLabel } from "../model/names";

export function AssetRow({ n }: { n: ListNode }) {
  // an action job named by the Spark integration's rule: what it does, and its application
  const label = n.type === "JOB" ? jobLabel(n.name) : null;
  return (
    <Link href={nodeHref(n.id)} className="asset-row" testId="asset-row">
      <span className={`asset-icon ${n.type === "JOB" ? "is-job" : "is-dataset"}`}>
        {n.type === "JOB" ? <JobIcon /> : <DatasetKindIcon kind={n.kind} />}
      </span>
      <span className="asset-main">
        <span className="asset-name" title={n.name}>
          {label?.app ? label.title : n.name}
        </span>
        <span className="asset-ns">
          {n.namespace}
          {label?.app ? ` · action of ${label.app}` : ""}
        </span>
      </span>
      <span className="asset-meta">
        {n.type === "JOB" ? (
          <>
            <RunStateBadge state={n.latestRun?.state} />
            <span className="muted">{formatDuration(n.latestRun?.durationMs)}</span>
          </>
        ) : (
          <span className="muted">{n.fields?.length ?? 0} columns</span>
        )}
        <span className="muted" title={formatTime(n.updatedAt)}>
          {timeAgo(n.updatedAt)}
        </span>
      </span>
    </Link>
  );
}

export function HomePage() {
  const recent = useAsync((s) => api.recent(20, s), []);
  const namespaces = useAsync((s) => api.namespaces(s), []);
  return (
    <div className="page home">
      <section className="hero">
        <h1>Lineage explorer</h1>
        <p className="muted">
          Every OpenLineage event Headwater received, as a versioned graph of datasets, jobs and columns. Search above, or
          start from a recently updated asset.
        </p>
      </section>
      <div className="home-grid">
        <section className="card">
          <h2>Recently updated</h2>
          {recent.error && <div className="error">Could not load recent assets: {recent.error.message}</div>}
          {recent.data && recent.data.items.length === 0 && (
            <div className="empty">
              No lineage yet. Point an OpenLineage producer at <code>{window.location.origin}/api/v1/lineage</code>.
            </div>
          )}
          <div className="asset-list" data-testid="recent-list">
            {recent.data?.items.map((n) => <AssetRow key={n.id} n={n} />)}
          </div>
        </section>
        <section className="card">
          <h2>Namespaces</h2>
          {namespaces.error && <div className="error">{namespaces.error.message}</div>}
          <div className="ns-list">
            {namespaces.data?.namespaces.map((ns) => (
              <Link key={ns.name} href={`/namespaces/${encodeURIComponent(ns.name)}`} className="ns-row">
                <span className="ns-name">{ns.name}</span>
                <span className="muted">
                  {ns.datasets} {ns.datasets === 1 ? "dataset" : "datasets"} · {ns.jobs} {ns.jobs === 1 ? "job" : "jobs"}
                </span>
              </Link>
            ))}
          </div>
        </section>
      </div>
    </div>
  );
}
