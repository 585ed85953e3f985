// A tiny history-API router: the server answers index.html for every non-API path.
import { useSyncExternalStore } from "react";

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
if (typeof window !== "undefined") window.addEventListener("popstate", notify);

export function navigate(href: string, replace = false): void {
  if (replace) window.history.replaceState(null, "", href);
  else window.history.pushState(null, "", href);
  notify();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

const snapshot = () => window.location.pathname + window.location.search;

export function useLocation(): { path: string; search: string } {
  const loc = useSyncExternalStore(subscribe, snapshot);
  const i = loc.indexOf("?");
  return i === -1 ? { path: loc, search: "" } : { path: loc.slice(0, i), search: loc.slice(i) };
}

/** Left clicks on internal links navigate without a reload; modified clicks open as usual. */
export function onLinkClick(ev: React.MouseEvent<HTMLAnchorElement>, href: string): void {
  if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  ev.preventDefault();
  navigate(href);
}
