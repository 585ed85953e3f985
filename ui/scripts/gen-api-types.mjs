// The UI's API types, generated from the server's OpenAPI document (docs/ui.md, "API types"):
//   1. Python dumps the document of the current code (scripts/dump_openapi.py) into src/api/openapi.json;
//   2. openapi-typescript turns it into src/api/schema.d.ts.
// `node scripts/gen-api-types.mjs` writes both (npm run gen-api-types); with --check it writes them
// into a temporary folder and fails (exit 1) when the committed files differ (npm run check-api-types).
// Python: $PYTHON, else ../.venv/bin/python, else python3 (it must import headwater).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ui = fileURLToPath(new URL("..", import.meta.url));
const committed = join(ui, "src", "api");
const FILES = ["openapi.json", "schema.d.ts"];
const check = process.argv.includes("--check");

function python() {
  if (process.env.PYTHON) return process.env.PYTHON;
  const venv = join(ui, "..", ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

function generate(outDir) {
  const doc = execFileSync(python(), [join(ui, "scripts", "dump_openapi.py")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(join(outDir, "openapi.json"), doc);
  execFileSync(
    join(ui, "node_modules", ".bin", "openapi-typescript"),
    [join(outDir, "openapi.json"), "--output", join(outDir, "schema.d.ts")],
    { cwd: ui, stdio: ["ignore", "ignore", "inherit"] },
  );
}

if (!check) {
  generate(committed);
  console.log(`wrote src/api/${FILES.join(" and src/api/")}`);
} else {
  const fresh = mkdtempSync(join(tmpdir(), "headwater-api-types-"));
  try {
    generate(fresh);
    const stale = FILES.filter(
      (f) => !existsSync(join(committed, f)) || readFileSync(join(committed, f), "utf8") !== readFileSync(join(fresh, f), "utf8"),
    );
    if (stale.length) {
      console.error(`ui/src/api/${stale.join(", ui/src/api/")}: not what the current API's OpenAPI document gives.`);
      console.error("Regenerate with: cd ui && npm run gen-api-types, then fix the type errors (npm run typecheck) and commit.");
      process.exit(1);
    }
    console.log(`API types up to date: src/api/${FILES.join(" and src/api/")} match the current OpenAPI document`);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}
