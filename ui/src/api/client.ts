// Thin fetch wrapper over the public read API. Every call states its endpoint; errors carry
// the server's {"error": {...}} message so the UI can show what went wrong.
import { UNAUTHORIZED_EVENT, authHeaders } from "./auth";
import type { Answer, NodeDetails, Run } from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a call that reached no Headwater server says (the server restarting, the network gone). */
const notAnswering = (status = "") =>
  `The Headwater server did not answer${status ? ` (${status})` : ""}: it may be restarting, or the network is down. Try again in a moment.`;

type Params = Record<string, string | number | boolean | null | undefined>;

export function buildUrl(path: string, params: Params = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "") continue;
    q.set(k, String(v));
  }
  const qs = q.toString();
  return qs ? `${path}?${qs}` : path;
}

async function getJson<T>(path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  return sendJson<T>("GET", path, params, undefined, signal);
}

/** A call of any method; `body` is sent as JSON. Answers the JSON body (null for 204). */
export async function sendJson<T>(method: string, path: string, params: Params = {}, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", ...authHeaders() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(buildUrl(path, params), { method, signal, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    // an abort is the caller's own doing; anything else is the network: said in words, not "Failed to fetch"
    if (signal?.aborted || (e instanceof DOMException && e.name === "AbortError")) throw e;
    throw new ApiError(0, "unreachable", notAnswering());
  }
  if (res.status === 401) window.dispatchEvent(new CustomEvent(UNAUTHORIZED_EVENT));
  if (!res.ok) {
    let code = "http_error";
    let message = `${res.status} ${res.statusText} from ${path}`;
    try {
      const body = (await res.json()) as { error?: { code?: string; message?: string } };
      if (body.error) {
        code = body.error.code ?? code;
        message = body.error.message ?? message;
      }
    } catch {
      // not JSON: a proxy's page in front of a server that is down or restarting says so; else the status line
      if (res.status === 502 || res.status === 503 || res.status === 504) {
        code = "unreachable";
        message = notAnswering(`${res.status} ${res.statusText}`.trim());
      }
    }
    throw new ApiError(res.status, code, message);
  }
  if (res.status === 204) return null as T;
  return (await res.json()) as T;
}

const G = "/api/v1/graph";

export interface LineageQuery {
  nodeId: string;
  direction?: "both" | "upstream" | "downstream";
  depth?: number;
  datasetsOnly?: boolean;
  columns?: boolean;
  at?: string | null;
  /** child jobs shown as their top parent job (the server's job hierarchy) */
  collapseJobs?: boolean;
}

// Each answer's type is the generated type of its path's 200 answer (./types.ts, ./schema.d.ts).
export const api = {
  lineage: (q: LineageQuery, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/lineage">>(`${G}/lineage`, { direction: "both", depth: 2, columns: true, ...q }, signal),
  columnLineage: (nodeId: string, at?: string | null, depth = 20, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/column-lineage">>(`${G}/column-lineage`, { nodeId, direction: "both", depth, at }, signal),
  // dataset and job ids only: a run: id would answer a Run
  node: (nodeId: string, at?: string | null, signal?: AbortSignal) => getJson<NodeDetails>(`${G}/node`, { nodeId, at }, signal),
  history: (nodeId: string, signal?: AbortSignal) => getJson<Answer<"/api/v1/graph/history">>(`${G}/history`, { nodeId }, signal),
  runs: (nodeId: string, limit = 50, offset = 0, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/runs">>(`${G}/runs`, { nodeId, limit, offset }, signal),
  search: (q: string, limit = 20, signal?: AbortSignal) => getJson<Answer<"/api/v1/graph/search">>(`${G}/search`, { q, limit }, signal),
  searchJobs: (q: string, namespace: string, limit = 100, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/search">>(`${G}/search`, { q, type: "job", namespace, limit }, signal),
  run: (runId: string, signal?: AbortSignal) => getJson<Run>(`${G}/node`, { nodeId: `run:${runId}` }, signal),
  impact: (nodeId: string, depth = 20, at?: string | null, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/impact">>(`${G}/impact`, { nodeId, depth, at }, signal),
  compare: (nodeId: string, from: string, to: string, depth = 2, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/compare">>(`${G}/compare`, { nodeId, from, to, depth, direction: "both" }, signal),
  namespaces: (signal?: AbortSignal) => getJson<Answer<"/api/v1/graph/namespaces">>(`${G}/namespaces`, {}, signal),
  datasets: (namespace: string, limit = 100, offset = 0, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/datasets">>(`${G}/datasets`, { namespace, limit, offset }, signal),
  jobs: (namespace: string, limit = 100, offset = 0, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/graph/jobs">>(`${G}/jobs`, { namespace, limit, offset }, signal),
  recent: (limit = 20, signal?: AbortSignal) => getJson<Answer<"/api/v1/graph/recent">>(`${G}/recent`, { limit }, signal),
  events: (nodeId: string, limit = 50, cursor?: string | null, signal?: AbortSignal) =>
    getJson<Answer<"/api/v1/events">>("/api/v1/events", { nodeId, limit, cursor }, signal),
};
