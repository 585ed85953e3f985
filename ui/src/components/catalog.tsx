// Small pieces of the catalog's pages: state and role badges, the safe description.
import type { AssetState, CatalogRole } from "../api/catalog";
import { ROLE_LABEL } from "../api/catalog";

export function StateBadge({ state }: { state: AssetState }) {
  return (
    <span className={`pill pill-state-${state}`} data-testid="asset-state" data-state={state}>
      {state}
    </span>
  );
}

export function CatalogRoleBadge({ role }: { role: CatalogRole }) {
  return (
    <span className={`cat-badge cat-${role}`} data-testid="catalog-badge" data-role={role} title={`Catalog: ${ROLE_LABEL[role]} node`}>
      {ROLE_LABEL[role]}
    </span>
  );
}

/**
 * The description as the server rendered it (`descriptionHtml`: CommonMark with raw HTML off and unsafe
 * link schemes refused, docs/catalog.md), the one place the UI sets HTML: nothing the user typed is
 * parsed as HTML by the browser.
 */
export function DescriptionHtml({ html }: { html: string }) {
  if (!html.trim()) return <p className="muted">No description.</p>;
  return <div className="markdown" data-testid="asset-description" dangerouslySetInnerHTML={{ __html: html }} />;
}

export function TermChips({ items, kind }: { items: string[]; kind: "term" | "tag" | "owner" }) {
  if (!items.length) return <span className="muted">none</span>;
  return (
    <span className="chips">
      {items.map((t) => (
        <span key={t} className={`chip chip-${kind}`} data-testid={`${kind}-chip`}>
          {t}
        </span>
      ))}
    </span>
  );
}
