import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "@xyflow/react/dist/style.css";
import "./styles.css";
import { App } from "./App";
import { prefetchFromLocation } from "./lineage/prefetch";

try {
  prefetchFromLocation(window.location.pathname, window.location.search);
} catch {
  // the page asks itself
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
