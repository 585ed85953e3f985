import { api } from "../api/client";
import { Link } from "../components/Link";
import { ResultIcon, resultHref } from "../components/SearchBox";
import { formatTime } from "../lib/format";
import { useAsync } from "../lib/useAsync";

export function SearchPage({ q }: { q: string }) {
  const res = useAsync((s) => (q ? api.search(q, 100, s) : Promise.resolve({ results: [] })), [q]);
  return (
    <div className="page">
      <h1>
        Results for “{q}” {res.data && <span className="count">{res.data.results.length}</span>}
      </h1>
      {res.error && <div className="error">{res.error.message}</div>}
      {!q ? (
        <p className="muted">Type a part of a dataset's, a job's or a column's name in the search box above.</p>
      ) : !res.data && !res.error ? (
        <p className="muted" data-testid="search-loading">Searching…</p>
      ) : res.data && res.data.results.length === 0 ? (
        // nothing found: say so, and what to try (names are matched by a part of them)
        <div className="empty" data-testid="search-empty">
          <p>Nothing matches “{q}”.</p>
          <p className="muted">
            Search looks for a part of a name of a dataset, a job or a column: try a shorter part (“payroll” rather than
            “payroll_daily_v2”), or <Link href="/namespaces">browse the namespaces</Link>.
          </p>
        </div>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th>Namespace</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {res.data?.results.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link href={resultHref(r)} className="with-icon">
                    <ResultIcon type={r.type} />
                    {r.type === "FIELD" ? `${r.name} · ${r.field}` : r.name}
                  </Link>
                </td>
                <td>{r.type.toLowerCase()}</td>
                <td>{r.namespace}</td>
                <td className="nowrap">{formatTime(r.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
