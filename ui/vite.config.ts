/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

// The build goes straight into the Python package so `pip install headwater` serves the UI.
// HEADWATER_UI_OUT lets the reproducibility check build into a temporary folder instead.
const outDir = process.env.HEADWATER_UI_OUT ?? fileURLToPath(new URL("../src/headwater/ui/static", import.meta.url));

export default defineConfig({
  plugins: [react()],
  base: "/",
  build: {
    outDir,
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 2500,
    reportCompressedSize: false,
  },
  worker: { format: "es" },
  server: {
    // `npm run dev` talks to a local `headwater serve`
    proxy: { "/api": "http://127.0.0.1:5000" },
  },
  test: {
    environment: "happy-dom",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
});
