// tsc emits no .d.ts it was given: copy the generated types next to the
// compiled index.d.ts, which imports them.
import { cpSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
cpSync(join(root, "src", "generated", "openapi.d.ts"), join(root, "dist", "src", "generated", "openapi.d.ts"));
