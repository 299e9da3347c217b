// Fails when src/generated/openapi.ts is not what openapi-typescript makes
// of docs/openapi.json today: regenerates into a temporary file and
// compares. `npm run generate` rewrites it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "vis-sdk-ts-"));
try {
  const fresh = join(dir, "openapi.d.ts");
  execFileSync(
    join(root, "node_modules", ".bin", "openapi-typescript"),
    [join(root, "..", "..", "docs", "openapi.json"), "-o", fresh],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const committed = readFileSync(join(root, "src", "generated", "openapi.d.ts"), "utf8");
  if (readFileSync(fresh, "utf8") !== committed) {
    console.error(
      "sdk/typescript/src/generated/openapi.d.ts does not match docs/openapi.json: run `npm run generate` in sdk/typescript",
    );
    process.exit(1);
  }
  console.log("typescript: generated types match docs/openapi.json");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
