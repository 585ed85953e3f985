// The compare control's version picker: the moments a node's versions began, as choices, and the view
// (compareFrom, at) that compares two of them. A version is in effect from its validFrom (inclusive)
// to its validTo (exclusive), so a version's validFrom is the moment that shows it.
import type { Version } from "../api/types";

export interface VersionChoice {
  /** the moment the version began (ISO), the value of the choice */
  iso: string;
  /** the version's number in the list, oldest 1 */
  n: number;
  /** the version is in effect now (no validTo) */
  current: boolean;
  /** what that version changed (schema, facets, ...; "created" for the first) */
  changes: string[];
}

/** The versions as choices, newest first, one per moment (versions sharing a validFrom: the last wins). */
export function versionChoices(versions: Pick<Version, "validFrom" | "validTo" | "changes">[]): VersionChoice[] {
  const byMoment = new Map<string, Pick<Version, "validFrom" | "validTo" | "changes">>();
  for (const v of versions) byMoment.set(v.validFrom, v);
  const oldestFirst = [...byMoment.values()].sort((a, b) => Date.parse(a.validFrom) - Date.parse(b.validFrom));
  return oldestFirst
    .map((v, i) => ({ iso: v.validFrom, n: i + 1, current: v.validTo === null, changes: [...v.changes] }))
    .reverse();
}

/**
 * The view that compares the versions begun at `a` and `b` (either order): compareFrom the earlier,
 * `at` the later — null when the later is the version in effect now (compare with now).
 * Null when the two are the same moment (nothing to compare).
 */
export function comparePick(
  a: string,
  b: string,
  choices: VersionChoice[],
): { compareFrom: string; at: string | null } | null {
  if (Date.parse(a) === Date.parse(b)) return null;
  const [earlier, later] = Date.parse(a) < Date.parse(b) ? [a, b] : [b, a];
  const laterChoice = choices.find((c) => c.iso === later);
  return { compareFrom: earlier, at: laterChoice?.current ? null : later };
}

/**
 * Which choices the view shows as picked: [from, to]. `to` is the current version when the view
 * compares with now; a moment that is no version's beginning picks nothing ("").
 */
export function pickedChoices(
  compareFrom: string | null,
  at: string | null,
  choices: VersionChoice[],
): [string, string] {
  const match = (iso: string | null) => (iso === null ? "" : (choices.find((c) => Date.parse(c.iso) === Date.parse(iso))?.iso ?? ""));
  const now = choices.find((c) => c.current)?.iso ?? "";
  if (!compareFrom) return ["", at === null ? now : match(at)];
  return [match(compareFrom), at === null ? now : match(at)];
}

/** A choice's label: "v3 · <time> · schema" (the caller formats the time in the user's zone). */
export function choiceLabel(c: VersionChoice, time: string): string {
  const what = c.changes.filter((x) => x !== "created");
  return `v${c.n} · ${time}${c.current ? " (now)" : ""}${what.length ? ` · ${what.join(", ")}` : ""}`;
}
