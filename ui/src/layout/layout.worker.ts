// Runs the layout off the main thread so big graphs never freeze the page.
import { computeLayout } from "./compute";
import type { LayoutRequest } from "./types";

const handle = async (ev: MessageEvent<LayoutRequest>) => {
  const result = await computeLayout(ev.data);
  // elk.bundled.js, once loaded, installs its own `self.onmessage` (it can itself run as a
  // worker); take the handler back so the next request reaches us
  self.onmessage = handle;
  (self as unknown as Worker).postMessage(result);
};

self.onmessage = handle;
