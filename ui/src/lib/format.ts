import { isUtc } from "./timezone";

// Display helpers: times, durations, short names.

/**
 * Times are shown and typed in the browser's time zone, or in UTC when the user switched to UTC
 * (lib/timezone.ts). "2026-11-22 06:10:10 UTC+01:00" / "2026-11-22 05:10:10 UTC".
 */
export function formatTime(iso: string | null | undefined, utc: boolean = isUtc()): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${wallClock(d, utc)} ${offsetLabel(d, utc)}`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s % 60);
  if (m < 60) return `${m} min ${rest} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function timeAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "";
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return "";
  const s = Math.round((now - t) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** "2026-11-22 06:10:10" of `d` in the browser's zone (or UTC). */
export function wallClock(d: Date, utc: boolean): string {
  if (utc) return d.toISOString().slice(0, 19).replace("T", " ");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "UTC" or "UTC+01:00" / "UTC-05:30": the zone of a wall-clock time at that moment. */
export function offsetLabel(d: Date, utc: boolean): string {
  const off = utc ? 0 : -d.getTimezoneOffset();
  if (off === 0) return "UTC";
  const a = Math.abs(off);
  return `UTC${off > 0 ? "+" : "-"}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/**
 * The zone times are shown in, for the label beside a time input: "UTC" or the browser's offset
 * "UTC+01:00" (short, so the toolbar stays one row); `zoneName` gives "Europe/Berlin" for its tooltip.
 */
export function zoneLabel(utc: boolean, now = new Date()): string {
  return utc ? "UTC" : offsetLabel(now, false);
}

export function zoneName(utc: boolean): string {
  if (utc) return "UTC";
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "your browser's zone";
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?$/;
const ZONED = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * What the user typed or pasted into a time input, as an ISO instant; null when it is not a time.
 * A value with a zone (`2026-11-22T05:10:10Z`, `...+02:00`) is exact; a wall-clock value
 * (`2026-11-22 06:10`, `2026-11-22T06:10:10`, `2026-11-22`) is read in the browser's zone, or in
 * UTC when `utc`; 13 digits are epoch milliseconds.
 */
export function parseTimeInput(value: string, utc: boolean): string | null {
  const v = value.trim();
  if (!v) return null;
  if (/^\d{12,14}$/.test(v)) return new Date(Number(v)).toISOString();
  if (ZONED.test(v) && /^\d{4}-\d{2}-\d{2}[T ]/.test(v)) {
    const d = new Date(v.replace(" ", "T").replace(/z$/, "Z"));
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  const m = WALL.exec(v);
  if (!m) return null;
  const [y, mo, da, h = "0", mi = "0", se = "0", frac = "0"] = m.slice(1);
  const ms = Number(frac.padEnd(3, "0").slice(0, 3));
  const parts = [Number(y), Number(mo) - 1, Number(da), Number(h), Number(mi), Number(se), ms] as const;
  const d = utc ? new Date(Date.UTC(...parts)) : new Date(...parts);
  if (Number.isNaN(d.getTime())) return null;
  // 2026-02-31 is not a date (Date would roll it over to March)
  if ((utc ? d.getUTCMonth() : d.getMonth()) !== parts[1] || (utc ? d.getUTCDate() : d.getDate()) !== parts[2]) return null;
  return d.toISOString();
}

/** An ISO instant as the time input shows it: "2026-11-22 06:10:10" in the browser's zone (or UTC). */
export function timeInputValue(iso: string | null, utc: boolean): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : wallClock(d, utc);
}
