// The impact check (POST /api/v1/impact/check, docs/impact.md): what a proposed change would break downstream.
import { sendJson } from "./client";
import type { components } from "./schema";
import { parseNodeId } from "../model/nodeid";

export type ImpactReport = components["schemas"]["ImpactReportOut"];
export type AffectedItem = components["schemas"]["AffectedItem"];

/** What dropping the column `fieldId` (datasetField:<ns>:<name>:<column>) would affect, as of `at`. */
export function checkDrop(fieldId: string, at?: string | null, signal?: AbortSignal): Promise<ImpactReport> {
  const ref = parseNodeId(fieldId);
  const change = { kind: "drop_column", namespace: ref.namespace, name: ref.name, column: ref.field };
  return sendJson<ImpactReport>("POST", "/api/v1/impact/check", {}, { changes: [change], at: at ?? null }, signal);
}
