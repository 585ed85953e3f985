// One catalog asset: its business metadata (edited in place by the owning project's owners and
// contributors), state and the publish action, its lineage nodes, and its subscriptions: a consumer
// requests one, the asset project's owner approves or rejects it.
import { useState } from "react";
import {
  canEdit,
  catalog,
  catalogHref,
  roleIn,
  type Asset,
  type MetadataEdit,
  type Subscription,
} from "../api/catalog";
import { DescriptionHtml, StateBadge, TermChips } from "../components/catalog";
import { Link } from "../components/Link";
import { useSession } from "../components/session";
import { formatTime } from "../lib/format";
import { useAsync } from "../lib/useAsync";
import { nodeHref } from "../model/urlState";

const list = (s: string): string[] =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** Custom forms as lines `form.key = value` (the form name ends at the first dot). */
export function formsToText(forms: Record<string, Record<string, string>>): string {
  return Object.entries(forms)
    .flatMap(([form, kv]) => Object.entries(kv).map(([k, v]) => `${form}.${k} = ${v}`))
    .join("\n");
}

/** The forms of `formsToText`'s lines; a line that is not `form.key = value` is named in the error. */
export function textToForms(text: string): { forms: Record<string, Record<string, string>>; error: string | null } {
  const forms: Record<string, Record<string, string>> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const eq = line.indexOf("=");
    const dot = line.indexOf(".");
    if (eq < 0 || dot <= 0 || dot > eq) return { forms, error: `Forms, line ${i + 1}: expected form.key = value, got "${line}"` };
    const form = line.slice(0, dot).trim();
    const key = line.slice(dot + 1, eq).trim();
    if (!form || !key) return { forms, error: `Forms, line ${i + 1}: expected form.key = value, got "${line}"` };
    (forms[form] ??= {})[key] = line.slice(eq + 1).trim();
  }
  return { forms, error: null };
}

function MetadataEditor({ asset, onSaved, onCancel }: { asset: Asset; onSaved: (a: Asset) => void; onCancel: () => void }) {
  const m = asset.metadata;
  const [businessName, setBusinessName] = useState(m.businessName ?? "");
  const [description, setDescription] = useState(m.description);
  const [owners, setOwners] = useState(m.owners.join(", "));
  const [terms, setTerms] = useState<string[]>(m.glossaryTerms);
  const [tags, setTags] = useState(m.tags.join(", "));
  const [forms, setForms] = useState(formsToText(m.forms));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const glossary = useAsync((s) => catalog.glossary(asset.domain, s), [asset.domain]);
  const known = glossary.data?.terms.map((t) => t.term) ?? [];
  const all = [...new Set([...known, ...terms])];
  return (
    <form
      className="meta-editor"
      data-testid="metadata-editor"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = textToForms(forms);
        if (parsed.error) {
          setError(parsed.error);
          return;
        }
        const patch: MetadataEdit = {
          forms: parsed.forms,
          businessName: businessName.trim() || null,
          description,
          owners: list(owners),
          glossaryTerms: terms,
          tags: list(tags),
        };
        setBusy(true);
        setError(null);
        catalog.edit(asset.id, patch).then(onSaved, (err: Error) => {
          setError(err.message);
          setBusy(false);
        });
      }}
    >
      <label>
        Business name
        <input value={businessName} onChange={(e) => setBusinessName(e.target.value)} data-testid="edit-business-name" />
      </label>
      <label>
        Description (Markdown)
        <textarea rows={6} value={description} onChange={(e) => setDescription(e.target.value)} data-testid="edit-description" />
      </label>
      <label>
        Owners (comma-separated)
        <input value={owners} onChange={(e) => setOwners(e.target.value)} data-testid="edit-owners" />
      </label>
      <fieldset>
        <legend>Glossary terms</legend>
        {all.length === 0 && <span className="muted">The domain's glossary has no terms yet.</span>}
        {all.map((t) => (
          <label key={t} className="check">
            <input
              type="checkbox"
              checked={terms.includes(t)}
              onChange={(e) => setTerms(e.target.checked ? [...terms, t] : terms.filter((x) => x !== t))}
              data-testid="edit-term"
              data-term={t}
            />
            {t}
          </label>
        ))}
      </fieldset>
      <label>
        Tags (comma-separated)
        <input value={tags} onChange={(e) => setTags(e.target.value)} data-testid="edit-tags" />
      </label>
      <label>
        Custom forms (one <code>form.key = value</code> a line)
        <textarea rows={3} value={forms} onChange={(e) => setForms(e.target.value)} data-testid="edit-forms" />
      </label>
      {error && <div className="banner banner-error" data-testid="edit-error">{error}</div>}
      <div className="modal-actions">
        <button type="button" className="tb-btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="tb-btn primary" disabled={busy} data-testid="edit-save">
          Save
        </button>
      </div>
    </form>
  );
}

function SubscriptionRow({ s, ownerOfAsset, consumer, onChange }: { s: Subscription; ownerOfAsset: boolean; consumer: boolean; onChange: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const act = (a: "approve" | "reject" | "revoke") =>
    catalog.decide(s.id, a).then(onChange, (e: Error) => setError(e.message));
  return (
    <tr data-testid="subscription-row" data-state={s.state} data-project={s.project}>
      <td>{s.project}</td>
      <td>{s.target}</td>
      <td>
        <span className={`pill pill-sub-${s.state}`} data-testid="subscription-state">
          {s.state}
        </span>
      </td>
      <td className="muted">
        {s.requestedBy}, {formatTime(s.requestedAt)}
        {s.reason && <div>“{s.reason}”</div>}
      </td>
      <td>
        {s.targetNode && (
          <Link href={nodeHref(s.targetNode)} testId="subscription-target-link">
            target lineage
          </Link>
        )}
      </td>
      <td>
        {ownerOfAsset && s.state === "requested" && (
          <>
            <button className="tb-btn primary" onClick={() => void act("approve")} data-testid="subscription-approve">
              Approve
            </button>{" "}
            <button className="tb-btn" onClick={() => void act("reject")} data-testid="subscription-reject">
              Reject
            </button>
          </>
        )}
        {s.state === "approved" && (ownerOfAsset || consumer) && (
          <button className="tb-btn" onClick={() => void act("revoke")} data-testid="subscription-revoke">
            Revoke
          </button>
        )}
        {error && <div className="banner banner-error">{error}</div>}
      </td>
    </tr>
  );
}

function SubscribeForm({ asset, onDone }: { asset: Asset; onDone: () => void }) {
  const [target, setTarget] = useState("");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="subscribe-form"
      data-testid="subscribe-form"
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        catalog.subscribe(asset.id, target.trim(), reason).then(onDone, (err: Error) => setError(err.message));
      }}
    >
      <input placeholder="target (environment, database)" aria-label="Subscription target" value={target} onChange={(e) => setTarget(e.target.value)} data-testid="subscribe-target" required />
      <input placeholder="reason" aria-label="Reason" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="subscribe-reason" />
      <button type="submit" className="tb-btn primary" data-testid="subscribe-submit">
        Request subscription
      </button>
      {error && <div className="banner banner-error" data-testid="subscribe-error">{error}</div>}
    </form>
  );
}

/** Every version of the asset: what changed, who, when, and the lineage event it sent. */
function Versions({ id, tick }: { id: string; tick: number }) {
  const v = useAsync((s) => catalog.versions(id, s), [id, tick]);
  if (v.error) return <div className="banner banner-error">{v.error.message}</div>;
  if (!v.data) return <p className="muted">Loading…</p>;
  return (
    <table className="table" data-testid="asset-versions">
      <thead>
        <tr>
          <th>Version</th>
          <th>Change</th>
          <th>State</th>
          <th>By</th>
          <th>When</th>
          <th>Business name</th>
        </tr>
      </thead>
      <tbody>
        {v.data.versions.map((x) => (
          <tr key={x.version} data-testid="asset-version" data-change={x.change}>
            <td>{x.version}</td>
            <td>{x.change}</td>
            <td>{x.state}</td>
            <td>{x.changedBy}</td>
            <td className="muted">{formatTime(x.changedAt)}</td>
            <td>{x.metadata.businessName ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CatalogAssetPage({ id }: { id: string }) {
  const { me, actingProject, role: actingRole } = useSession();
  const [tick, setTick] = useState(0);
  const [editing, setEditing] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const loaded = useAsync((s) => catalog.asset(id, s), [id, tick]);
  const subs = useAsync((s) => catalog.subscriptions(s), [id, tick]);
  const refresh = () => setTick((t) => t + 1);
  const a = loaded.data;
  if (loaded.error) {
    return (
      <div className="page">
        <h1>Asset</h1>
        <div className="banner banner-error" data-testid="catalog-asset-error">
          {loaded.error.message}
        </div>
        <Link href={catalogHref()}>Back to the catalog</Link>
      </div>
    );
  }
  if (!a) return <div className="page muted">Loading…</div>;
  const role = roleIn(me, a.project);
  const editor = a.access === "member" && canEdit(role);
  const ownerOfAsset = role === "owner";
  const mine = (subs.data?.subscriptions ?? []).filter((s) => s.asset === a.id);
  const consumerCan = a.state === "published" && actingProject !== null && actingProject !== a.project && canEdit(actingRole);
  const act = (p: Promise<Asset>) =>
    p.then(
      () => {
        setActionError(null);
        refresh();
      },
      (e: Error) => setActionError(e.message),
    );
  const m = a.metadata;
  return (
    <div className="page catalog-asset" data-testid="catalog-asset" data-asset={a.id} data-state={a.state}>
      <div className="crumbs">
        <Link href={catalogHref()}>Catalog</Link> / <Link href={catalogHref({ ownerProject: a.project })}>{a.project}</Link>
      </div>
      <h1>
        <span data-testid="catalog-asset-title">{m.businessName || a.name}</span> <StateBadge state={a.state} />
      </h1>
      <p className="muted">
        <code data-testid="catalog-asset-name">{a.name}</code> · project <b>{a.project}</b> · domain {a.domain} · version {a.version}, {a.updatedBy}{" "}
        {formatTime(a.updatedAt)}
        {a.custom ? " · custom" : ""}
      </p>
      {actionError && <div className="banner banner-error" data-testid="action-error">{actionError}</div>}
      <div className="catalog-actions">
        {editor && a.state !== "published" && (
          <button className="tb-btn primary" onClick={() => act(catalog.publish(a.id))} data-testid="publish">
            Publish
          </button>
        )}
        {editor && a.state === "published" && (
          <button className="tb-btn" onClick={() => act(catalog.unpublish(a.id))} data-testid="unpublish">
            Unpublish
          </button>
        )}
        {a.dataset && (
          <Link href={nodeHref(a.dataset)} className="tb-btn" testId="inventory-lineage">
            Inventory node lineage
          </Link>
        )}
        {a.publishedNode && (
          <Link href={nodeHref(a.publishedNode)} className="tb-btn" testId="published-lineage">
            Published node lineage
          </Link>
        )}
      </div>
      <section className="card">
        <div className="card-head">
          <h2>Business metadata</h2>
          {editor && !editing && (
            <button className="tb-btn" onClick={() => setEditing(true)} data-testid="edit-metadata">
              Edit
            </button>
          )}
        </div>
        {editing ? (
          <MetadataEditor
            asset={a}
            onCancel={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              refresh();
            }}
          />
        ) : (
          <dl className="meta-list">
            <dt>Business name</dt>
            <dd data-testid="business-name">{m.businessName ?? <span className="muted">none</span>}</dd>
            <dt>Description</dt>
            <dd>
              <DescriptionHtml html={m.descriptionHtml} />
            </dd>
            <dt>Owners</dt>
            <dd>
              <TermChips items={m.owners} kind="owner" />
            </dd>
            <dt>Glossary terms</dt>
            <dd>
              <TermChips items={m.glossaryTerms} kind="term" />
            </dd>
            <dt>Tags</dt>
            <dd>
              <TermChips items={m.tags} kind="tag" />
            </dd>
            {Object.entries(m.forms).map(([form, kv]) => (
              <div key={form} className="meta-form" data-testid="asset-form" data-form={form}>
                <dt>{form}</dt>
                <dd>
                  {Object.entries(kv)
                    .map(([k, v]) => `${k}: ${v}`)
                    .join(", ")}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      <section className="card">
        <h2>Subscriptions</h2>
        {consumerCan && <SubscribeForm asset={a} onDone={refresh} />}
        {a.state === "published" && !consumerCan && a.access === "published" && (
          <p className="muted" data-testid="subscribe-hint">
            To request a subscription, sign in and choose a project of yours in which you are an owner or contributor.
          </p>
        )}
        {mine.length === 0 ? (
          <p className="muted" data-testid="no-subscriptions">
            No subscriptions you may see.
          </p>
        ) : (
          <table className="table" data-testid="subscriptions">
            <thead>
              <tr>
                <th>Consumer project</th>
                <th>Target</th>
                <th>State</th>
                <th>Requested</th>
                <th>Lineage</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {mine.map((s) => (
                <SubscriptionRow key={s.id} s={s} ownerOfAsset={ownerOfAsset} consumer={canEdit(roleIn(me, s.project))} onChange={refresh} />
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card">
        <h2>Versions</h2>
        <Versions id={a.id} tick={tick} />
      </section>
    </div>
  );
}
