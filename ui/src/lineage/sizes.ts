// Node sizes are fixed by what a node shows, so the layout (in the worker) and the DOM agree.
import { PAGE_SIZE } from "../model/columns";

export const NODE_WIDTH = 272;
export const HEADER_HEIGHT = 60;
export const ROW_HEIGHT = 24;
export const FILTER_HEIGHT = 34;
export const PAGER_HEIGHT = 28;
export const JOB_HEIGHT = 60;

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
