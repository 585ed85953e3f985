// Runs the layout off the main thread so big graphs never freeze the page.
import { computeLayout } from "./compute";
import type { LayoutRequest } from "./types";

// a listener, not `self.onmessage`: elk.bundled.js, once loaded, installs its own `self.onmessage`
// (it can itself run as a worker), which would take every request that arrives while ELK is
// loading or laying out — a new graph's layout was then lost and the canvas stayed "Laying out…"
// (compute.ts removes ELK's handler as soon as the bundle is loaded)
self.addEventListener("message", (ev: MessageEvent<LayoutRequest>) => {
  void computeLayout(ev.data).then((result) =>
    // the fast layout's coordinates are handed over, not copied
    (self as unknown as Worker).postMessage(result, "x" in result ? [result.x.buffer, result.y.buffer] : []),
  );
});
