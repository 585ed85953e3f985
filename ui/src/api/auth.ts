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

export function authHeaders(): Record<string, string> {
  const t = getToken();
  return t ? { Authorization: `Bearer ${t}` } : {};
}
