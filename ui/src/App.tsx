import { projectFromAddress } from "./api/auth";
import { Header } from "./components/Header";
import { SessionProvider, useProjectContext } from "./components/session";
import { TokenPrompt } from "./components/TokenPrompt";
import { useLocation } from "./lib/router";
import { useUtcSetting } from "./lib/timezone";
import { datasetOfField, isField } from "./model/nodeid";
import { decodeView } from "./model/urlState";
import { AssetPage } from "./pages/AssetPage";
import { CatalogAssetPage } from "./pages/CatalogAssetPage";
import { CatalogPage } from "./pages/CatalogPage";
import { GlossaryPage } from "./pages/GlossaryPage";
import { HomePage } from "./pages/HomePage";
import { NamespacePage, NamespacesPage } from "./pages/NamespacesPage";
import { SearchPage } from "./pages/SearchPage";

function Route({ path, search }: { path: string; search: string }) {
  if (path === "/" || path === "/index.html") return <HomePage />;
  if (path === "/namespaces") return <NamespacesPage />;
  if (path.startsWith("/namespaces/")) return <NamespacePage name={decodeURIComponent(path.slice("/namespaces/".length))} />;
  if (path === "/catalog") return <CatalogPage search={search} />;
  if (path === "/catalog/asset") return <CatalogAssetPage id={new URLSearchParams(search).get("id") ?? ""} />;
  if (path === "/glossary") return <GlossaryPage />;
  if (path === "/search") return <SearchPage q={new URLSearchParams(search).get("q") ?? ""} />;
  if (path === "/asset") {
    const view = decodeView(search);
    if (!view) return <div className="page error">No asset given: expected /asset?node=&lt;node id&gt;.</div>;
    // a column id opens its dataset with the column selected
    if (isField(view.node)) return <AssetPage view={{ ...view, node: datasetOfField(view.node), column: view.node }} />;
    return <AssetPage view={view} />;
  }
  return (
    <div className="page">
      <h1>Not found</h1>
      <p className="muted">There is no page at {path}.</p>
    </div>
  );
}

// a link may carry the project context (?project=): chosen before the first API call
if (typeof window !== "undefined") projectFromAddress(window.location.search);

export function App() {
  const { path, search } = useLocation();
  // every page reads again in another project context
  const project = useProjectContext();
  // every time on the page is shown in the browser's zone or in UTC: re-render when that changes
  const utc = useUtcSetting();
  return (
    <SessionProvider>
      <div className="app" data-utc={utc ? "true" : "false"} data-project={project ?? ""}>
        <Header path={path} />
        <main className="main" key={project ?? ""}>
          <Route path={path} search={search} />
        </main>
        <TokenPrompt />
      </div>
    </SessionProvider>
  );
}
