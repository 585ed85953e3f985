import type { Node, Edge } from "@xyflow/react";
import type { GraphNode, Transformation } from "../api/types";
import type { FlatField } from "../model/columns";
import type { Mark } from "../model/compare";
import type { CatalogChip } from "../model/catalogFold";

export type Emphasis = "normal" | "dim" | "highlight";

export interface ColumnView extends FlatField {
  id: string; // datasetField id
  emphasis: Emphasis;
  mark?: Mark | "changed";
  /** compare: the column's type at the two moments, when its type family changed */
  change?: { from: string | null; to: string | null };
  selected: boolean;
}

export interface DatasetNodeData extends Record<string, unknown> {
  node: GraphNode;
  isRoot: boolean;
  selected: boolean;
  emphasis: Emphasis;
  mark?: Mark;
  columnsOpen: boolean;
  /** all columns (paged), only the column path's, or none (the count) */
  columnsMode: "all" | "path" | "none";
  columns: ColumnView[]; // the current page
  columnTotal: number; // after filter
  columnCount: number; // all
  page: number;
  pages: number;
  filter: string;
  hiddenHighlighted: number;
  /** subtitle: where the dataset is, by what tells it apart in this graph */
  place: string;
  expandedUp: boolean;
  expandedDown: boolean;
  /** impact analysis on: downstream datasets/jobs not drawn, reached through this node */
  hiddenDown: number;
  height: number;
  /** the catalog's nodes folded onto this one (published, subscriptions), else null */
  catalogChip: CatalogChip | null;
}

export interface JobNodeData extends Record<string, unknown> {
  node: GraphNode;
  isRoot: boolean;
  selected: boolean;
  emphasis: Emphasis;
  mark?: Mark;
  expandedUp: boolean;
  expandedDown: boolean;
  hiddenDown: number;
  /** job grouping: the opened parent this child job belongs to (it can be grouped again), else null */
  groupedIn: string | null;
}

export interface LineageEdgeData extends Record<string, unknown> {
  kind: "flow" | "column";
  /** column edges: DIRECT (the value flows) or INDIRECT (join/filter/group keys, dataset-level) */
  dependency?: "direct" | "indirect";
  /** one edge standing for a dataset-wide dependency (join/filter/group-by/sort keys) of a dataset pair */
  datasetLevel?: boolean;
  emphasis: Emphasis;
  mark?: Mark;
  transformations?: Transformation[];
  job?: string | null;
  via?: string[];
  label: string;
  /** the layout's route around the node boxes (graph coordinates, start to end); a curve when absent */
  route?: { x: number; y: number }[];
}

export type DatasetFlowNode = Node<DatasetNodeData, "dataset">;
export type JobFlowNode = Node<JobNodeData, "job">;
export type LineageFlowNode = DatasetFlowNode | JobFlowNode;
export type LineageFlowEdge = Edge<LineageEdgeData, "lineage">;
