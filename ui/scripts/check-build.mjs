// Rebuilds the UI into a temporary folder and compares it, file by file, with the committed
// build in src/headwater/ui/static. Fails (exit 1) and lists the differences when the committed
// assets are stale or the build is not reproducible.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const committed = fileURLToPath(new URL("../../src/headwater/ui/static", import.meta.url));
const fresh = mkdtempSync(join(tmpdir(), "headwater-ui-"));

function files(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), createHash("sha256").update(readFileSync(p)).digest("hex"));
    }
  };
  walk(dir);
  return out;
}

try {
  execFileSync("npx", ["vite", "build", "--logLevel", "warn"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, HEADWATER_UI_OUT: fresh },
    stdio: "inherit",
  });
  const want = files(fresh);
  const have = files(committed);
  const problems = [];
  for (const [f, h] of want) {
    if (!have.has(f)) problems.push(`missing in the committed build: ${f}`);
    else if (have.get(f) !== h) problems.push(`differs from a fresh build: ${f}`);
  }
  for (const f of have.keys()) if (!want.has(f)) problems.push(`not produced by a fresh build: ${f}`);
  if (problems.length) {
    console.error(`src/headwater/ui/static is not what \`npm run build\` gives:\n  ${problems.join("\n  ")}`);
    console.error("Rebuild with: cd ui && npm ci && npm run build, then commit src/headwater/ui/static.");
    process.exit(1);
  }
  console.log(`build reproducible: ${want.size} files identical to src/headwater/ui/static`);
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
