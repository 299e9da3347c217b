#!/usr/bin/env python3
"""Cross-checks of the deployment files that no schema can make (run by
infra/validate-deploy.sh; argument: the repository root).

- Every VIS_* name in the deployment files and docs/deployment.md is one the
  binaries read (a flag's `env = "..."`, or a string literal in their source)
  or one the deployment's own scripts define.
- Every key of the control-plane TOML files is a field of the struct that
  control-plane/src/config.rs reads it into (the binary refuses unknown keys).
- compose.yaml's references resolve (depends_on, configs, volumes, files),
  and every variable it requires is in .env.example.
- kustomization.yaml lists every manifest but the examples, and its files exist.
- Node names
  match their tokens, in compose and on Kubernetes.
- The Dockerfile's Rust version is rust-toolchain.toml's.
"""

import pathlib
import re
import sys
import tomllib

import yaml

# Names the deployment's own scripts define, and where.
DEPLOY_NAMES = {
    "VIS_NODE_TOKEN_FILE": "infra/deploy/render-node-entrypoint.sh",
    "VIS_COMPOSE_NODES": "infra/deploy/compose-setup.sh",
}
SCANNED = [
    "infra/deploy/compose.yaml",
    "infra/deploy/compose.gpu.yaml",
    "infra/deploy/.env.example",
    "infra/deploy/Dockerfile",
    "infra/deploy/control-plane.toml",
    "infra/deploy/compose-setup.sh",
    "infra/deploy/render-node-entrypoint.sh",
    "infra/deploy/nginx.conf",
    "infra/k8s/*",
    "infra/systemd/*",
    "docs/deployment.md",
]

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
errors = []


def error(path, message):
    errors.append(f"{path}: {message}")


def read(rel):
    return (root / rel).read_text()


def scanned_files():
    for pattern in SCANNED:
        yield from sorted(p for p in root.glob(pattern) if p.is_file())


def yaml_docs(rel):
    return [d for d in yaml.safe_load_all(read(rel)) if d is not None]


def check_names():
    known = set()
    for crate in ("control-plane/src", "render-node/src"):
        for rs in (root / crate).rglob("*.rs"):
            known |= set(re.findall(r'"(VIS_[A-Z0-9_]+)"', rs.read_text()))
    for name, script in DEPLOY_NAMES.items():
        if name not in read(script):
            error(script, f"{name} is listed as defined here but is not")
    allowed = known | set(DEPLOY_NAMES)
    for path in scanned_files():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for name in re.findall(r"\bVIS_[A-Z0-9_]*[A-Z0-9]\b", line):
                if name not in allowed:
                    error(f"{path.relative_to(root)}:{n}", f"{name} is read by neither binary")


def config_structs():
    """struct name -> field names, and FileConfig's table -> struct name."""
    text = read("control-plane/src/config.rs")
    structs = {}
    for name, body in re.findall(r"pub struct (\w+) \{(.*?)\n\}", text, re.S):
        structs[name] = set(re.findall(r"^\s*pub (\w+):", body, re.M))
    tables = dict(re.findall(r"pub (\w+): Option<(\w+Config)>", text.split("pub struct FileConfig")[1].split("\n}")[0]))
    return structs, tables


def check_toml(rel):
    structs, tables = config_structs()
    try:
        data = tomllib.loads(read(rel))
    except tomllib.TOMLDecodeError as e:
        error(rel, f"not TOML: {e}")
        return {}
    for key, value in data.items():
        if key not in structs["FileConfig"]:
            error(rel, f"unknown top-level key {key}")
        elif isinstance(value, dict):
            struct = tables.get(key)
            for sub in value:
                if struct is None or sub not in structs.get(struct, set()):
                    error(rel, f"unknown key [{key}] {sub}")
    return data


def check_compose():
    rel = "infra/deploy/compose.yaml"
    doc = yaml.safe_load(read(rel))
    services = doc.get("services", {})
    for name, svc in services.items():
        for dep in svc.get("depends_on", {}) or {}:
            if dep not in services:
                error(rel, f"{name} depends on {dep}, which is not a service")
        for cfg in svc.get("configs", []) or []:
            source = cfg["source"] if isinstance(cfg, dict) else cfg
            if source not in (doc.get("configs") or {}):
                error(rel, f"{name} uses config {source}, which is not declared")
        for vol in svc.get("volumes", []) or []:
            source = vol.split(":")[0] if isinstance(vol, str) else vol.get("source", "")
            if not source.startswith((".", "/")) and source not in (doc.get("volumes") or {}):
                error(rel, f"{name} mounts volume {source}, which is not declared")
        build = svc.get("build")
        if build:
            context = root / "infra/deploy" / build["context"]
            if not (context / build["dockerfile"]).is_file():
                error(rel, f"{name} builds from {build['dockerfile']}, which is missing")
    for name, cfg in (doc.get("configs") or {}).items():
        if "file" in cfg and not (root / "infra/deploy" / cfg["file"]).is_file():
            error(rel, f"config {name} names {cfg['file']}, which is missing")
    env_example = read("infra/deploy/.env.example")
    for var in sorted(set(re.findall(r"\$\{(\w+):\?", read(rel)))):
        if not re.search(rf"^{var}=", env_example, re.M):
            error("infra/deploy/.env.example", f"{var}, which compose.yaml requires, is missing")
    gpu = yaml.safe_load(read("infra/deploy/compose.gpu.yaml"))
    for name in gpu.get("services", {}):
        if name not in services:
            error("infra/deploy/compose.gpu.yaml", f"{name} is not a service of compose.yaml")

    # Nodes: each has a token file.
    nodes = {n: s for n, s in services.items() if s.get("image", "").startswith("vis/render-node")}
    named = services["setup"]["environment"]["VIS_COMPOSE_NODES"].split()
    files = sorted(s["environment"]["VIS_NODE_TOKEN_FILE"].rsplit("/", 1)[1] for s in nodes.values())
    if sorted(named) != files:
        error(rel, f"setup makes tokens for {sorted(named)}, the nodes read {files}")


def check_kubernetes():
    base = "infra/k8s"
    kust = yaml.safe_load(read(f"{base}/kustomization.yaml"))
    listed = set(kust.get("resources", []))
    for res in listed:
        if not (root / base / res).is_file():
            error(f"{base}/kustomization.yaml", f"resource {res} is missing")
    for path in sorted((root / base).glob("*.yaml")):
        if path.name != "kustomization.yaml" and not path.name.endswith(".example.yaml") and path.name not in listed:
            error(f"{base}/kustomization.yaml", f"{path.name} is not listed")
    for gen in kust.get("configMapGenerator", []):
        for f in gen.get("files", []) + gen.get("envs", []):
            if not (root / base / f).is_file():
                error(f"{base}/kustomization.yaml", f"{gen['name']} reads {f}, which is missing")
    images = {i["name"] for i in kust.get("images", [])}
    objects = [d for res in sorted(listed) if (root / base / res).is_file() for d in yaml_docs(f"{base}/{res}")]
    for obj in objects:
        spec = obj.get("spec", {})
        pod = spec.get("template", {}).get("spec", {})
        for c in pod.get("containers", []):
            if c["image"].split(":")[0] not in images:
                error(base, f"{obj['kind']} {obj['metadata']['name']}: image {c['image']} is not in kustomization images")
        if obj["kind"] == "StatefulSet":
            env = {e["name"]: e.get("value") for e in pod["containers"][0].get("env", [])}
            if int(env.get("VIS_NODE_SLOTS", 1)) < 1:
                error(base, "VIS_NODE_SLOTS must be at least 1")
            names = {f"{obj['metadata']['name']}-{i}" for i in range(spec["replicas"])}
            for d in yaml_docs(f"{base}/secrets.example.yaml"):
                if d["metadata"]["name"] == "vis-node-tokens" and set(d["stringData"]) != names:
                    error(f"{base}/secrets.example.yaml", f"vis-node-tokens keys {sorted(d['stringData'])}, pods {sorted(names)}")


def check_systemd_toml():
    check_toml("infra/systemd/control-plane.toml.example")


def check_dockerfile():
    rel = "infra/deploy/Dockerfile"
    text = read(rel)
    want = tomllib.loads(read("rust-toolchain.toml"))["toolchain"]["channel"]
    got = re.search(r"^ARG RUST_VERSION=(\S+)", text, re.M)
    if not got or got.group(1) != want:
        error(rel, f"RUST_VERSION is {got and got.group(1)}, rust-toolchain.toml says {want}")
    for line in re.findall(r"^COPY .*$", text, re.M):
        src = line.split()[-2]
        if "--from=" not in line and src != "." and not (root / src).exists():
            error(rel, f"COPY {src}: no such file")


for check in (check_names, check_compose, check_kubernetes, check_systemd_toml, check_dockerfile):
    try:
        check()
    except (KeyError, TypeError, ValueError, FileNotFoundError) as e:
        error(check.__name__, f"could not check: {e!r}")

for e in errors:
    print(e)
sys.exit(1 if errors else 0)
