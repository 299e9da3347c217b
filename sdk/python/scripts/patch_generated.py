"""A post hook of openapi-python-client (openapi-python-client.yaml): works
around one generator bug, and nothing else.

openapi-python-client 0.29.1 types an optional request body that has several
media types (POST /api/auth/device/code and /token take JSON or a form) as
`... | Unset` without importing `Unset`, so the module fails to import. This
adds `Unset` to the module's `...types` import where the name is used but not
imported. Run in the generated package's folder."""

import pathlib
import re
import sys

USED = re.compile(r"\bUnset\b")
IMPORT = re.compile(r"^from \.\.\.types import (.+)$", re.MULTILINE)

patched = 0
for path in sorted(pathlib.Path(".").glob("api/**/*.py")):
    text = path.read_text()
    if not USED.search(text):
        continue
    found = IMPORT.search(text)
    if found is None:
        sys.exit(f"patch_generated: {path} uses Unset and has no ...types import")
    names = [n.strip() for n in found.group(1).split(",")]
    if "Unset" in names:
        continue
    names.append("Unset")
    text = text[: found.start(1)] + ", ".join(names) + text[found.end(1) :]
    path.write_text(text)
    patched += 1
print(f"patch_generated: added the Unset import to {patched} module(s)")
