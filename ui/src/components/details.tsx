// Building blocks shared by the asset tabs and the details pane: schema, versions, runs, events, facets.
import { useEffect, useState } from "react";
import { createPortal } from "react-dom";
import { api } from "../api/client";
import type { DatasetDetails, EventSummary, Field, JobDetails, Run, Version } from "../api/types";
import { CodeBlock } from "../lib/highlight";
import { formatDuration, formatTime } from "../lib/format";
import { useAsync } from "../lib/useAsync";
import { RunStateBadge } from "./Icons";
import { Link } from "./Link";
import { NodeRef, NodeRefList, refNames } from "./refs";
import { jobLabel } from "../model/names";
import { nodeHref } from "../model/urlState";
import { versionDiff, type VersionDiff } from "../model/versions";

export function SchemaTable({ fields, testId = "schema-table" }: { fields: Field[] | undefined; testId?: string }) {
  if (!fields?.length) return <div className="empty">No schema recorded for this dataset.</div>;
  const rows: Array<{ f: Field; depth: number; path: string }> = [];
  const walk = (fs: Field[], depth: number, prefix: string) => {
    for (const f of fs) {
      const path = prefix ? `${prefix}.${f.name}` : f.name;
      rows.push({ f, depth, path });
      if (f.fields?.length) walk(f.fields, depth + 1, path);
    }
  };
  walk(fields, 0, "");
  return (
    <table className="table schema" data-testid={testId}>
      <thead>
        <tr>
          <th>Column</th>
          <th>Type</th>
          <th>Description</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ f, depth, path }) => (
          <tr key={path}>
            <td style={{ paddingLeft: 10 + depth * 16 }} className="mono">
              {depth > 0 && <span className="muted">↳ </span>}
              {f.name}
            </td>
            <td className="mono type">{f.type ?? "—"}</td>
            <td>{f.description ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Who made a version: the run, linked to its job's runs. */
function RunRef({ runId }: { runId: string }) {
  const r = useAsync((sig) => api.run(runId, sig), [runId]);
  const short = runId.slice(0, 8);
  if (!r.data) return <span className="mono small muted">run {short}</span>;
  return (
    <span className="small" data-testid="version-run">
      made by run{" "}
      <Link href={nodeHref(r.data.job, { tab: "runs" })} title={`Run ${runId} of ${r.data.job}`}>
        <span className="mono">{short}</span>
      </Link>{" "}
      of <NodeRef id={r.data.job} />
    </span>
  );
}

/** Dataset links in a sentence: "a.csv, b.csv". */
function NodeRefInline({ ids }: { ids: string[] }) {
  return (
    <>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ", "}
          <NodeRef id={id} testId="diff-ref" />
        </span>
      ))}
    </>
  );
}

function DiffLine({ d }: { d: VersionDiff }) {
  const parts: React.ReactNode[] = [];
  if (d.added.length) parts.push(<span key="a" className="diff-added" data-testid="diff-added">+ {d.added.join(", ")}</span>);
  if (d.removed.length) parts.push(<span key="r" className="diff-removed" data-testid="diff-removed">− {d.removed.join(", ")}</span>);
  for (const t of d.retyped)
    parts.push(
      <span key={`t${t.name}`} className="diff-changed" data-testid="diff-retyped">
        {t.name}: {t.from ?? "?"} → {t.to ?? "?"}
      </span>,
    );
  for (const [key, label, set] of [
    ["r", "reads", d.reads],
    ["w", "writes", d.writes],
  ] as const) {
    if (set?.added.length)
      parts.push(
        <span key={`${key}+`} className="diff-added" data-testid={`diff-${label}-added`}>
          + {label} <NodeRefInline ids={set.added} />
        </span>,
      );
    if (set?.removed.length)
      parts.push(
        <span key={`${key}-`} className="diff-removed" data-testid={`diff-${label}-removed`}>
          − {label} <NodeRefInline ids={set.removed} />
        </span>,
      );
  }
  if (d.facets.length) parts.push(<span key="f" className="diff-facets" data-testid="diff-facets">facets changed: {d.facets.join(", ")}</span>);
  if (!parts.length) return null;
  return <span className="version-diff">{parts}</span>;
}

export function VersionList({
  nodeId,
  onPick,
  activeAt,
}: {
  nodeId: string;
  onPick: (v: Version) => void;
  activeAt: string | null;
}) {
  const h = useAsync((s) => api.history(nodeId, s), [nodeId]);
  if (h.error) return <div className="error">Could not load history: {h.error.message}</div>;
  if (!h.data) return <div className="muted pad">Loading history…</div>;
  if (!h.data.versions.length) return <div className="empty">No versions recorded.</div>;
  const versions = h.data.versions;
  return (
    <ol className="versions" data-testid="version-list">
      {versions.map((v, i) => {
        const active = activeAt !== null && v.validFrom <= activeAt && (v.validTo === null || activeAt < v.validTo);
        const diff = versionDiff(v, versions[i + 1] ?? null, !nodeId.startsWith("job:"));
        return (
          <li key={v.version} className={active ? "active" : ""} data-testid="version">
            <div className="version">
              <span className="version-head">
                <b>{i === 0 ? "Current version" : `Version ${versions.length - i}`}</b>
                <span className="muted">{formatTime(v.validFrom)}</span>
              </span>
              <span className="version-changes">
                {(v.changes ?? []).map((c) => (
                  <span key={c} className={`pill pill-change-${c}`}>
                    {c}
                  </span>
                ))}
                {nodeId.startsWith("job:") ? (
                  v.inputs && (
                    <span className="muted" data-testid="version-io" title="Datasets this version of the job reads and writes">
                      reads {v.inputs.length} · writes {v.outputs?.length ?? 0}
                    </span>
                  )
                ) : (
                  <span className="muted">{v.fields.length} columns</span>
                )}
              </span>
              <DiffLine d={diff} />
              <span className="version-foot">
                {v.runId ? <RunRef runId={v.runId} /> : <span className="muted small">no run recorded</span>}
                <button className="tb-btn small" onClick={() => onPick(v)} data-testid="version-item" title="Open the lineage graph as it was at this version">
                  {active ? "Viewing this version" : "View lineage at this version"}
                </button>
              </span>
            </div>
          </li>
        );
      })}
    </ol>
  );
}

export function RunsTable({ jobId, compact = false }: { jobId: string; compact?: boolean }) {
  const [offset, setOffset] = useState(0);
  const limit = compact ? 10 : 50;
  const r = useAsync((s) => api.runs(jobId, limit, offset, s), [jobId, offset]);
  const [open, setOpen] = useState<string | null>(null);
  if (r.error) return <div className="error">Could not load runs: {r.error.message}</div>;
  if (!r.data) return <div className="muted pad">Loading runs…</div>;
  if (!r.data.runs.length) return <div className="empty">No runs recorded.</div>;
  const row = (run: Run) => (
    <tbody key={run.runId}>
      <tr
        className="run-row"
        onClick={() => setOpen(open === run.runId ? null : run.runId)}
        onKeyDown={(e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            setOpen(open === run.runId ? null : run.runId);
          }
        }}
        tabIndex={0}
        aria-expanded={open === run.runId}
        data-testid="run-row"
      >
        <td>
          <RunStateBadge state={run.state} />
        </td>
        <td>{formatTime(run.startedAt)}</td>
        {!compact && <td>{formatTime(run.endedAt)}</td>}
        <td>{formatDuration(run.durationMs)}</td>
        {!compact && <td className="mono small">{run.runId}</td>}
      </tr>
      {(run.errorMessage || open === run.runId) && (
        <tr className="run-detail">
          <td colSpan={compact ? 3 : 5}>
            {run.errorMessage && <div className="run-error">{run.errorMessage}</div>}
            {open === run.runId && run.stackTrace && <pre className="code small">{run.stackTrace}</pre>}
            {open === run.runId && compact && <div className="mono small muted">run {run.runId}</div>}
            {open === run.runId && (
              <dl className="kv run-refs" data-testid="run-refs">
                <dt>Read</dt>
                <dd>
                  <NodeRefList ids={run.inputs} empty="nothing recorded" />
                </dd>
                <dt>Wrote</dt>
                <dd>
                  <NodeRefList ids={run.outputs} empty="nothing recorded" />
                </dd>
                {run.parentJob && (
                  <>
                    <dt>Parent</dt>
                    <dd>
                      <NodeRef id={run.parentJob} />
                    </dd>
                  </>
                )}
              </dl>
            )}
          </td>
        </tr>
      )}
    </tbody>
  );
  return (
    <div>
      <table className="table runs" data-testid="runs-table">
        <thead>
          <tr>
            <th>State</th>
            <th>Started</th>
            {!compact && <th>Ended</th>}
            <th>Duration</th>
            {!compact && <th>Run id</th>}
          </tr>
        </thead>
        {r.data.runs.map(row)}
      </table>
      {r.data.total > limit && (
        <div className="pager">
          <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - limit))} aria-label="Newer runs">
            Newer
          </button>
          <span className="muted">
            {offset + 1}–{Math.min(r.data.total, offset + limit)} of {r.data.total}
          </span>
          <button disabled={offset + limit >= r.data.total} onClick={() => setOffset(offset + limit)} aria-label="Older runs">
            Older
          </button>
        </div>
      )}
    </div>
  );
}

function EventItem({ ev }: { ev: EventSummary }) {
  const [open, setOpen] = useState(false);
  return (
    <li className="event" data-testid="event-item">
      <button className="event-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={`pill pill-event-${(ev.eventType ?? ev.kind).toLowerCase()}`}>{ev.eventType ?? ev.kind}</span>
        <span className="mono">{formatTime(ev.eventTime)}</span>
        <span className="muted ellipsis">{ev.job ?? ""}</span>
        <span className="muted small">received {formatTime(ev.receivedAt)}</span>
      </button>
      {open && <CodeBlock code={JSON.stringify(ev.event, null, 2)} language="json" testId="event-json" />}
    </li>
  );
}

export function EventsList({ nodeId }: { nodeId: string }) {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const cursor = cursors[cursors.length - 1];
  const r = useAsync((s) => api.events(nodeId, 25, cursor, s), [nodeId, cursor]);
  if (r.error) return <div className="error">Could not load events: {r.error.message}</div>;
  if (!r.data) return <div className="muted pad">Loading events…</div>;
  if (!r.data.events.length) return <div className="empty">No events touched this asset.</div>;
  return (
    <div>
      <ul className="events" data-testid="events-list">
        {r.data.events.map((ev) => (
          <EventItem key={ev.id} ev={ev} />
        ))}
      </ul>
      <div className="pager">
        <button disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))} aria-label="Newer events">
          Newer
        </button>
        <button disabled={!r.data.nextCursor} onClick={() => setCursors([...cursors, r.data!.nextCursor])} aria-label="Older events">
          Older
        </button>
      </div>
    </div>
  );
}

export function FacetsBlock({ facets }: { facets: Record<string, unknown> | undefined }) {
  const names = Object.keys(facets ?? {}).sort();
  if (!names.length) return <div className="muted">No facets.</div>;
  return (
    <div className="facets">
      {names.map((n) => (
        <details key={n} className="facet">
          <summary className="mono">{n}</summary>
          <CodeBlock code={JSON.stringify(facets![n], null, 2)} language="json" />
        </details>
      ))}
    </div>
  );
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

/** SQL text, source code and its location from a job's standard facets. */
export function jobCode(facets: Obj | undefined): {
  sql: string | null;
  dialect: string | null;
  code: string | null;
  language: string | null;
  location: { type: string | null; url: string | null; repoUrl: string | null; path: string | null; version: string | null } | null;
} {
  const f = facets ?? {};
  const sql = obj(f.sql);
  const sc = obj(f.sourceCode);
  const loc = obj(f.sourceCodeLocation);
  return {
    sql: str(sql?.query),
    dialect: str(sql?.dialect),
    code: str(sc?.sourceCode),
    language: str(sc?.language),
    location: loc
      ? { type: str(loc.type), url: str(loc.url), repoUrl: str(loc.repoUrl), path: str(loc.path), version: str(loc.version) }
      : null,
  };
}

const LANGS: Record<string, string> = { sql: "sql", json: "json", python: "python", java: "java", scala: "scala" };

/** The line of the job's code that ran a run's action (the agent's `headwater_callSite` run facet). */
export function callSiteOf(facets: Obj | undefined): { file: string; line: number; function: string | null } | null {
  const f = obj(facets?.headwater_callSite);
  const file = str(f?.file);
  const line = typeof f?.line === "number" && Number.isInteger(f.line) && f.line > 0 ? f.line : null;
  return file && line ? { file, line, function: str(f?.function) } : null;
}

/** `file:///jobs/a%20b.py` -> `/jobs/a b.py` (null when not a file URL). */
function filePath(url: string | null): string | null {
  if (!url?.startsWith("file://")) return null;
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
}

/**
 * A code block with a button that shows it at full width, over the page (a side pane is too narrow
 * for most lines of a script or a query); Esc or a click beside it closes the overlay.
 */
function WideCode(props: Parameters<typeof CodeBlock>[0] & { title: string }) {
  const [wide, setWide] = useState(false);
  useEffect(() => {
    if (!wide) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      setWide(false);
    };
    // before the lineage view's own Esc (which closes panes)
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [wide]);
  const { title, ...block } = props;
  return (
    <div className="code-wrap">
      <button className="tb-btn code-widen" onClick={() => setWide(true)} data-testid={`${block.testId}-wide`} title="Show the code at full width">
        ⤢ Full width
      </button>
      <CodeBlock {...block} />
      {wide &&
        createPortal(
          <div className="modal-backdrop" onClick={() => setWide(false)} data-testid={`${block.testId}-overlay`}>
            <div className="code-overlay" role="dialog" aria-label={title} onClick={(e) => e.stopPropagation()}>
              <div className="code-overlay-head">
                <b>{title}</b>
                <button className="icon-btn" onClick={() => setWide(false)} aria-label="Close">
                  ✕
                </button>
              </div>
              <CodeBlock {...block} testId={`${block.testId}-full`} />
            </div>
          </div>,
          document.body,
        )}
    </div>
  );
}

/** The job's source, highlighted, with the line that ran its latest run's action marked (when in this file). */
function SourceCode({ code, language, scriptUrl, runId }: { code: string; language: string | null; scriptUrl: string | null; runId: string | null }) {
  const run = useAsync((sig) => (runId ? api.run(runId, sig) : Promise.resolve(null)), [runId]);
  const site = callSiteOf(run.data?.facets);
  const script = filePath(scriptUrl);
  const here = site !== null && (script === null || script === site.file);
  const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);
  return (
    <>
      <h4>Source code {language && <span className="muted small">({language})</span>}</h4>
      {site && (
        <div className="call-site" data-testid="job-call-site">
          The latest run's action was called at{" "}
          <b className="mono" title={site.file}>
            {here ? `line ${site.line}` : `${site.file}:${site.line}`}
          </b>
          {here && script ? ` of ${base(script)}` : ""}
          {site.function && site.function !== "<module>" ? (
            <>
              {" "}
              in <span className="mono">{site.function}()</span>
            </>
          ) : null}
          {here ? " (marked below)." : "."}
        </div>
      )}
      <WideCode
        title="Source code"
        code={code}
        language={LANGS[(language ?? "").toLowerCase()] ?? "plain"}
        testId="job-code"
        lineNumbers
        mark={here && site ? site.line : null}
      />
    </>
  );
}

export function JobInfo({ node }: { node: JobDetails }) {
  const c = jobCode(node.facets);
  const doc = str(obj(node.facets?.documentation)?.description);
  return (
    <div className="job-info" data-testid="job-info">
      <dl className="kv">
        <dt>Namespace</dt>
        <dd className="mono">{node.namespace}</dd>
        <dt>Name</dt>
        <dd className="mono">{node.name}</dd>
        <dt>Type</dt>
        <dd>
          {[node.jobType?.integration, node.jobType?.processingType, node.jobType?.jobType].filter(Boolean).join(" · ") || "—"}
          {(node.jobType?.processingType ?? "").toUpperCase() === "STREAMING" && (
            <span className="pill pill-stream" data-testid="job-streaming-badge" title="jobType facet: processingType STREAMING">
              streaming
            </span>
          )}
        </dd>
        {node.parent && (
          <>
            <dt>Parent</dt>
            <dd>
              <NodeRef id={node.parent} testId="job-parent" />
            </dd>
          </>
        )}
        <dt>Reads</dt>
        <dd>
          <NodeRefList ids={node.inputs} testId="job-inputs" />
        </dd>
        <dt>Writes</dt>
        <dd>
          <NodeRefList ids={node.outputs} testId="job-outputs" />
        </dd>
        <ChildJobs node={node} />
        <dt>Latest run</dt>
        <dd>
          <RunStateBadge state={node.latestRun?.state} /> {formatDuration(node.latestRun?.durationMs)}
        </dd>
        {doc && (
          <>
            <dt>Description</dt>
            <dd>{doc}</dd>
          </>
        )}
      </dl>
      {c.sql && (
        <>
          <h4>SQL {c.dialect && <span className="muted small">({c.dialect})</span>}</h4>
          <WideCode title="SQL" code={c.sql} language="sql" testId="job-sql" />
        </>
      )}
      {c.code && <SourceCode code={c.code} language={c.language} scriptUrl={c.location?.url ?? null} runId={node.latestRun?.runId ?? null} />}
      {c.location && (
        <>
          <h4>Source location</h4>
          <dl className="kv">
            {c.location.type && (
              <>
                <dt>Type</dt>
                <dd>{c.location.type}</dd>
              </>
            )}
            {(c.location.url || c.location.repoUrl) && (
              <>
                <dt>Repository</dt>
                <dd className="mono break">{c.location.url ?? c.location.repoUrl}</dd>
              </>
            )}
            {c.location.path && (
              <>
                <dt>Path</dt>
                <dd className="mono break">{c.location.path}</dd>
              </>
            )}
            {c.location.version && (
              <>
                <dt>Version</dt>
                <dd className="mono">{c.location.version}</dd>
              </>
            )}
          </dl>
        </>
      )}
      {!c.sql && !c.code && !c.location && <div className="muted">No SQL or source code facets on this job.</div>}
    </div>
  );
}

export function DatasetInfo({ node }: { node: DatasetDetails }) {
  const source = obj(node.facets?.dataSource);
  const doc = str(obj(node.facets?.documentation)?.description);
  return (
    <dl className="kv" data-testid="dataset-info">
      <dt>Namespace</dt>
      <dd className="mono break">{node.namespace}</dd>
      <dt>Name</dt>
      <dd className="mono break">{node.name}</dd>
      <dt>Kind</dt>
      <dd>{node.kind ?? "other"}</dd>
      {source && (
        <>
          <dt>Source</dt>
          <dd className="mono break">{str(source.uri) ?? str(source.name) ?? "—"}</dd>
        </>
      )}
      {doc && (
        <>
          <dt>Description</dt>
          <dd>{doc}</dd>
        </>
      )}
      <dt>Updated</dt>
      <dd>{formatTime(node.updatedAt)}</dd>
      {node.producers && (
        <>
          <dt>Written by</dt>
          <dd>
            <NodeRefList ids={node.producers} testId="written-by" />
          </dd>
        </>
      )}
      {node.consumers && (
        <>
          <dt>Read by</dt>
          <dd>
            <NodeRefList ids={node.consumers} testId="read-by" />
          </dd>
        </>
      )}
    </dl>
  );
}

/** A job's children (the job details' `children`: jobs whose runs name this job's run as parent). */
function ChildJobs({ node }: { node: JobDetails }) {
  const ids = node.children ?? [];
  if (!ids.length) return null;
  // a Spark application's children are its actions (named app.<action>.<output>)
  const actions = ids.every((id) => jobLabel(refNames(id).full).app === node.name);
  return (
    <>
      <dt>{actions ? "Actions" : "Child jobs"}</dt>
      <dd>
        <NodeRefList ids={ids} testId="job-children" />
      </dd>
    </>
  );
}
