"""How long the lineage explorer takes to show big graphs, in headless Chromium.

    python bench/ui_paint.py                 # 100, 1,000 and 10,000 nodes, 5 rounds, interleaved
    python bench/ui_paint.py --sizes 1000 --rounds 3 --screenshot /tmp/g.png
    python bench/ui_paint.py --ab /tmp/old-static   # A/B: the built UI against another build, interleaved

Each round navigates once to each size (a fresh page, 100 → 1,000 → 10,000, then again), after one
warm-up round; the table gives medians and the spread, bench/results/ui_paint.json the details.

Serves the built UI (``headwater.ui.static_dir()``) from a small stdlib HTTP server whose
``/api/v1/graph/lineage`` answers one synthetic layered graph of the wanted size (datasets and
jobs alternating, 6 columns per dataset), so only the browser side is measured: fetch, parse,
layout in the Web Worker, React Flow render. Reports, per size and in seconds from navigation start: *first*, two
animation frames after the first nodes are in the DOM (the fast layered layout is on screen);
*final*, two frames after the canvas says ``data-ready="true"`` (for graphs up to 300 nodes, ELK's
refined layout has replaced the first one); and the page's own performance marks, the layout time reported by the worker and the layout engine used.

``--fps`` also counts the frames drawn while dragging and wheel-zooming, at the opening view and with the
whole graph fitted (requestAnimationFrame callbacks per second of each gesture).

Targets (docs/ui.md): 10,000 nodes <= 1 s to first useful paint, 50,000 nodes <= 5 s with
panning and zooming at >= 30 frames/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from headwater.ui import static_dir

RESULTS = Path(__file__).resolve().parent / "results"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
ROOT_PREFIX = "dataset:bench:root_of_"
COLUMNS = ["id", "name", "amount", "created_at", "region", "status"]


def synthetic_lineage(size: int) -> dict[str, Any]:
    """A layered graph of ``size`` nodes: layer k holds datasets (even k) or jobs (odd k)."""
    layers = max(3, min(41, int(size**0.5) // 4 * 4 + 1))
    # exactly ``size`` nodes: the root alone in the middle layer, the rest spread over the others
    base, extra = divmod(max(size - 1, layers - 1), layers - 1)
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    column_edges: list[dict[str, Any]] = []
    ids: list[list[str]] = []
    mid = layers // 2
    for k in range(layers):
        row = []
        j = k if k < mid else k - 1  # index among the layers other than the root's
        for i in range(1 if k == mid else base + (j < extra)):
            if k == mid:
                nid = f"{ROOT_PREFIX}{size}"
                nodes.append(
                    {
                        "id": nid,
                        "type": "DATASET",
                        "namespace": "bench",
                        "name": nid.split(":")[-1],
                        "kind": "table",
                        "level": 0,
                        "hasMoreUpstream": False,
                        "hasMoreDownstream": False,
                        "fields": [{"name": c, "type": "string", "description": None, "fields": []} for c in COLUMNS],
                    }
                )
            elif k % 2 == 0:
                nid = f"dataset:bench:layer{k}/table_{i}"
                nodes.append(
                    {
                        "id": nid,
                        "type": "DATASET",
                        "namespace": "bench",
                        "name": f"layer{k}/table_{i}",
                        "kind": "table",
                        "level": k - mid,
                        "hasMoreUpstream": False,
                        "hasMoreDownstream": False,
                        "fields": [{"name": c, "type": "string", "description": None, "fields": []} for c in COLUMNS],
                    }
                )
            else:
                nid = f"job:bench:layer{k}.job_{i}"
                nodes.append(
                    {
                        "id": nid,
                        "type": "JOB",
                        "namespace": "bench",
                        "name": f"layer{k}.job_{i}",
                        "level": k - mid,
                        "hasMoreUpstream": False,
                        "hasMoreDownstream": False,
                        "latestRun": {
                            "runId": str(i),
                            "state": "COMPLETE",
                            "startedAt": None,
                            "endedAt": None,
                            "durationMs": 1000 + i,
                        },
                    }
                )
            row.append(nid)
        ids.append(row)
    for k in range(1, layers):
        prev, cur = ids[k - 1], ids[k]
        for i, nid in enumerate(cur):
            # every node upstream reaches the root: the root layer takes all of the layer before it
            sources = set(prev) if len(cur) == 1 else {prev[i % len(prev)], prev[(i * 7 + 1) % len(prev)]}
            for src in sorted(sources):
                edges.append(
                    {
                        "id": f"{src}->{nid}",
                        "source": src,
                        "target": nid,
                        "type": "OUTPUT" if src.startswith("job:") else "INPUT",
                    }
                )
    return {
        "root": ids[mid][0],
        "at": None,
        "depth": layers,
        "truncated": False,
        "nodes": nodes,
        "edges": edges,
        "columnEdges": column_edges,
    }


class Handler(SimpleHTTPRequestHandler):
    graphs: dict[int, dict[str, Any]] = {}
    # each answer encoded once: the stdlib encoder needs ~2 s for 50,000 nodes (the real server writes
    # them with orjson), and only the browser's side is measured
    encoded: dict[int, bytes] = {}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _json(self, body: Any) -> None:
        self._bytes(json.dumps(body).encode())

    def _bytes(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        q = parse_qs(url.query)
        if url.path == "/api/v1/graph/lineage":
            size = int(q["nodeId"][0].removeprefix(ROOT_PREFIX))
            if size not in self.encoded:
                self.encoded[size] = json.dumps(self.graphs.setdefault(size, synthetic_lineage(size))).encode()
            self._bytes(self.encoded[size])
        elif url.path == "/api/v1/graph/node":
            nid = q["nodeId"][0]
            self._json({"id": nid, "type": "DATASET", "namespace": "bench", "name": nid, "fields": [], "facets": {}})
        elif url.path.startswith("/api/"):
            # what the stub does not serve (tags, quality, the catalog's badges): a 404, which the explorer
            # takes as "none" (an empty object crashed the node badges: a quality answer without `quality`)
            data = json.dumps({"error": {"code": "not_found", "message": url.path, "details": []}}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif (Path(self.directory) / url.path.lstrip("/")).is_file():
            super().do_GET()
        else:
            self.path = "/index.html"
            super().do_GET()


FRAME_COUNTER = """() => { window.__frames = 0; const tick = () => { window.__frames++; requestAnimationFrame(tick); };
requestAnimationFrame(tick); }"""


def interaction_fps(page: Any) -> dict[str, float]:
    """Frames per second the page draws while the user pans (dragging) and zooms (wheel), at the opening
    view and with the whole graph fitted into view (the most to draw): requestAnimationFrame callbacks
    counted over each gesture, which Chromium skips when a frame's work does not finish in time."""
    import time

    page.evaluate(FRAME_COUNTER)
    box = page.locator(".canvas-flow").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    out: dict[str, float] = {}

    def gesture(name: str, act: Any) -> None:
        start_frames = page.evaluate("() => window.__frames")
        t0 = time.perf_counter()
        act()
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(0)))")
        out[name] = round((page.evaluate("() => window.__frames") - start_frames) / (time.perf_counter() - t0), 1)

    def pan() -> None:
        page.mouse.move(cx, cy)
        page.mouse.down()
        for i in range(60):
            page.mouse.move(cx + 4 * i, cy + 2 * i)
            page.wait_for_timeout(16)
        page.mouse.up()

    def zoom() -> None:
        page.mouse.move(cx, cy)
        for i in range(40):
            page.mouse.wheel(0, 40 if i < 20 else -40)
            page.wait_for_timeout(16)

    gesture("pan_fps", pan)
    gesture("zoom_fps", zoom)
    page.get_by_test_id("fit-view").click()
    page.wait_for_timeout(300)
    gesture("pan_fitted_fps", pan)
    gesture("zoom_fitted_fps", zoom)
    return out


def measure(browser: Any, base: str, size: int, screenshot: str, with_fps: bool = False) -> dict[str, Any]:
    """One navigation to the asset page of a ``size``-node graph; seconds since navigation start."""
    graph = Handler.graphs.setdefault(size, synthetic_lineage(size))
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    # (the stub's 404s for what it does not serve are not worth a line)
    page.on(
        "console",
        lambda m: (
            m.type == "error" and not m.text.startswith("Failed to load resource") and print("  browser:", m.text)
        ),
    )
    page.goto(f"{base}/asset?node={ROOT_PREFIX}{size}")
    frames = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))"
    # React Flow's first node in the DOM, or the overview canvas (huge graphs) drawn once
    page.wait_for_selector('.react-flow__node, [data-testid="overview-canvas"][data-drawn="true"]', timeout=120_000)
    first = page.evaluate(frames) / 1000
    page.wait_for_selector('[data-testid="lineage-canvas"][data-ready="true"]', timeout=120_000)
    final = page.evaluate(frames) / 1000
    marks = page.evaluate(
        "() => Object.fromEntries(performance.getEntriesByType('mark')"
        ".map(m => [m.name.replace('headwater:', ''), Math.round(m.startTime)]))"
    )
    # when the lineage answer was asked for and had arrived (resource timing)
    marks.update(
        page.evaluate(
            "() => Object.fromEntries(performance.getEntriesByType('resource')"
            ".filter(r => r.name.includes('/graph/lineage')).slice(0, 1)"
            ".flatMap(r => [['fetch-start', Math.round(r.startTime)], ['fetch-end', Math.round(r.responseEnd)]]))"
        )
    )
    engine = page.locator('[data-testid="lineage-canvas"]').get_attribute("data-layout-engine")
    renderer = page.locator('[data-testid="lineage-canvas"]').get_attribute("data-renderer")
    fps = interaction_fps(page) if with_fps else {}
    if screenshot:
        page.screenshot(path=screenshot.replace(".png", f"-{size}.png"))
    page.close()
    return {
        "nodes": len(graph["nodes"]),
        "edges": len(graph["edges"]),
        "first": first,
        "final": final,
        "engine": engine,
        "renderer": renderer,
        "fps": fps,
        "marks_ms": marks,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--rounds", type=int, default=5, help="navigations per size, interleaved across sizes")
    ap.add_argument("--screenshot", default="")
    ap.add_argument("--fps", action="store_true", help="also count frames per second while panning and zooming")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument(
        "--ab",
        default="",
        metavar="DIR",
        help="also measure the build in DIR (e.g. an older static folder), interleaved with the current one",
    )
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    sizes = [int(s) for s in args.sizes.split(",")]
    builds = {"": str(static_dir())} | ({"B:": args.ab} if args.ab else {})
    servers, bases = [], {}
    for label, folder in builds.items():
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=folder))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        bases[label] = f"http://127.0.0.1:{server.server_port}"
    variants = [(label, size) for size in sizes for label in builds]
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {v: [] for v in variants}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        for label, size in variants:  # warm-up: Chromium's caches, the graph generator
            measure(browser, bases[label], size, "")
        for r in range(args.rounds):
            for label, size in variants:
                shot = args.screenshot.replace(".png", f"{label.rstrip(':')}.png") if r == args.rounds - 1 else ""
                one = measure(browser, bases[label], size, shot, with_fps=args.fps)
                runs[(label, size)].append(one)
                print(
                    f"  round {r + 1}: {label}{one['nodes']:>6} nodes  first {one['first']:.2f} s  "
                    f"final {one['final']:.2f} s  ({one['engine']}, {one['renderer']})"
                    + (f"  fps {one['fps']}" if one["fps"] else ""),
                    flush=True,
                )
        browser.close()
    for server in servers:
        server.shutdown()
    summary = []
    print(f"\n{'nodes':>9} {'edges':>7} {'first (median)':>15} {'final (median)':>15} {'final min–max':>15}  engine")
    for label, size in variants:
        done = runs[(label, size)]
        first = statistics.median(x["first"] for x in done)
        finals = [x["final"] for x in done]
        row = {
            "build": label.rstrip(":") or "current",
            "size": size,
            "nodes": done[0]["nodes"],
            "edges": done[0]["edges"],
            "rounds": len(done),
            "first_median_s": round(first, 3),
            "final_median_s": round(statistics.median(finals), 3),
            "final_min_s": round(min(finals), 3),
            "final_max_s": round(max(finals), 3),
            "engine": done[-1]["engine"],
            "renderer": done[-1]["renderer"],
            "fps_median": {k: statistics.median(x["fps"][k] for x in done) for k in (done[-1]["fps"] or {})},
            "last_marks_ms": done[-1]["marks_ms"],
        }
        summary.append(row)
        print(
            f"{label + str(row['nodes']):>9} {row['edges']:>7} {first:>13.2f} s {row['final_median_s']:>13.2f} s "
            f"{row['final_min_s']:>6.2f}–{row['final_max_s']:.2f} s  {row['engine']}, {row['renderer']}"
            + (f"  fps {row['fps_median']}" if row["fps_median"] else "")
        )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ui_paint.json").write_text(json.dumps({"rounds": args.rounds, "sizes": summary}, indent=2))
    print(f"written {RESULTS / 'ui_paint.json'}")


if __name__ == "__main__":
    main()
