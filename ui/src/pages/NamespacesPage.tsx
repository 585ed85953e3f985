import { useState } from "react";
import { api } from "../api/client";
import { Link } from "../components/Link";
import { formatTime } from "../lib/format";
import { useAsync } from "../lib/useAsync";
import { AssetRow } from "./HomePage";

export function NamespacesPage() {
  const ns = useAsync((s) => api.namespaces(s), []);
  return (
    <div className="page">
      <h1>Namespaces</h1>
      {ns.error && <div className="error">{ns.error.message}</div>}
      <table className="table" data-testid="namespaces">
        <thead>
          <tr>
            <th>Namespace</th>
            <th>Datasets</th>
            <th>Jobs</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {ns.data?.namespaces.map((n) => (
            <tr key={n.name}>
              <td>
                <Link href={`/namespaces/${encodeURIComponent(n.name)}`}>{n.name}</Link>
              </td>
              <td>{n.datasets}</td>
              <td>{n.jobs}</td>
              <td>{formatTime(n.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const PAGE = 50;

export function NamespacePage({ name }: { name: string }) {
  const [dsOffset, setDsOffset] = useState(0);
  const [jobOffset, setJobOffset] = useState(0);
  const datasets = useAsync((s) => api.datasets(name, PAGE, dsOffset, s), [name, dsOffset]);
  const jobs = useAsync((s) => api.jobs(name, PAGE, jobOffset, s), [name, jobOffset]);
  const pager = (offset: number, total: number, set: (n: number) => void) =>
    total > PAGE && (
      <div className="pager">
        <button disabled={offset === 0} onClick={() => set(Math.max(0, offset - PAGE))}>
          Previous
        </button>
        <span className="muted">
          {offset + 1}–{Math.min(total, offset + PAGE)} of {total}
        </span>
        <button disabled={offset + PAGE >= total} onClick={() => set(offset + PAGE)}>
          Next
        </button>
      </div>
    );
  return (
    <div className="page">
      <div className="crumbs">
        <Link href="/namespaces">Namespaces</Link> / <span>{name}</span>
      </div>
      <h1>{name}</h1>
      {datasets.data?.total === 0 && jobs.data?.total === 0 ? (
        <div className="empty" data-testid="no-namespace">
          Headwater holds nothing in a namespace named <code>{name}</code>: no dataset, no job. A namespace is as producers
          name it (<code>s3://bucket</code>, <code>postgres://host:5432</code>, <code>file</code>); see{" "}
          <Link href="/namespaces">the namespaces Headwater holds</Link>.
        </div>
      ) : (
      <div className="home-grid">
        <section className="card">
          <h2>Datasets {datasets.data && <span className="count">{datasets.data.total}</span>}</h2>
          {datasets.error && <div className="error">{datasets.error.message}</div>}
          {datasets.data?.total === 0 && <div className="empty">No datasets in this namespace.</div>}
          <div className="asset-list">{datasets.data?.items.map((n) => <AssetRow key={n.id} n={n} />)}</div>
          {datasets.data && pager(dsOffset, datasets.data.total, setDsOffset)}
        </section>
        <section className="card">
          <h2>Jobs {jobs.data && <span className="count">{jobs.data.total}</span>}</h2>
          {jobs.error && <div className="error">{jobs.error.message}</div>}
          {jobs.data?.total === 0 && <div className="empty">No jobs in this namespace.</div>}
          <div className="asset-list">{jobs.data?.items.map((n) => <AssetRow key={n.id} n={n} />)}</div>
          {jobs.data && pager(jobOffset, jobs.data.total, setJobOffset)}
        </section>
      </div>
      )}
    </div>
  );
}
