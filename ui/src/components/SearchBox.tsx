// As-you-type search over datasets, jobs and columns (debounced), keyboard navigable.
import { useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import type { SearchResult } from "../api/types";
import { useDebounced } from "../lib/useAsync";
import { navigate } from "../lib/router";
import { nodeHref } from "../model/urlState";
import { datasetOfField } from "../model/nodeid";
import { DatasetKindIcon, JobIcon, ColumnsIcon, SearchIcon } from "./Icons";

export function resultHref(r: SearchResult): string {
  if (r.type === "FIELD") return nodeHref(datasetOfField(r.id), { column: r.id });
  return nodeHref(r.id);
}

export function ResultIcon({ type }: { type: SearchResult["type"] }) {
  if (type === "JOB") return <JobIcon size={16} />;
  if (type === "FIELD") return <ColumnsIcon size={16} />;
  return <DatasetKindIcon kind={null} size={16} />;
}

export function SearchBox() {
  const [q, setQ] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [results, setResults] = useState<SearchResult[]>([]);
  const [error, setError] = useState<string | null>(null);
  const debounced = useDebounced(q.trim(), 200);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!debounced) {
      setResults([]);
      return;
    }
    const ctl = new AbortController();
    api.search(debounced, 12, ctl.signal).then(
      (r) => {
        setResults(r.results);
        setError(null);
        setActive(0);
      },
      (e: Error) => !ctl.signal.aborted && setError(e.message),
    );
    return () => ctl.abort();
  }, [debounced]);

  useEffect(() => {
    const close = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false);
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, []);

  const go = (r: SearchResult) => {
    setOpen(false);
    setQ("");
    navigate(resultHref(r));
  };

  return (
    <div className="searchbox" ref={box}>
      <SearchIcon className="searchbox-icon" />
      <input
        type="search"
        placeholder="Search datasets, jobs, columns…"
        value={q}
        data-testid="search-input"
        aria-label="Search"
        onChange={(e) => {
          setQ(e.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") setActive((a) => Math.min(a + 1, results.length - 1));
          else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
          else if (e.key === "Enter") {
            if (results[active]) go(results[active]);
            else if (q.trim()) navigate(`/search?q=${encodeURIComponent(q.trim())}`);
          } else if (e.key === "Escape") setOpen(false);
        }}
      />
      {open && q.trim() && (
        <div className="searchbox-results" data-testid="search-results" role="listbox">
          {error && <div className="muted pad">Search failed: {error}</div>}
          {!error && results.length === 0 && debounced === q.trim() && <div className="muted pad">No match for “{q.trim()}”</div>}
          {results.map((r, i) => (
            <button
              key={r.id}
              className={`searchbox-item${i === active ? " active" : ""}`}
              role="option"
              aria-selected={i === active}
              data-testid="search-result"
              onMouseEnter={() => setActive(i)}
              onClick={() => go(r)}
            >
              <ResultIcon type={r.type} />
              <span className="searchbox-name">
                {r.type === "FIELD" ? (
                  <>
                    <b>{r.field}</b> <span className="muted">in {r.name}</span>
                  </>
                ) : (
                  r.name
                )}
              </span>
              <span className="searchbox-ns">{r.namespace}</span>
              <span className={`pill pill-${r.type.toLowerCase()}`}>{r.type.toLowerCase()}</span>
            </button>
          ))}
          <button className="searchbox-all" onClick={() => navigate(`/search?q=${encodeURIComponent(q.trim())}`)}>
            See all results for “{q.trim()}”
          </button>
        </div>
      )}
    </div>
  );
}
