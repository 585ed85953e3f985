import { Position, type NodeHandle } from "@xyflow/react";
// Node sizes are fixed by what a node shows, so the layout (in the worker) and the DOM agree.
import { PAGE_SIZE } from "../model/columns";

/**
 * Compact boxes, so that a whole pipeline fits a laptop window at a readable zoom: a box holds a
 * 21-character name (`employee_compensation`, 181 px in DejaVu Sans Bold 13 px) beside its icon, with
 * the column count (datasets) or the action and run (jobs) on the line below.
 */
export const DATASET_WIDTH = 232;
export const JOB_WIDTH = 232;
/** kept for code that sizes any node (restricted nodes, tests): the dataset width */
export const NODE_WIDTH = DATASET_WIDTH;
export const HEADER_HEIGHT = 48;
export const ROW_HEIGHT = 22;
export const FILTER_HEIGHT = 34;
export const PAGER_HEIGHT = 28;
export const JOB_HEIGHT = 48;

/** Height of a dataset node with `columnCount` columns, open or closed. */
export function datasetHeight(columnCount: number, open: boolean): number {
  if (!open) return HEADER_HEIGHT;
  if (columnCount === 0) return HEADER_HEIGHT + ROW_HEIGHT + 8;
  const paged = columnCount > PAGE_SIZE;
  return (
    HEADER_HEIGHT +
    (paged ? FILTER_HEIGHT : 0) +
    Math.min(columnCount, PAGE_SIZE) * ROW_HEIGHT +
    (paged ? PAGER_HEIGHT : 0) +
    8
  );
}

/** Height of a dataset node whose columns are closed but which shows `rows` columns of a column path. */
export function pathRowsHeight(rows: number): number {
  return HEADER_HEIGHT + rows * ROW_HEIGHT + 8;
}

/** Vertical centre of the node-level handles (the middle of the header), for datasets and jobs. */
export const NODE_HANDLE_Y = 25;
/** Where the first column row starts: top border, header, the column list's border and padding. */
export const FIRST_ROW_Y = HEADER_HEIGHT + 5;
export const HANDLE_SIZE = 6;

/**
 * Handle boxes computed from the fixed node geometry. Given to React Flow up front so big graphs
 * need not render every node once just to measure its handles.
 */
export function handleBoxes(columnPaths: string[], paged: boolean, width: number = DATASET_WIDTH): NodeHandle[] {
  const h = HANDLE_SIZE;
  const at = (id: string, y: number): NodeHandle[] => [
    { id: `in${id}`, type: "target", position: Position.Left, x: -h / 2, y: y - h / 2, width: h, height: h },
    { id: `out${id}`, type: "source", position: Position.Right, x: width - h / 2, y: y - h / 2, width: h, height: h },
  ];
  const top = FIRST_ROW_Y + (paged ? FILTER_HEIGHT : 0);
  return [...at("", NODE_HANDLE_Y), ...columnPaths.flatMap((p, i) => at(`:${p}`, top + i * ROW_HEIGHT + ROW_HEIGHT / 2))];
}
