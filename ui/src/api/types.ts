// Shapes of the public Headwater read API (docs/api.md). The UI reads nothing else.
//
// Generated, not copied: `schema.d.ts` is made by openapi-typescript from the server's OpenAPI
// document (`openapi.json`, dumped from the app); `npm run gen-api-types` regenerates both and
// `npm run check-api-types` (scripts/test) fails when they differ from what the current API gives.
// The names below are the UI's names for the server's models (src/headwater/api/models.py).
import type { components, paths } from "./schema";

type Schemas = components["schemas"];

/** The JSON body of a 200 answer of GET `path`. */
export type Answer<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { "application/json": infer T } } } };
}
  ? T
  : never;

export type NodeType = Schemas["Node"]["type"];
export type DatasetKind = NonNullable<Schemas["Node"]["kind"]>;
export type RunState = Schemas["Run"]["state"];

export type Field = Schemas["SchemaField"];
export type JobType = Schemas["JobType"];
export type LatestRun = Schemas["LatestRun"];
/** A dataset or job as the lists answer it (datasets, jobs, recent). */
export type ListNode = Schemas["Node"];
/** A node of a graph answer: a ListNode plus level and the "has more" flags. */
export type GraphNode = Schemas["GraphNode"];
export type EdgeType = Schemas["GraphEdge"]["type"];
export type GraphEdge = Schemas["GraphEdge"];
export type Transformation = Schemas["Transformation"];
export type ColumnEdge = Schemas["ColumnEdge"];
export type LineageAnswer = Schemas["LineageAnswer"];
export type ColumnNode = Schemas["ColumnNode"];
export type ColumnLineageAnswer = Schemas["ColumnLineageAnswer"];
export type Version = Schemas["Version"];
export type DatasetDetails = Schemas["DatasetDetails"];
export type JobDetails = Schemas["JobDetails"];
export type Run = Schemas["Run"];
/** GET /graph/node of a dataset or job id (the server answers a Run for a `run:` id; the UI never asks). */
export type NodeDetails = Exclude<Schemas["NodeDetails"], Run>;
export type ImpactType = Schemas["ImpactItem"]["type"];
export type ImpactItem = Schemas["ImpactItem"];
export type ImpactAnswer = Schemas["ImpactAnswer"];
export type SearchResult = Schemas["SearchResult"];
export type Namespace = Schemas["NamespaceSummary"];
export type EventSummary = Schemas["EventSummary"];
export type ColumnRef = Schemas["ColumnRef"];
export type ColumnChange = Schemas["ColumnTypeChange"];
export type CompareAnswer = Schemas["CompareAnswer"];
export type ApiErrorBody = Schemas["ErrorBody"];
