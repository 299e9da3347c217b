# Shared helpers for infra/*.sh. Sourced, not run.

# Installs Debian packages that are missing; says what it installs.
ensure_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "infra: installing Debian packages: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "infra: cargo is not installed. Install Rust (https://rustup.rs), then run this again." >&2
    exit 1
  fi
  # The AVIF encoder's assembly (rav1e) is built with nasm.
  command -v nasm >/dev/null 2>&1 || ensure_packages nasm
}

# Build outputs live outside the clone so repeated runs and clean clones reuse them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/vis-target}"

# A venv with ONNX Runtime and onnx from PyPI (infra/onnx-requirements.txt),
# rebuilt when that file changes. Exports VIS_ORT_DYLIB (the wheel's
# libonnxruntime.so, what render-node --refine loads) and VIS_TEST_ONNX_PYTHON
# (the interpreter that writes the tiny test models).
ensure_onnx_runtime() {
  ensure_packages python3 python3-venv
  local venv="${VIS_ONNX_VENV:-$HOME/.cache/vis-onnx}"
  if ! cmp -s infra/onnx-requirements.txt "$venv/requirements.txt"; then
    echo "infra: installing ONNX Runtime and onnx (PyPI) into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r infra/onnx-requirements.txt
    cp infra/onnx-requirements.txt "$venv/requirements.txt"
  fi
  VIS_ORT_DYLIB=$("$venv/bin/python" -c 'import glob, os, onnxruntime
print(sorted(glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so.*")))[-1])')
  export VIS_ORT_DYLIB
  export VIS_TEST_ONNX_PYTHON="$venv/bin/python"
}
