// On a dataset's page: what the catalog says of the node (inventory, published, subscription target,
// with a link to its asset) and, for an owner or contributor of the project in context, the action
// that catalogs an uncataloged dataset into that project's inventory.
import { useState } from "react";
import { canEdit, catalog, catalogAssetHref } from "../api/catalog";
import { navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { CatalogRoleBadge } from "./catalog";
import { Link } from "./Link";
import { useSession } from "./session";

export function CatalogStrip({ nodeId }: { nodeId: string }) {
  const { actingProject, role } = useSession();
  const found = useAsync((s) => catalog.nodes([nodeId], s), [nodeId]);
  const [error, setError] = useState<string | null>(null);
  if (!found.data) return null; // loading, or a server without the catalog
  const c = found.data.nodes.find((n) => n.node === nodeId);
  if (c) {
    return (
      <div className="catalog-link-card" data-testid="catalog-strip" data-role={c.role}>
        <CatalogRoleBadge role={c.role} />
        <span className="muted">project {c.project}</span>
        {c.asset && (
          <Link href={catalogAssetHref(c.asset)} testId="catalog-strip-asset">
            catalog asset ({c.assetState})
          </Link>
        )}
      </div>
    );
  }
  if (!nodeId.startsWith("dataset:") || !actingProject || !canEdit(role)) return null;
  return (
    <div className="catalog-link-card" data-testid="catalog-strip" data-role="">
      <button
        className="tb-btn"
        data-testid="catalog-add"
        onClick={() =>
          catalog.createAsset(nodeId, actingProject).then(
            (a) => navigate(catalogAssetHref(a.id)),
            (e: Error) => setError(e.message),
          )
        }
      >
        Add to {actingProject}'s inventory
      </button>
      {error && <span className="banner banner-error">{error}</span>}
    </div>
  );
}
