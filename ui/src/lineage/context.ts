import { createContext, useContext } from "react";
import type { CatalogNode } from "../api/catalog";
import type { Direction } from "../model/graph";

export interface LineageActions {
  expand: (nodeId: string, direction: Direction) => void;
  collapse: (nodeId: string, direction: Direction) => void;
  toggleColumns: (datasetId: string) => void;
  selectColumn: (fieldId: string) => void;
  selectNode: (nodeId: string) => void;
  setColumnPage: (datasetId: string, page: number) => void;
  setColumnFilter: (datasetId: string, filter: string) => void;
  openAsset: (nodeId: string) => void;
  /** job grouping: draw a parent job's children instead of the parent */
  openJob: (parentId: string) => void;
  /** job grouping: draw the children of a parent as the parent again */
  closeJob: (parentId: string) => void;
  /** draw the catalog's nodes (the chip of folded ones was clicked) */
  showCatalogNodes: () => void;
}

export const LineageContext = createContext<LineageActions | null>(null);

export function useLineageActions(): LineageActions {
  const a = useContext(LineageContext);
  if (!a) throw new Error("useLineageActions outside LineageContext");
  return a;
}

/** The drawn nodes the catalog answers for (GET /catalog/nodes): inventory, published, subscription target. */
export const CatalogNodesContext = createContext<ReadonlyMap<string, CatalogNode>>(new Map());

export function useCatalogNode(nodeId: string): CatalogNode | undefined {
  return useContext(CatalogNodesContext).get(nodeId);
}
