// Runs the layout off the main thread so big graphs never freeze the page.
import { computeLayout } from "./compute";
import type { LayoutRequest } from "./types";

self.onmessage = async (ev: MessageEvent<LayoutRequest>) => {
  const result = await computeLayout(ev.data);
  (self as unknown as Worker).postMessage(result);
};
