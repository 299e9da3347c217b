// Runs the TypeScript x-codeSamples of docs/openapi.json against a running
// server (VIS_BASE_URL, VIS_API_KEY; DELIVERY_URL, a signed URL): each is
// type-checked against this SDK (imported as "vis-sdk", the package itself)
// and then run with Node. Fails when any sample does not compile or throws.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const doc = JSON.parse(readFileSync(join(root, "..", "..", "docs", "openapi.json"), "utf8"));
const base = process.env.VIS_BASE_URL;
if (!base || !process.env.VIS_API_KEY || !process.env.DELIVERY_URL) {
  console.error("run-samples: set VIS_BASE_URL, VIS_API_KEY and DELIVERY_URL (sdk/test.sh does)");
  process.exit(1);
}
const dir = join(root, ".samples");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir);
const samples = [];
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    for (const sample of op["x-codeSamples"] ?? []) {
      if (sample.lang !== "TypeScript") continue;
      const name = `${op.operationId}`;
      samples.push({ name, what: `${method.toUpperCase()} ${path}` });
      // The samples address the embedded default; these run against the test server.
      writeFileSync(join(dir, `${name}.ts`), sample.source.replaceAll("http://127.0.0.1:8080", base));
    }
  }
}
if (samples.length < 15) {
  console.error(`run-samples: only ${samples.length} TypeScript samples in docs/openapi.json`);
  process.exit(1);
}
writeFileSync(
  join(dir, "tsconfig.json"),
  JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { rootDir: ".", outDir: "out" }, include: ["*.ts"] }),
);
try {
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json")], { stdio: "inherit" });
} catch {
  console.error("run-samples: the samples above do not type-check against the SDK");
  process.exit(1);
}
let failed = 0;
for (const { name, what } of samples) {
  try {
    execFileSync(process.execPath, [join(dir, "out", `${name}.js`)], { cwd: dir, stdio: ["ignore", "ignore", "pipe"], timeout: 300_000 });
    console.log(`ok - the TypeScript sample of ${what} runs`);
  } catch (e) {
    failed++;
    console.log(`not ok - the TypeScript sample of ${what}: ${String(e.stderr ?? e).slice(0, 2000)}`);
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`samples: ${samples.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
