// The HR payroll pipeline as the lineage API answers it: shared by the model tests.
import type { ColumnEdge, GraphEdge, GraphNode } from "../api/types";

export const NS = "file";
export const ds = (name: string) => `dataset:${NS}:/data/${name}`;
export const col = (d: string, c: string) => `datasetField:${NS}:/data/${d}:${c}`;
export const JOB1 = "job:spark:job1";
export const JOB2 = "job:spark:job2";

export const node = (id: string, extra: Partial<GraphNode> = {}): GraphNode => {
  const [type, ns, ...rest] = id.split(":");
  return {
    id,
    type: type === "job" ? "JOB" : "DATASET",
    namespace: ns,
    name: rest.join(":"),
    kind: type === "job" ? null : "file",
    fields: [],
    jobType: null,
    latestRun: null,
    updatedAt: "2026-01-05T02:00:00Z",
    deleted: false,
    level: 0,
    hasMoreUpstream: false,
    hasMoreDownstream: false,
    ...extra,
  };
};

export const edge = (source: string, target: string): GraphEdge => ({
  id: `${source}->${target}`,
  source,
  target,
  type: source.startsWith("job:") ? "OUTPUT" : "INPUT",
  via: [],
});

const direct = (subtype: string) => [{ type: "DIRECT", subtype, description: "", masking: false }];

export const columnEdges: ColumnEdge[] = [
  { source: col("employees.csv", "EmployeeID"), target: col("employee_attendance", "EmployeeID"), job: JOB1, transformations: direct("IDENTITY") },
  { source: col("employees.csv", "Name"), target: col("employee_attendance", "Name"), job: JOB1, transformations: direct("IDENTITY") },
  { source: col("attendance.csv", "HoursWorked"), target: col("employee_attendance", "TotalHours"), job: JOB1, transformations: direct("AGGREGATION") },
  { source: col("attendance.csv", "EmployeeID"), target: ds("employee_attendance"), job: JOB1, transformations: [{ type: "INDIRECT", subtype: "JOIN", description: null, masking: false }] },
  { source: col("employee_attendance", "EmployeeID"), target: col("employee_compensation", "EmployeeID"), job: JOB2, transformations: direct("IDENTITY") },
  { source: col("employee_attendance", "TotalHours"), target: col("employee_compensation", "TotalPay"), job: JOB2, transformations: direct("TRANSFORMATION") },
  { source: col("salary_adjustments.csv", "Adjustment"), target: col("employee_compensation", "TotalPay"), job: JOB2, transformations: direct("TRANSFORMATION") },
  { source: col("bonus_payments.csv", "Bonus"), target: col("employee_compensation", "TotalPay"), job: JOB2, transformations: direct("TRANSFORMATION") },
];

export const fullNodes: GraphNode[] = [
  node(ds("employees.csv")),
  node(ds("attendance.csv")),
  node(JOB1),
  node(ds("employee_attendance")),
  node(ds("salary_adjustments.csv")),
  node(ds("bonus_payments.csv")),
  node(JOB2),
  node(ds("employee_compensation")),
];

export const fullEdges: GraphEdge[] = [
  edge(ds("employees.csv"), JOB1),
  edge(ds("attendance.csv"), JOB1),
  edge(JOB1, ds("employee_attendance")),
  edge(ds("employee_attendance"), JOB2),
  edge(ds("salary_adjustments.csv"), JOB2),
  edge(ds("bonus_payments.csv"), JOB2),
  edge(JOB2, ds("employee_compensation")),
];
