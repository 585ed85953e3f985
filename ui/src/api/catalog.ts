// The catalog's routes (/api/v1/catalog, docs/catalog.md): projects, assets, subscriptions, glossary.
// Every call carries the project context (auth.ts: Headwater-Project) like every other API call.
import { sendJson } from "./client";
import type { components } from "./schema";

type S = components["schemas"];
export type Me = S["Me"];
export type Project = S["Project"];
export type Domain = S["Domain"];
export type GlossaryTerm = S["GlossaryTerm"];
export type Asset = S["Asset"];
export type AssetState = Asset["state"];
export type AssetVersion = S["AssetVersion"];
export type Subscription = S["Subscription"];
export type CatalogNode = S["CatalogNode"];
export type CatalogRole = CatalogNode["role"];
export type Role = S["Membership"]["role"];
/** The business metadata an edit sends (keys given replace the current ones). */
export interface MetadataEdit {
  businessName?: string | null;
  description?: string;
  owners?: string[];
  glossaryTerms?: string[];
  tags?: string[];
  forms?: Record<string, Record<string, string>>;
}

export interface AssetFilter {
  q?: string;
  ownerProject?: string;
  state?: AssetState | "";
  term?: string;
  tag?: string;
}

const C = "/api/v1/catalog";
/** The longest query string one /catalog/nodes request carries (uvicorn's request line stops near 16 kB). */
export const NODES_QUERY_CHARS = 6000;
const enc = encodeURIComponent;

export const catalog = {
  me: (signal?: AbortSignal) => sendJson<Me>("GET", `${C}/me`, {}, undefined, signal),
  projects: (signal?: AbortSignal) => sendJson<{ projects: Project[] }>("GET", `${C}/projects`, {}, undefined, signal),
  domains: (signal?: AbortSignal) => sendJson<{ domains: Domain[] }>("GET", `${C}/domains`, {}, undefined, signal),
  glossary: (domain: string, signal?: AbortSignal) =>
    sendJson<{ terms: GlossaryTerm[] }>("GET", `${C}/domains/${enc(domain)}/glossary`, {}, undefined, signal),
  setTerm: (domain: string, term: string, definition: string) =>
    sendJson<GlossaryTerm>("PUT", `${C}/domains/${enc(domain)}/glossary/${enc(term)}`, {}, { definition }),
  assets: (f: AssetFilter, signal?: AbortSignal) =>
    sendJson<{ assets: Asset[] }>("GET", `${C}/assets`, { ...f }, undefined, signal),
  asset: (id: string, signal?: AbortSignal) => sendJson<Asset>("GET", `${C}/assets/${enc(id)}`, {}, undefined, signal),
  versions: (id: string, signal?: AbortSignal) =>
    sendJson<{ versions: AssetVersion[] }>("GET", `${C}/assets/${enc(id)}/versions`, {}, undefined, signal),
  createAsset: (nodeId: string, project: string) => sendJson<Asset>("POST", `${C}/assets`, {}, { nodeId, project }),
  edit: (id: string, patch: MetadataEdit) => sendJson<Asset>("PATCH", `${C}/assets/${enc(id)}`, {}, patch),
  publish: (id: string) => sendJson<Asset>("POST", `${C}/assets/${enc(id)}/publish`),
  unpublish: (id: string) => sendJson<Asset>("POST", `${C}/assets/${enc(id)}/unpublish`),
  subscribe: (id: string, target: string, reason: string) =>
    sendJson<Subscription>("POST", `${C}/assets/${enc(id)}/subscriptions`, {}, { target, reason }),
  subscriptions: (signal?: AbortSignal) =>
    sendJson<{ subscriptions: Subscription[] }>("GET", `${C}/subscriptions`, {}, undefined, signal),
  decide: (id: string, action: "approve" | "reject" | "revoke") =>
    sendJson<Subscription>("POST", `${C}/subscriptions/${enc(id)}/${action}`, {}, action === "revoke" ? undefined : { reason: "" }),
  /**
   * Which of these graph nodes are catalog nodes. The ids are repeated `nodeId` parameters, asked in
   * requests of at most NODES_QUERY_CHARS of query (a server's request line has a limit) and merged.
   */
  nodes: async (ids: string[], signal?: AbortSignal): Promise<{ nodes: CatalogNode[] }> => {
    const queries: string[] = [];
    let q = new URLSearchParams();
    for (const id of ids) {
      q.append("nodeId", id);
      if (q.toString().length > NODES_QUERY_CHARS) {
        queries.push(q.toString());
        q = new URLSearchParams();
      }
    }
    if (q.toString()) queries.push(q.toString());
    const answers = await Promise.all(queries.map((qs) => sendJson<{ nodes?: unknown }>("GET", `${C}/nodes?${qs}`, {}, undefined, signal)));
    return { nodes: answers.flatMap((a) => (Array.isArray(a.nodes) ? (a.nodes as CatalogNode[]) : [])) };
  },
};

export const catalogHref = (f: AssetFilter = {}): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, String(v));
  const s = q.toString();
  return s ? `/catalog?${s}` : "/catalog";
};
export const catalogAssetHref = (id: string): string => `/catalog/asset?id=${enc(id)}`;

/** A restricted node stands for what the caller may not see (docs/catalog.md, Visibility). */
export const isRestricted = (nodeId: string, type?: string | null): boolean =>
  type === "RESTRICTED" || nodeId.startsWith("dataset:restricted://") || nodeId.startsWith("job:restricted://");

export const ROLE_LABEL: Record<CatalogRole, string> = {
  inventory: "inventory",
  published: "published",
  publish_job: "publish",
  target: "subscription target",
  subscribe_job: "subscription",
};

/** The caller's role in the project in context (or their only project), from /me. */
export function roleIn(me: Me | null, project: string | null | undefined): Role | null {
  if (!me || !project) return null;
  if (me.admin) return "owner";
  return me.memberships.find((m) => m.project === project)?.role ?? null;
}
export const canEdit = (r: Role | null): boolean => r === "owner" || r === "contributor";
