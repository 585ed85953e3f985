// Lineage put to work: the impact check (docs/impact.md), a dataset's tags and data quality (docs/classify.md).
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

export type QualityAnswer = components["schemas"]["QualityAnswerOut"];
export type TagsAnswer = components["schemas"]["ClassificationAnswer"];

/** A dataset's latest data-quality results and the failing datasets upstream (GET /api/v1/quality). */
export function quality(nodeId: string, at?: string | null, signal?: AbortSignal): Promise<QualityAnswer> {
  return sendJson<QualityAnswer>("GET", "/api/v1/quality", { nodeId, at }, undefined, signal);
}

/** The tags of a dataset and its columns, declared and inherited (GET /api/v1/classify/node). */
export function datasetTags(nodeId: string, at?: string | null, signal?: AbortSignal): Promise<TagsAnswer> {
  return sendJson<TagsAnswer>("GET", "/api/v1/classify/node", { nodeId, at }, undefined, signal);
}

/** Every dataset, column and job carrying `tag`, with paths and where it stopped (GET /api/v1/classify/report). */
export function tagReport(tag: string, at?: string | null, signal?: AbortSignal): Promise<TagsAnswer> {
  return sendJson<TagsAnswer>("GET", "/api/v1/classify/report", { tag, at }, undefined, signal);
}
