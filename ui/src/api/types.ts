// Shapes of the public Headwater read API (docs/api.md). The UI reads nothing else.

export type NodeType = "DATASET" | "JOB";
export type DatasetKind = "file" | "table" | "jdbc" | "stream" | "other";
export type RunState = "START" | "RUNNING" | "COMPLETE" | "FAIL" | "ABORT" | "OTHER";

export interface Field {
  name: string;
  type: string | null;
  description: string | null;
  fields?: Field[];
}

export interface JobType {
  integration?: string | null;
  processingType?: string | null;
  jobType?: string | null;
}

export interface LatestRun {
  runId: string;
  state: RunState;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
}

export interface GraphNode {
  id: string;
  type: NodeType;
  namespace: string;
  name: string;
  kind?: DatasetKind | null;
  fields?: Field[];
  jobType?: JobType | null;
  latestRun?: LatestRun | null;
  updatedAt?: string | null;
  deleted?: boolean;
  level?: number;
  hasMoreUpstream?: boolean;
  hasMoreDownstream?: boolean;
}

export type EdgeType = "INPUT" | "OUTPUT" | "DERIVED";

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  type: EdgeType;
  via?: string[];
}

export interface Transformation {
  type: string;
  subtype?: string | null;
  description?: string | null;
  masking?: boolean;
}

export interface ColumnEdge {
  source: string;
  target: string;
  job?: string | null;
  transformations?: Transformation[];
}

export interface LineageAnswer {
  root: string;
  at: string | null;
  depth: number;
  truncated: boolean;
  nodes: GraphNode[];
  edges: GraphEdge[];
  columnEdges?: ColumnEdge[];
}

export interface ColumnNode {
  id: string;
  dataset: string;
  namespace: string;
  name: string;
  field: string;
  type: string | null;
  level: number;
}

export interface ColumnLineageAnswer {
  root: string;
  at: string | null;
  nodes: ColumnNode[];
  edges: ColumnEdge[];
  truncated: boolean;
}

export interface Version {
  version: string;
  validFrom: string;
  validTo: string | null;
  runId: string | null;
  fields?: Field[];
  facets?: Record<string, unknown>;
  changes?: string[];
}

export interface NodeDetails extends GraphNode {
  facets?: Record<string, unknown>;
  currentVersion?: Version | null;
  producers?: string[];
  consumers?: string[];
  inputs?: string[];
  outputs?: string[];
  parent?: string | null;
  createdAt?: string | null;
}

export interface Run {
  runId: string;
  job: string;
  state: RunState;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  errorMessage: string | null;
  stackTrace?: string | null;
  parentRunId?: string | null;
  parentJob?: string | null;
  facets?: Record<string, unknown>;
  inputs?: string[];
  outputs?: string[];
}

export type ImpactType = "DATASET" | "JOB" | "FIELD";

export interface ImpactItem {
  id: string;
  type: ImpactType;
  namespace: string;
  name: string;
  field: string | null;
  depth: number;
  path: string[];
}

export interface ImpactAnswer {
  root: string;
  at: string | null;
  truncated: boolean;
  items: ImpactItem[];
  summary: { datasets: number; jobs: number; fields: number };
}

export interface SearchResult {
  id: string;
  type: "DATASET" | "JOB" | "FIELD";
  namespace: string;
  name: string;
  field: string | null;
  updatedAt: string | null;
}

export interface Namespace {
  name: string;
  datasets: number;
  jobs: number;
  updatedAt: string | null;
}

export interface EventSummary {
  id: string;
  eventTime: string;
  receivedAt: string;
  kind: "RUN" | "DATASET" | "JOB";
  eventType: string | null;
  job: string | null;
  runId: string | null;
  event: unknown;
}

export interface ColumnRef {
  dataset: string;
  field: string;
  type?: string | null;
}

export interface ColumnChange {
  dataset: string;
  field: string;
  fromType: string | null;
  toType: string | null;
}

export interface CompareAnswer {
  from: string;
  to: string;
  root: string;
  nodes: { added: GraphNode[]; removed: GraphNode[] };
  edges: { added: GraphEdge[]; removed: GraphEdge[] };
  columns: { added: ColumnRef[]; removed: ColumnRef[]; changed: ColumnChange[] };
  columnEdges: { added: ColumnEdge[]; removed: ColumnEdge[] };
}

export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown[] };
}
