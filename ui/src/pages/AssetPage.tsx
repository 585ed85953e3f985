// One dataset or job: header and tabs (Lineage, Schema/Job, Runs, History, Events).
import { useCallback } from "react";
import { ApiError, api } from "../api/client";
import { CatalogStrip } from "../components/CatalogStrip";
import { EventsList, JobInfo, RunsTable, SchemaTable, VersionList } from "../components/details";
import { DatasetKindIcon, JobIcon, RunStateBadge } from "../components/Icons";
import { Link } from "../components/Link";
import { LongName } from "../components/LongName";
import { formatDuration, formatTime, parseTimeInput } from "../lib/format";
import { navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { LineageView } from "../lineage/LineageView";
import { assetHref, type Tab, type ViewState } from "../model/urlState";
import { jobLabel } from "../model/names";

const DATASET_TABS: Array<[Tab, string]> = [
  ["lineage", "Lineage"],
  ["schema", "Schema"],
  ["history", "History"],
  ["events", "Events"],
];
const JOB_TABS: Array<[Tab, string]> = [
  ["lineage", "Lineage"],
  ["job", "Job"],
  ["runs", "Runs"],
  ["history", "History"],
  ["events", "Events"],
];

export function AssetPage({ view }: { view: ViewState }) {
  const setView = useCallback(
    (p: Partial<ViewState>) => navigate(assetHref({ ...view, ...p }), !("tab" in p) && !("at" in p)),
    [view],
  );
  const isJob = view.node.startsWith("job:");
  const node = useAsync((s) => api.node(view.node, view.at, s), [view.node, view.at]);
  const tabs = isJob ? JOB_TABS : DATASET_TABS;
  const tab = tabs.some(([t]) => t === view.tab) ? view.tab : "lineage";
  const n = node.data;
  // the same view of now: a link's moment may be before the asset was first seen, or not a time at all
  const now = assetHref({ ...view, at: null, compareFrom: null });
  if (view.at && parseTimeInput(view.at, true) === null) {
    return (
      <div className="page">
        <h1>Not a time</h1>
        <div className="card" data-testid="asset-bad-time">
          <p>
            This link shows <code>{view.node}</code> as of “{view.at}”, but “{view.at}” is not a time.
          </p>
          <p className="muted">
            A time in a link is ISO 8601, with its zone (2026-11-22T17:30:00Z) or without (read as UTC), or epoch
            milliseconds. <Link href={now}>See it as it is now</Link>.
          </p>
        </div>
      </div>
    );
  }
  if (node.error instanceof ApiError && node.error.status === 404) {
    return (
      <div className="page">
        <h1>Not found</h1>
        <div className="card" data-testid="asset-not-found">
          <p>{node.error.message}</p>
          <p className="muted">
            Nothing with the id <code>{view.node}</code> exists{view.at ? ` at ${formatTime(view.at)}` : ""}.{" "}
            {view.at && (
              <>
                <Link href={now}>See it as it is now</Link>,{" "}
              </>
            )}
            {view.at ? "search for it above, or " : "Search for it above, or "}
            <Link href="/">start from the home page</Link>.
          </p>
        </div>
      </div>
    );
  }
  return (
    <div className="asset-page">
      <header className="asset-header">
        <span className={`asset-icon big ${isJob ? "is-job" : "is-dataset"}`}>
          {isJob ? <JobIcon size={24} /> : <DatasetKindIcon kind={n?.kind} size={24} />}
        </span>
        <div className="asset-heading">
          <div className="crumbs">
            <Link href="/namespaces">Namespaces</Link> /{" "}
            <Link href={`/namespaces/${encodeURIComponent(n?.namespace ?? "")}`}>{n?.namespace ?? "…"}</Link>
          </div>
          {isJob && n && jobLabel(n.name).app ? (
            // one display label per job: the graph's ("write employee_compensation"), the real name below
            <>
              <h1 data-testid="asset-label" title={n.name}>
                {jobLabel(n.name).title}
              </h1>
              <div className="muted small mono asset-fullname" data-testid="asset-name">
                <LongName name={n.name} />
              </div>
            </>
          ) : (
            <h1 data-testid="asset-name">
              <LongName name={n?.name ?? view.node} />
            </h1>
          )}
        </div>
        <div className="asset-facts">
          <span className={`pill pill-${isJob ? "job" : "dataset"}`}>{isJob ? "job" : (n?.kind ?? "dataset")}</span>
          {isJob && n && (
            <>
              <RunStateBadge state={n.latestRun?.state} />
              <span className="muted">{formatDuration(n.latestRun?.durationMs)}</span>
            </>
          )}
          {!isJob && n && <span className="muted">{n.fields?.length ?? 0} columns</span>}
          {n?.deleted && <span className="pill pill-removed">dropped</span>}
          {view.at ? (
            <>
              <span className="pill pill-asof" data-testid="asof-label" title="Everything on this page is as it was at this time">
                as of {formatTime(view.at)}
              </span>
              <span className="muted">last changed before then {formatTime(n?.updatedAt)}</span>
            </>
          ) : (
            <span className="muted">updated {formatTime(n?.updatedAt)}</span>
          )}
        </div>
      </header>
      {!isJob && n && <CatalogStrip nodeId={view.node} />}
      {node.error && <div className="banner banner-error">{node.error.message}</div>}
      <nav className="tabs" role="tablist">
        {tabs.map(([t, label]) => (
          <button key={t} role="tab" aria-selected={t === tab} className={t === tab ? "active" : ""} onClick={() => setView({ tab: t })} data-testid={`tab-${t}`}>
            {label}
          </button>
        ))}
      </nav>
      <div className={`tab-body tab-${tab}`}>
        {tab === "lineage" && <LineageView view={view} setView={setView} />}
        {tab === "schema" && <div className="card">{n ? <SchemaTable fields={n.fields} /> : "Loading…"}</div>}
        {tab === "job" && <div className="card">{n?.type === "JOB" ? <JobInfo node={n} /> : "Loading…"}</div>}
        {tab === "runs" && (
          <div className="card">
            <RunsTable jobId={view.node} />
          </div>
        )}
        {tab === "history" && (
          <div className="card">
            <p className="muted">Pick a version to see the lineage graph as it was then.</p>
            <VersionList nodeId={view.node} activeAt={view.at} onPick={(v) => setView({ at: v.validFrom, tab: "lineage" })} />
          </div>
        )}
        {tab === "events" && (
          <div className="card">
            <EventsList nodeId={view.node} />
          </div>
        )}
      </div>
    </div>
  );
}
