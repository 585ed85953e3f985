// The domains' glossaries: each term and its definition, the assets that carry it (a link to the
// catalog filtered by the term), and for a domain's project owner a form to define a term.
import { useState } from "react";
import { catalog, catalogHref, type Domain } from "../api/catalog";
import { Link } from "../components/Link";
import { useSession } from "../components/session";
import { useAsync } from "../lib/useAsync";

function DomainGlossary({ domain, mayDefine }: { domain: Domain; mayDefine: boolean }) {
  const [tick, setTick] = useState(0);
  const terms = useAsync((s) => catalog.glossary(domain.id, s), [domain.id, tick]);
  const [term, setTerm] = useState("");
  const [definition, setDefinition] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="card" data-testid="glossary-domain" data-domain={domain.id}>
      <h2>
        {domain.name || domain.id} <span className="muted small">{domain.id}</span>
      </h2>
      {terms.error && <div className="banner banner-error">{terms.error.message}</div>}
      {terms.data && terms.data.terms.length === 0 && <p className="muted">No terms yet.</p>}
      <dl className="glossary">
        {(terms.data?.terms ?? []).map((t) => (
          <div key={t.term} data-testid="glossary-term" data-term={t.term}>
            <dt>
              <Link href={catalogHref({ term: t.term })} testId="glossary-term-link">
                {t.term}
              </Link>
            </dt>
            <dd>
              {t.definition} <span className="muted small">({t.updatedBy})</span>
            </dd>
          </div>
        ))}
      </dl>
      {mayDefine && (
        <form
          className="term-form"
          onSubmit={(e) => {
            e.preventDefault();
            setError(null);
            catalog.setTerm(domain.id, term.trim(), definition).then(
              () => {
                setTerm("");
                setDefinition("");
                setTick((x) => x + 1);
              },
              (err: Error) => setError(err.message),
            );
          }}
        >
          <input placeholder="term" aria-label="Term" value={term} onChange={(e) => setTerm(e.target.value)} required data-testid="term-name" />
          <input placeholder="definition" aria-label="Definition" value={definition} onChange={(e) => setDefinition(e.target.value)} data-testid="term-definition" />
          <button className="tb-btn primary" type="submit" data-testid="term-save">
            Define
          </button>
          {error && <div className="banner banner-error">{error}</div>}
        </form>
      )}
    </section>
  );
}

export function GlossaryPage() {
  const { me } = useSession();
  const domains = useAsync((s) => catalog.domains(s), []);
  const projects = useAsync((s) => catalog.projects(s), []);
  const ownsIn = (domain: string) =>
    Boolean(me?.admin) || (projects.data?.projects ?? []).some((p) => p.domain === domain && p.role === "owner");
  return (
    <div className="page glossary-page">
      <h1>Glossary</h1>
      {domains.error && <div className="banner banner-error">{domains.error.message}</div>}
      {domains.data && domains.data.domains.length === 0 && (
        // nothing yet: who makes domains, and how (there is no form for it in the UI)
        <div className="empty" data-testid="glossary-empty">
          No domains yet. An admin (the server's write token) creates them with <code>POST /api/v1/catalog/domains</code>{" "}
          (docs/catalog.md); then each domain's terms are listed here, and an owner of one of its projects defines them.
        </div>
      )}
      {(domains.data?.domains ?? []).map((d) => (
        <DomainGlossary key={d.id} domain={d} mayDefine={ownsIn(d.id)} />
      ))}
    </div>
  );
}
