#!/usr/bin/env python3
"""Render every page template with the sample context in context.json into out/*.html.

The server renders these templates with minijinja; this script does too when the `minijinja`
Python package is installed (pip install minijinja: the same Rust engine), and also checks
that they render under Jinja2 (pip install jinja2). At least one of the two is needed.

    python3 render.py            # writes out/<page>.html for every page in context.json
    python3 serve.py             # serves out/ with /static, stubbed APIs and the real CSP
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
TEMPLATES = HERE.parent / "templates"
OUT = HERE / "out"

try:
    import minijinja
except ImportError:  # pragma: no cover
    minijinja = None
try:
    import jinja2
    import markupsafe
except ImportError:  # pragma: no cover
    jinja2 = None


def load_context():
    return json.loads((HERE / "context.json").read_text(encoding="utf-8"))


def page_context(spec, name, common):
    ctx = dict(common)
    ctx["page"] = spec.get("page", name)
    ctx.update(spec.get("context", {}))
    return ctx


def render_minijinja(template, ctx):
    env = minijinja.Environment(
        loader=lambda n: (TEMPLATES / n).read_text(encoding="utf-8") if (TEMPLATES / n).is_file() else None,
        auto_escape_callback=lambda n: n.endswith(".html"),
    )
    ctx = dict(ctx)
    if "body" in ctx:  # the server passes article bodies as safe HTML
        ctx["body"] = minijinja.safe(ctx["body"])
    return env.render_template(template, **ctx)


def render_jinja2(template, ctx):
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined if "--strict" in sys.argv else jinja2.Undefined,
    )
    ctx = dict(ctx)
    if "body" in ctx:
        ctx["body"] = markupsafe.Markup(ctx["body"])
    return env.get_template(template).render(**ctx)


def render_page(name, data=None):
    """Render one page; returns its HTML (minijinja's when available)."""
    data = data or load_context()
    spec = data["pages"][name]
    ctx = page_context(spec, name, data["common"])
    html = None
    if jinja2 is not None:
        html = render_jinja2(spec["template"], ctx)
    if minijinja is not None:
        html = render_minijinja(spec["template"], ctx)
    if html is None:
        sys.exit("install minijinja or jinja2: pip install minijinja jinja2")
    return html


def main():
    data = load_context()
    OUT.mkdir(exist_ok=True)
    engines = [e for e, m in (("minijinja", minijinja), ("jinja2", jinja2)) if m is not None]
    for name in data["pages"]:
        html = render_page(name, data)
        (OUT / f"{name}.html").write_text(html, encoding="utf-8")
        print(f"out/{name}.html  {len(html):>6} bytes")
    print("rendered with " + " and ".join(engines))


if __name__ == "__main__":
    main()
