// Bearer token for servers that require one to read (HEADWATER_READ_TOKENS). Kept in this tab's
// sessionStorage only; sent as `Authorization: Bearer <token>`, the API's documented scheme.
const KEY = "headwater.token";
export const UNAUTHORIZED_EVENT = "headwater:unauthorized";

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token) sessionStorage.setItem(KEY, token);
    else sessionStorage.removeItem(KEY);
  } catch {
    // storage disabled: the token lasts until the page is left
  }
}

// The catalog's project context (docs/catalog.md): the project a user of several projects acts and reads
// as. Sent as `Headwater-Project: <id>` on every API call; kept in this tab's sessionStorage, and taken
// from a page address's `?project=` (a link can carry the context).
const PROJECT_KEY = "headwater.project";
export const PROJECT_EVENT = "headwater:project";

export function getProject(): string | null {
  try {
    return sessionStorage.getItem(PROJECT_KEY);
  } catch {
    return null;
  }
}

export function setProject(project: string | null): void {
  try {
    if (project) sessionStorage.setItem(PROJECT_KEY, project);
    else sessionStorage.removeItem(PROJECT_KEY);
  } catch {
    // storage disabled
  }
  if (typeof window !== "undefined") window.dispatchEvent(new CustomEvent(PROJECT_EVENT));
}

/** A `?project=` in the page's address chooses the context (before the first API call). */
export function projectFromAddress(search: string): void {
  const p = new URLSearchParams(search).get("project");
  if (p !== null) setProject(p || null);
}

export function authHeaders(): Record<string, string> {
  const t = getToken();
  const p = getProject();
  return { ...(t ? { Authorization: `Bearer ${t}` } : {}), ...(p ? { "Headwater-Project": p } : {}) };
}
