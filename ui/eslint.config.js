// ESLint (flat config): `npm run lint`, run by scripts/test. TypeScript rules from typescript-eslint
// (recommended), React's hook rules (eslint-plugin-react-hooks, recommended: the rules of hooks,
// exhaustive effect dependencies and the React Compiler's checks). Type errors are tsc's job
// (`npm run typecheck`); generated files are not linted.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig([
  globalIgnores(["node_modules/", "src/api/schema.d.ts"]),
  {
    files: ["**/*.{ts,tsx}"],
    extends: [js.configs.recommended, tseslint.configs.recommended, reactHooks.configs.flat.recommended],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
    rules: {
      // Off for now: ten effects reset state or raise a loading flag as they start a fetch or a
      // layout (useAsync, SearchBox, LineageView, useLineageGraph, Canvas, Toolbar). Moving those
      // resets out of the effects (keyed components, state derived during render) is a change of
      // its own, to be made with the browser tests (tests/ui) watching; docs/ui.md "Lint".
      "react-hooks/set-state-in-effect": "off",
    },
  },
  {
    files: ["scripts/**/*.mjs", "eslint.config.js"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
]);
