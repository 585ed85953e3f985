// The catalog's search: the assets the caller may see (members: their inventory too; everyone else:
// published assets only, the server decides), filtered by text, owning project, state, glossary term
// and tag (GET /catalog/assets); the filters are kept in the address.
import { useEffect, useState } from "react";
import { catalog, catalogAssetHref, catalogHref, roleIn, type AssetFilter, type AssetState } from "../api/catalog";
import { StateBadge, TermChips } from "../components/catalog";
import { Link } from "../components/Link";
import { useSession } from "../components/session";
import { formatTime } from "../lib/format";
import { navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";

const STATES: AssetState[] = ["inventory", "published", "unpublished"];

function filterOf(search: string): AssetFilter {
  const q = new URLSearchParams(search);
  const state = q.get("state") ?? "";
  return {
    q: q.get("q") ?? "",
    ownerProject: q.get("ownerProject") ?? "",
    state: STATES.includes(state as AssetState) ? (state as AssetState) : "",
    term: q.get("term") ?? "",
    tag: q.get("tag") ?? "",
  };
}

/**
 * The subscriptions of the caller's projects: the requests waiting for their decision (as an owner of the
 * asset's project) and their own requests, each a link to the asset's page where it is decided.
 */
function SubscriptionsPanel() {
  const { me } = useSession();
  const subs = useAsync((s) => catalog.subscriptions(s), []);
  const all = subs.data?.subscriptions ?? [];
  if (!me || me.user === "anonymous" || !all.length) return null;
  const waiting = all.filter((x) => x.state === "requested" && roleIn(me, x.assetProject) === "owner");
  const mine = all.filter((x) => roleIn(me, x.project) !== null && !waiting.includes(x));
  const line = (x: (typeof all)[number]) => (
    <li key={x.id} data-testid="subscription-item" data-state={x.state}>
      <Link href={catalogAssetHref(x.asset)}>{x.assetName}</Link> <span className="muted">({x.assetProject})</span> → {x.project} at{" "}
      <b>{x.target}</b> <span className={`pill pill-sub-${x.state}`}>{x.state}</span>
    </li>
  );
  return (
    <div className="card" data-testid="subscriptions-panel">
      {waiting.length > 0 && (
        <>
          <h2>Waiting for your decision</h2>
          <ul data-testid="subscriptions-waiting">{waiting.map(line)}</ul>
        </>
      )}
      {mine.length > 0 && (
        <>
          <h2>Your projects' subscriptions</h2>
          <ul>{mine.map(line)}</ul>
        </>
      )}
    </div>
  );
}

export function CatalogPage({ search }: { search: string }) {
  const filter = filterOf(search);
  const key = JSON.stringify(filter);
  const [text, setText] = useState(filter.q ?? "");
  const [tag, setTag] = useState(filter.tag ?? "");
  useEffect(() => {
    setText(filter.q ?? "");
    setTag(filter.tag ?? "");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const found = useAsync((s) => catalog.assets(filter, s), [key]);
  const projects = useAsync((s) => catalog.projects(s), []);
  const terms = useAsync(async (s) => {
    const { domains } = await catalog.domains(s);
    const all = await Promise.all(domains.map((d) => catalog.glossary(d.id, s)));
    return [...new Set(all.flatMap((g) => g.terms.map((t) => t.term)))].sort();
  }, []);
  const go = (p: Partial<AssetFilter>) => navigate(catalogHref({ ...filter, ...p }), true);
  const { me } = useSession();

  return (
    <div className="page catalog-page">
      <h1>Catalog</h1>
      <form
        className="card catalog-filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ q: text.trim(), tag: tag.trim() });
        }}
      >
        <input placeholder="Search assets: name, business name, description" aria-label="Search assets" value={text} onChange={(e) => setText(e.target.value)} data-testid="catalog-q" />
        <select aria-label="Owning project" value={filter.ownerProject} onChange={(e) => go({ ownerProject: e.target.value })} data-testid="filter-project">
          <option value="">any project</option>
          {(projects.data?.projects ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
        <select aria-label="State" value={filter.state} onChange={(e) => go({ state: e.target.value as AssetState | "" })} data-testid="filter-state">
          <option value="">any state</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <select aria-label="Glossary term" value={filter.term} onChange={(e) => go({ term: e.target.value })} data-testid="filter-term">
          <option value="">any glossary term</option>
          {(terms.data ?? []).map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <input placeholder="tag" aria-label="Tag" value={tag} onChange={(e) => setTag(e.target.value)} data-testid="filter-tag" className="tag-input" />
        <button type="submit" className="tb-btn primary" data-testid="catalog-search">
          Search
        </button>
      </form>
      <SubscriptionsPanel />
      {found.error && <div className="banner banner-error">{found.error.message}</div>}
      {found.loading && !found.data && <p className="muted">Loading…</p>}
      {found.data && (
        <div className="card">
          <p className="muted" data-testid="catalog-count">
            {found.data.assets.length} {found.data.assets.length === 1 ? "asset" : "assets"}
          </p>
          {found.data.assets.length === 0 && (
            // nothing to show: say why, and what to do next
            <div className="empty" data-testid="catalog-empty">
              {Object.values(filter).some(Boolean) ? (
                <>
                  No asset matches these filters. <Link href="/catalog">Clear the filters</Link>.
                </>
              ) : !me || me.user === "anonymous" ? (
                <>
                  No published assets yet. Members of a project also see its inventory: <b>Sign in</b> (top right) with
                  your token. A dataset's page offers to add it to your project's inventory.
                </>
              ) : (
                <>No assets yet. Add a dataset to your project's inventory from its page (search for it above).</>
              )}
            </div>
          )}
          {found.data.assets.length > 0 && (
            <table className="table" data-testid="catalog-results">
              <thead>
                <tr>
                  <th>Asset</th>
                  <th>Project</th>
                  <th>State</th>
                  <th>Glossary terms</th>
                  <th>Tags</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {found.data.assets.map((a) => (
                  <tr key={a.id} data-testid="catalog-row" data-asset={a.id} data-name={a.name} data-state={a.state}>
                    <td>
                      <Link href={catalogAssetHref(a.id)} testId="catalog-link">
                        {a.metadata.businessName || a.name}
                      </Link>
                      {a.metadata.businessName && <div className="muted small">{a.name}</div>}
                    </td>
                    <td>{a.project}</td>
                    <td>
                      <StateBadge state={a.state} />
                    </td>
                    <td>
                      <TermChips items={a.metadata.glossaryTerms} kind="term" />
                    </td>
                    <td>
                      <TermChips items={a.metadata.tags} kind="tag" />
                    </td>
                    <td className="muted">{formatTime(a.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </div>
  );
}
