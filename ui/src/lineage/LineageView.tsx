// The lineage tab: graph state from the URL, toolbar, canvas, details pane, impact and compare.
import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { api } from "../api/client";
import type { ColumnEdge, CompareAnswer, ImpactAnswer } from "../api/types";
import { formatTime } from "../lib/format";
import { navigate } from "../lib/router";
import { columnPath, flattenFields } from "../model/columns";
import { compareMarks, compareWindow, withRemoved } from "../model/compare";
import { collapse as collapseState, currentGraph, currentHierarchy, datasetsOnly, expansionKey, levels, type Direction } from "../model/graph";
import { groupJobs, topParent } from "../model/hierarchy";
import { foldCatalog, isCatalogId, type CatalogChip } from "../model/catalogFold";
import { datasetOfField, fieldName, isField } from "../model/nodeid";
import { hiddenDownstream } from "../model/impact";
import { nodeHref, type ViewState } from "../model/urlState";
import { LayoutClient } from "../layout/client";
import { Canvas, type Anchor } from "./Canvas";
import { CompareBar } from "./ComparePanel";
import { CatalogNodesContext, LineageContext, type LineageActions } from "./context";
import { AnnotationsAtContext } from "./annotations";
import { catalog, isRestricted, type CatalogNode } from "../api/catalog";
import { GraphRefsContext, NodeRefList, type GraphRefs } from "../components/refs";
import { useAsync } from "../lib/useAsync";

/**
 * A job drawn alone (a Spark application, an Airflow DAG: its datasets are on its child jobs): links to
 * its children (the job details' `children`) and the switch that draws them as this one job.
 */
function LoneJobBanner({ jobId, at, onGroup }: { jobId: string; at: string | null; onGroup: () => void }) {
  const r = useAsync((sig) => api.node(jobId, at, sig), [jobId, at]);
  const ids = r.data?.type === "JOB" ? r.data.children : [];
  if (!ids.length) return null;
  return (
    <div className="banner" data-testid="lone-job-banner">
      This job's lineage is on its {ids.length === 1 ? "child job" : `${ids.length} child jobs`}:
      <NodeRefList ids={ids} testId="lone-job-children" />
      <button className="tb-btn" onClick={onGroup} data-testid="lone-job-group">
        Draw them as this job
      </button>
    </div>
  );
}
import { DetailsPane } from "./DetailsPane";
import { buildElements, type ColumnUi } from "./elements";
import { OVERVIEW_AT } from "./OverviewCanvas";
import { ImpactPanel } from "./ImpactPanel";
import { Toolbar } from "./Toolbar";
import { useLineageGraph } from "./useLineageGraph";

/** Above this many nodes, handle positions are computed instead of measured (see sizes.ts). */
const BIG_GRAPH = 250;

function builtElements(input: Parameters<typeof buildElements>[0]) {
  const e = buildElements(input);
  performance.mark("headwater:elements-built", { detail: { nodes: e.nodes.length } });
  return e;
}

export function LineageView({ view, setView }: { view: ViewState; setView: (p: Partial<ViewState>) => void }) {
  // compare: the two moments in order (either may be given first); the graph drawn is the later one
  const window_ = useMemo(() => compareWindow(view.compareFrom, view.at), [view.compareFrom, view.at]);
  const graphAt = window_ ? window_.toParam : view.at;
  const { state, error, loading } = useLineageGraph(view.node, view.depth, graphAt, view.expansions, view.groupJobs);
  // the layout worker starts while the lineage request is in flight, not after the answer
  const layoutClient = useMemo(() => new LayoutClient(), []);
  useEffect(() => {
    layoutClient.warm();
    return () => layoutClient.dispose();
  }, [layoutClient]);
  const [selected, setSelected] = useState<string | null>(null);
  // the node the user last acted on: the next layout keeps it where it is on screen
  const [anchor, setAnchor] = useState<Anchor | null>(null);
  const touch = useCallback((id: string) => setAnchor((a) => ({ id, seq: (a?.seq ?? 0) + 1 })), []);
  // the focus dataset's columns are open by default; closing them is remembered for this page
  const [rootClosed, setRootClosed] = useState(false);
  // the side pane: its width (dragged, kept in the browser) and whether it is folded to a strip
  const [paneWidth, setPaneWidth] = useState(() => Number(localStorage.getItem("headwater.paneWidth")) || 340);
  const [paneFolded, setPaneFolded] = useState(() => typeof window !== "undefined" && window.innerWidth < 1440);
  // the impact panel: its height (dragged, kept in the browser) and whether it is folded to its header
  const [impactHeight, setImpactHeight] = useState(
    () => Number(localStorage.getItem("headwater.impactHeight")) || Math.round((typeof window === "undefined" ? 900 : window.innerHeight) * 0.3),
  );
  const [impactFolded, setImpactFolded] = useState(false);
  const [columnUi, setColumnUi] = useState<Map<string, ColumnUi>>(new Map());
  const [compare, setCompare] = useState<{ answer: CompareAnswer | null; error: Error | null } | null>(null);
  const [impact, setImpact] = useState<{ answer: ImpactAnswer | null; error: Error | null } | null>(null);

  useEffect(() => setSelected(null), [view.node]);

  // compare two moments: `cmp` -> `at` (or now)
  useEffect(() => {
    if (!window_) {
      setCompare(null);
      return;
    }
    const ctl = new AbortController();
    setCompare({ answer: null, error: null });
    api.compare(view.node, window_.from, window_.to, view.depth * 2, ctl.signal).then(
      (answer) => setCompare({ answer, error: null }),
      (e: Error) => !ctl.signal.aborted && setCompare({ answer: null, error: e }),
    );
    return () => ctl.abort();
  }, [view.node, window_, view.depth]);

  const impactTarget = view.column ?? view.node;
  useEffect(() => {
    if (!view.impact) {
      setImpact(null);
      return;
    }
    const ctl = new AbortController();
    setImpact({ answer: null, error: null });
    api.impact(impactTarget, 20, view.at, ctl.signal).then(
      (answer) => setImpact({ answer, error: null }),
      (e: Error) => !ctl.signal.aborted && setImpact({ answer: null, error: e }),
    );
    return () => ctl.abort();
  }, [view.impact, impactTarget, view.at]);

  // job level: child jobs drawn as their parent unless the parent is opened (the root's parent always is)
  const hierarchy = useMemo(() => (state && view.groupJobs ? currentHierarchy(state) : null), [state, view.groupJobs]);
  const openJobs = useMemo(() => {
    const s = new Set(view.openJobs);
    const rootParent = hierarchy ? topParent(hierarchy, view.node) : null;
    if (rootParent) s.add(rootParent);
    return s;
  }, [view.openJobs, hierarchy, view.node]);
  // what is drawn: the catalog's nodes folded to a chip on the node they hang from unless `cat=1`;
  // the overview, impact marks and the column path all follow this graph
  const { graph, catalogChips } = useMemo(() => {
    if (!state) return { graph: null, catalogChips: null };
    let g = currentGraph(state);
    if (hierarchy) g = groupJobs(g, hierarchy, openJobs, view.node);
    if (compare?.answer) g = withRemoved(g, compare.answer);
    let chips: Map<string, CatalogChip> | null = null;
    if (!view.catalogNodes) ({ graph: g, chips } = foldCatalog(g));
    if (view.datasetsOnly) g = datasetsOnly(g);
    return { graph: g, catalogChips: chips };
  }, [state, hierarchy, openJobs, view.node, compare, view.datasetsOnly, view.catalogNodes]);
  /** the parent a drawn child job belongs to, when the user opened that parent (it can be grouped again) */
  const openedParentOf = useMemo(() => {
    const m = new Map<string, string>();
    if (hierarchy) for (const [child, parent] of hierarchy.top) if (view.openJobs.includes(parent)) m.set(child, parent);
    return m;
  }, [hierarchy, view.openJobs]);

  // which drawn nodes are the catalog's (inventory, published, subscription target): drawn with a badge
  const [catalogNodes, setCatalogNodes] = useState<ReadonlyMap<string, CatalogNode>>(new Map());
  const catalogIds = useMemo(
    // an overview (huge graph) draws no badges: nothing to ask
    () =>
      graph && graph.nodes.length <= OVERVIEW_AT
        ? graph.nodes
            .filter((n) => !isRestricted(n.id, n.type))
            .map((n) => n.id)
            .sort()
            .join("\n")
        : "",
    [graph],
  );
  useEffect(() => {
    if (!catalogIds) {
      setCatalogNodes(new Map());
      return;
    }
    const ctl = new AbortController();
    catalog.nodes(catalogIds.split("\n"), ctl.signal).then(
      (a) => setCatalogNodes(new Map(a.nodes.map((c) => [c.node, c]))),
      () => undefined, // a server without the catalog: no badges
    );
    return () => ctl.abort();
  }, [catalogIds]);

  // the selected column's whole lineage from the server, so the path goes on beyond what is drawn
  const [serverColumnEdges, setServerColumnEdges] = useState<ColumnEdge[]>([]);
  useEffect(() => {
    setServerColumnEdges([]);
    if (!view.column) return;
    const ctl = new AbortController();
    api.columnLineage(view.column, view.at, 20, ctl.signal).then(
      (a) => setServerColumnEdges(a.edges),
      () => undefined, // the path from the drawn graph still shows
    );
    return () => ctl.abort();
  }, [view.column, view.at]);

  const root = view.node;
  // the node the view centres on: the selected node, else the selected column's dataset, else the root
  const focus = selected ?? (view.column ? datasetOfField(view.column) : root);
  // drawn edges first: the path's edge indexes below graph.columnEdges.length are drawable
  const path = useMemo(
    () => (graph && view.column ? columnPath(view.column, [...graph.columnEdges, ...serverColumnEdges], { indirect: view.indirect }) : null),
    [graph, view.column, serverColumnEdges, view.indirect],
  );
  // a column its drawn dataset's schema does not have (a link older than a rename or a drop): nothing to
  // highlight on the canvas, the pane says why
  const columnMissing = useMemo(() => {
    if (!graph || !view.column) return false;
    const col = view.column;
    const ds = graph.nodes.find((n) => n.id === datasetOfField(col));
    const name = fieldName(col);
    return Boolean(ds?.fields?.length) && !flattenFields(ds?.fields ?? []).some((f) => f.path === name || f.name === name);
  }, [graph, view.column]);
  const canvasColumn = columnMissing ? null : view.column;
  const canvasPath = columnMissing ? null : path;
  const marks = useMemo(() => (compare?.answer ? compareMarks(compare.answer) : null), [compare]);
  const impactSet = useMemo(() => {
    if (!impact?.answer) return null;
    const s = new Set<string>([impactTarget]);
    for (const it of impact.answer.items) {
      s.add(it.id);
      if (it.type === "FIELD") s.add(`dataset:${it.namespace}:${it.name}`);
      // a child job drawn as its parent: the parent is on the impact path
      const parent = hierarchy ? topParent(hierarchy, it.id) : null;
      if (parent && !openJobs.has(parent)) s.add(parent);
    }
    return s;
  }, [impact, impactTarget, hierarchy, openJobs]);

  // impact on: how many downstream datasets/jobs each drawn node leads to that are not drawn
  const hidden = useMemo(
    () => (impact?.answer && graph ? hiddenDownstream(impact.answer.items, new Set(graph.nodes.map((n) => n.id))) : null),
    [impact, graph],
  );

  // open column lists: those the user opened, the root dataset's (unless closed) and the selected
  // column's dataset; the other datasets of a column path show only their path columns (elements.ts)
  const openColumns = useMemo(() => {
    const s = new Set(view.openColumns);
    // (not in the overview of a huge graph, which draws no column lists)
    if (!rootClosed && root.startsWith("dataset:") && (graph?.nodes.length ?? 0) <= OVERVIEW_AT) s.add(root);
    if (view.column) s.add(datasetOfField(view.column));
    if (impactSet && isField(impactTarget)) for (const id of impactSet) if (isField(id)) s.add(datasetOfField(id));
    return s;
  }, [view.openColumns, view.column, impactSet, impactTarget, rootClosed, root, graph]);

  const expansionSet = useMemo(() => new Set(view.expansions), [view.expansions]);
  const lv = useMemo(() => (graph ? levels(graph, root.startsWith("datasetField:") ? datasetOfField(root) : root) : new Map()), [graph, root]);

  // the overview of a huge graph rings the selected node itself: selecting one must not rebuild 50,000 elements
  const elementsSelected = graph && graph.nodes.length > OVERVIEW_AT ? null : selected;
  const elements = useMemo(
    () =>
      graph
        ? builtElements({
            graph,
            root,
            levels: lv,
            selectedNode: elementsSelected,
            column: canvasColumn,
            path: canvasPath,
            impact: impactSet,
            marks,
            openColumns,
            columnUi,
            expansions: expansionSet,
            // React Flow draws the graph up to OVERVIEW_AT nodes; beyond, the overview canvas needs no handles
            precomputeHandles: graph.nodes.length > BIG_GRAPH && graph.nodes.length <= OVERVIEW_AT,
            directOnly: view.directOnly,
            hiddenDownstream: hidden ?? undefined,
            openedParentOf,
            catalogChips: catalogChips ?? undefined,
          })
        : null,
    [graph, root, lv, elementsSelected, canvasColumn, canvasPath, impactSet, marks, openColumns, columnUi, expansionSet, view.directOnly, hidden, openedParentOf, catalogChips],
  );

  // Esc closes the topmost pane: the impact panel, then the details pane (and the selected column)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA") && (t as HTMLInputElement).value) return;
      if (document.querySelector(".tb-menu[open], .modal-backdrop")) return;
      if (view.impact) setView({ impact: false });
      else if (selected || view.column) {
        setSelected(null);
        if (view.column) setView({ column: null });
      } else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [view.impact, view.column, selected, setView]);

  const drawnDatasets = useMemo(() => new Set(graph?.nodes.map((n) => n.id) ?? []), [graph]);
  const graphRefs: GraphRefs = useMemo(() => ({ drawn: (id) => drawnDatasets.has(id), show: (id) => setSelected(id) }), [drawnDatasets]);
  const datasetIds = useMemo(() => graph?.nodes.filter((n) => n.type === "DATASET").map((n) => n.id) ?? [], [graph]);
  const allOpen = datasetIds.length > 0 && datasetIds.every((d) => openColumns.has(d));

  const expand = useCallback(
    (nodeId: string, direction: Direction) => {
      const key = expansionKey({ nodeId, direction });
      touch(nodeId);
      if (!view.expansions.includes(key)) setView({ expansions: [...view.expansions, key] });
    },
    [view.expansions, setView, touch],
  );
  const collapse = useCallback(
    (nodeId: string, direction: Direction) => {
      if (!state) return;
      const drawnAs = (id: string) => (hierarchy ? (openJobs.has(hierarchy.top.get(id) ?? id) ? id : (hierarchy.top.get(id) ?? id)) : id);
      const next = collapseState(state, { nodeId, direction }, drawnAs);
      touch(nodeId);
      setView({ expansions: next.expansions.map(([k]) => k) });
    },
    [state, setView, hierarchy, openJobs, touch],
  );
  const actions: LineageActions = useMemo(
    () => ({
      expand,
      collapse,
      toggleColumns: (id) => {
        touch(id);
        if (id === root) setRootClosed(openColumns.has(id));
        setView({
          openColumns: openColumns.has(id) ? view.openColumns.filter((c) => c !== id) : [...view.openColumns, id],
          ...(openColumns.has(id) && view.column && datasetOfField(view.column) === id ? { column: null } : {}),
        });
      },
      selectColumn: (id) => {
        touch(datasetOfField(id));
        setView({ column: view.column === id ? null : id });
        setSelected(datasetOfField(id));
      },
      selectNode: (id) => {
        touch(id);
        setSelected(id);
      },
      setColumnPage: (id, page) => setColumnUi((m) => new Map(m).set(id, { ...(m.get(id) ?? { filter: "" }), page })),
      setColumnFilter: (id, filter) => setColumnUi((m) => new Map(m).set(id, { filter, page: 0 })),
      openAsset: (id) => navigate(nodeHref(id)),
      openJob: (id) => setView({ openJobs: [...view.openJobs.filter((j) => j !== id), id] }),
      showCatalogNodes: () => setView({ catalogNodes: true }),
      closeJob: (id) => {
        setView({ openJobs: view.openJobs.filter((j) => j !== id) });
        if (selected && hierarchy?.top.get(selected) === id) setSelected(id);
      },
    }),
    [expand, collapse, setView, openColumns, view.openColumns, view.column, view.openJobs, selected, hierarchy, touch, root],
  );

  return (
    <LineageContext.Provider value={actions}>
      <CatalogNodesContext.Provider value={catalogNodes}>
      <AnnotationsAtContext.Provider value={graphAt}>
      <GraphRefsContext.Provider value={graphRefs}>
      <div className="lineage">
        <Toolbar
          view={view}
          setView={setView}
          allColumnsOpen={allOpen}
          toggleAllColumns={() => setView({ openColumns: allOpen ? [] : datasetIds, column: allOpen ? null : view.column })}
          canImpact={!root.startsWith("job:") || Boolean(view.column)}
          catalogSwitch={Boolean(catalogChips?.size) || Boolean(graph?.nodes.some((n) => isCatalogId(n.id)))}
        />
        {view.at && !view.compareFrom && (
          <div className="banner banner-time" data-testid="time-banner">
            Showing the graph as it was at <b>{formatTime(view.at)}</b>.{" "}
            <button className="link" onClick={() => setView({ at: null })}>
              Back to now
            </button>
          </div>
        )}
        {view.compareFrom && <CompareBar answer={compare?.answer ?? null} error={compare?.error ?? null} />}
        {graph && graph.nodes.length === 1 && root.startsWith("job:") && (
          <LoneJobBanner jobId={root} at={graphAt} onGroup={() => setView({ groupJobs: true, openJobs: [] })} />
        )}
        {graph?.truncated && <div className="banner banner-warn">The graph was cut at the server's node limit; expand nodes to see further.</div>}
        {error && <div className="banner banner-error" data-testid="lineage-error">Could not load lineage: {error.message}</div>}
        <div className="lineage-body">
          <ReactFlowProvider>
            {elements ? (
              <Canvas elements={elements} client={layoutClient} root={root} focus={focus} selected={selected} anchor={anchor} onPaneClick={() => setSelected(null)} />
            ) : (
              <div className="canvas canvas-loading">{loading ? "Loading lineage…" : error ? "Nothing to draw: the lineage could not be loaded (above)." : "No lineage."}</div>
            )}
          </ReactFlowProvider>
          {(selected || view.column) && (
            <DetailsPane
              width={paneWidth}
              folded={paneFolded}
              onFold={setPaneFolded}
              onResize={(w) => {
                setPaneWidth(w);
                localStorage.setItem("headwater.paneWidth", String(Math.round(w)));
              }}
              indirect={view.indirect}
              onIndirect={(on) => setView({ indirect: on })}
              nodeId={selected ?? (view.column ? datasetOfField(view.column) : root)}
              at={view.at}
              column={view.column}
              path={path}
              drawn={drawnDatasets}
              onClose={() => {
                setSelected(null);
                if (view.column) setView({ column: null });
              }}
              onPickVersion={(v) => setView({ at: v.validFrom })}
              onOpenAsset={(id) => navigate(nodeHref(id))}
              onClearColumn={() => setView({ column: null })}
            />
          )}
        </div>
        {view.impact && (
          <ImpactPanel
            target={impactTarget}
            answer={impact?.answer ?? null}
            error={impact?.error ?? null}
            onClose={() => setView({ impact: false })}
            onPick={(id) => setSelected(isField(id) ? datasetOfField(id) : id)}
            onOpen={(id) => navigate(nodeHref(id))}
            height={impactHeight}
            onResize={(h) => {
              setImpactHeight(h);
              localStorage.setItem("headwater.impactHeight", String(Math.round(h)));
            }}
            folded={impactFolded}
            onFold={setImpactFolded}
          />
        )}
      </div>
      </GraphRefsContext.Provider>
      </AnnotationsAtContext.Provider>
      </CatalogNodesContext.Provider>
    </LineageContext.Provider>
  );
}
