// What changed from one version of a dataset or job to the one before it: columns added,
// removed and retyped (nested fields by their dotted path), and the facets whose value changed.
import type { Field, Version } from "../api/types";

export interface VersionDiff {
  added: string[];
  removed: string[];
  retyped: Array<{ name: string; from: string | null; to: string | null }>;
  facets: string[];
  /** jobs: datasets this version reads / writes that the version before did not, and the ones it stopped at */
  reads?: { added: string[]; removed: string[] };
  writes?: { added: string[]; removed: string[] };
}

function setDiff(now: string[] | null | undefined, before: string[] | null | undefined): { added: string[]; removed: string[] } {
  const a = new Set(now ?? []);
  const b = new Set(before ?? []);
  return { added: [...a].filter((x) => !b.has(x)).sort(), removed: [...b].filter((x) => !a.has(x)).sort() };
}

function flat(fields: Field[] | undefined, prefix = "", out = new Map<string, string | null>()): Map<string, string | null> {
  for (const f of fields ?? []) {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    out.set(path, f.type ?? null);
    if (f.fields?.length) flat(f.fields, path, out);
  }
  return out;
}

const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );

/** `v` against the version before it (`prev`, null for the first version: nothing to compare). */
export function versionDiff(v: Version, prev: Version | null, schema: boolean): VersionDiff {
  const d: VersionDiff = { added: [], removed: [], retyped: [], facets: [] };
  if (!prev) return d;
  if (schema) {
    const now = flat(v.fields);
    const before = flat(prev.fields);
    for (const [name, type] of now) {
      if (!before.has(name)) d.added.push(name);
      else if (before.get(name) !== type) d.retyped.push({ name, from: before.get(name) ?? null, to: type });
    }
    for (const name of before.keys()) if (!now.has(name)) d.removed.push(name);
  }
  if (v.inputs || prev.inputs || v.outputs || prev.outputs) {
    d.reads = setDiff(v.inputs, prev.inputs);
    d.writes = setDiff(v.outputs, prev.outputs);
  }
  const a = v.facets ?? {};
  const b = prev.facets ?? {};
  const skip = new Set(["schema"]); // the schema is shown as columns above
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (skip.has(k)) continue;
    if (stable(a[k]) !== stable(b[k])) d.facets.push(k);
  }
  d.facets.sort();
  return d;
}
