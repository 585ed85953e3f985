// Whether times are shown in UTC instead of the browser's zone: a switch beside the time inputs,
// kept in localStorage. Every formatted time reads it; the app re-renders when it changes.
import { useSyncExternalStore } from "react";

const KEY = "headwater.utc";
const listeners = new Set<() => void>();

function read(): boolean {
  try {
    return typeof localStorage !== "undefined" && localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

let current = read();

/** The current choice, outside React (format helpers). */
export function isUtc(): boolean {
  return current;
}

export function setUtc(utc: boolean): void {
  current = utc;
  try {
    if (utc) localStorage.setItem(KEY, "1");
    else localStorage.removeItem(KEY);
  } catch {
    // private mode: the choice lasts for this page
  }
  listeners.forEach((l) => l());
}

/** The choice as React state: components that show times re-render when it changes. */
export function useUtcSetting(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}
