#!/usr/bin/env python3
"""Preview server for the web pages, with no Rust: python3 serve.py [--port 8765]

- Pages are rendered from ../templates on every request (render.py, context.json), so an edit
  shows on reload; out/ is written too. Unknown paths get error.html with a 404.
- /static/... comes from ../static; /api/v1/openapi.json from the repository's docs/openapi.json.
- /api/v1/vehicles and /images/car.png are stubs: a small canned catalog, and a flat drawing of a
  car (a transparent PNG, whatever format was asked). The first request for a variant waits
  1.5 s, like a cold render. model=missing gives a 404, model=busy a 503, and more than
  `limits.per_minute` images a minute a 429, each an application/problem+json with a
  request_id (and Retry-After on 429/503), so the playground's error box can be seen.
- Every page carries the Content-Security-Policy the server sends (the docs page its own).
"""
import argparse
import json
import math
import pathlib
import struct
import time
import uuid
import zlib
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import render

HERE = pathlib.Path(__file__).resolve().parent
STATIC = HERE.parent / "static"
OPENAPI = HERE.parents[2] / "docs" / "openapi.json"

CSP = ("default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
# /docs: Redoc 2.5.2 adds exactly two <style> elements: perfect-scrollbar's CSS (its hash) and
# styled-components' empty sheet, filled through the CSSOM (the hash of ""). Its search runs in a
# blob: worker. (style-src 'self' 'unsafe-inline' works too, and is what an upgrade falls back to.)
CSP_DOCS = ("default-src 'self'; img-src 'self' data:; script-src 'self'; "
            "style-src 'self' 'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc=' "
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; worker-src 'self' blob:; "
            "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")

# A few makes and models: (make id, name, slug, [(model, slug, type, [year ranges])]).
CATALOG = [
    (448, "Toyota", "toyota", [("Camry", "camry", "Passenger Car", [(1990, 2026)]),
                               ("Corolla", "corolla", "Passenger Car", [(1990, 2026)]),
                               ("RAV4", "rav4", "Multipurpose Passenger Vehicle (MPV)", [(1996, 2026)]),
                               ("Supra", "supra", "Passenger Car", [(1993, 1998), (2020, 2026)]),
                               ("Land Cruiser", "land-cruiser", "Multipurpose Passenger Vehicle (MPV)", [(1990, 2026)]),
                               ("Prius", "prius", "Passenger Car", [(2001, 2026)])]),
    (584, "Porsche", "porsche", [("911", "911", "Passenger Car", [(1990, 2026)]),
                                 ("Cayenne", "cayenne", "Multipurpose Passenger Vehicle (MPV)", [(2003, 2026)]),
                                 ("Boxster", "boxster", "Passenger Car", [(1997, 2026)]),
                                 ("Taycan", "taycan", "Passenger Car", [(2020, 2026)])]),
    (460, "Ford", "ford", [("F-150", "f-150", "Truck", [(1990, 2026)]),
                           ("Mustang", "mustang", "Passenger Car", [(1990, 2026)]),
                           ("Bronco", "bronco", "Multipurpose Passenger Vehicle (MPV)", [(1990, 1996), (2021, 2026)]),
                           ("Focus", "focus", "Passenger Car", [(2000, 2018)])]),
    (474, "Honda", "honda", [("Civic", "civic", "Passenger Car", [(1990, 2026)]),
                             ("Accord", "accord", "Passenger Car", [(1990, 2026)]),
                             ("CR-V", "cr-v", "Multipurpose Passenger Vehicle (MPV)", [(1997, 2026)])]),
    (452, "BMW", "bmw", [("X5", "x5", "Multipurpose Passenger Vehicle (MPV)", [(2000, 2026)]),
                         ("3 Series", "3-series", "Passenger Car", [(1990, 2026)]),
                         ("M3", "m3", "Passenger Car", [(1995, 2026)])]),
    (441, "Tesla", "tesla", [("Model 3", "model-3", "Passenger Car", [(2017, 2026)]),
                             ("Model S", "model-s", "Passenger Car", [(2012, 2026)]),
                             ("Model Y", "model-y", "Multipurpose Passenger Vehicle (MPV)", [(2020, 2026)])]),
    (483, "Jeep", "jeep", [("Wrangler", "wrangler", "Multipurpose Passenger Vehicle (MPV)", [(1990, 2026)]),
                           ("Grand Cherokee", "grand-cherokee", "Multipurpose Passenger Vehicle (MPV)", [(1993, 2026)])]),
    (473, "Mazda", "mazda", [("MX-5 Miata", "mx-5-miata", "Passenger Car", [(1990, 2026)])]),
    (482, "Volkswagen", "volkswagen", [("Golf", "golf", "Passenger Car", [(1990, 2026)]),
                                       ("Beetle", "beetle", "Passenger Car", [(1998, 2019)])]),
    (467, "Chevrolet", "chevrolet", [("Corvette", "corvette", "Passenger Car", [(1990, 2026)]),
                                     ("Camaro", "camaro", "Passenger Car", [(1990, 2002), (2010, 2024)])]),
    (520, "Land Rover", "land-rover", [("Defender", "defender", "Multipurpose Passenger Vehicle (MPV)", [(1993, 1997), (2020, 2026)])]),
    (9999, "Mini", "mini", [("Cooper", "cooper", "Passenger Car", [(2002, 2026)])]),
    # Not vehicles: search "preview" to see the playground's error box (404 and 503).
    (1, "Preview", "preview", [("Missing", "missing", "Passenger Car", [(1990, 2026)]),
                               ("Busy", "busy", "Passenger Car", [(1990, 2026)])]),
]


def years_of(ranges):
    return [y for a, b in ranges for y in range(a, b + 1)]


def search(q, year, limit):
    ql = " ".join(q.lower().split())
    hits = []
    for mid, mname, mslug, models in CATALOG:
        mlow = mname.lower()
        make_years = sorted({y for m in models for y in years_of(m[3])})
        rest = ql
        if ql == mlow or ql == mslug:
            hits.append((0, {"kind": "make", "make_id": mid, "make_name": mname, "make_slug": mslug,
                             "years": make_years, "match_kind": "exact"}))
            rest = ""
        elif mlow.startswith(ql) and len(ql) >= 2:
            hits.append((1, {"kind": "make", "make_id": mid, "make_name": mname, "make_slug": mslug,
                             "years": make_years, "match_kind": "prefix"}))
        elif ql.startswith(mlow + " "):
            rest = ql[len(mlow) + 1:]
        for name, slug, vtype, ranges in models:
            low = name.lower()
            if not rest:
                continue
            if low == rest:
                kind, rank = "exact", 0
            elif low.startswith(rest) or slug.startswith(rest):
                kind, rank = "prefix", 1
            elif rest in low:
                kind, rank = "contains", 2
            else:
                continue
            hits.append((rank, {"kind": "model", "make_id": mid, "make_name": mname, "make_slug": mslug,
                                "model_name": name, "model_slug": slug, "vehicle_type": vtype,
                                "years": years_of(ranges), "match_kind": kind}))
    if year:
        hits = [h for h in hits if year in h[1]["years"]]
    hits.sort(key=lambda h: h[0])
    return [h[1] for h in hits[:limit]]


def find_make(slug):
    for mid, mname, mslug, models in CATALOG:
        if mslug == slug:
            return mid, mname, mslug, models
    return None


# ---------- a transparent PNG of a flat car ----------
COLORS = {
    "white": (244, 245, 242), "black": (20, 21, 23), "gray": (107, 110, 115), "grey": (107, 110, 115),
    "silver": (184, 188, 194), "blue": (31, 78, 168), "red": (179, 18, 28), "green": (30, 107, 58),
    "brown": (92, 58, 33), "beige": (216, 200, 168), "tan": (180, 142, 98), "orange": (224, 104, 20),
    "yellow": (242, 196, 20), "gold": (184, 146, 58), "burgundy": (106, 18, 42), "purple": (91, 42, 134),
}


def png(width, height, rgba_rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(row) for row in rgba_rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def car_png(color, view, px=384):
    base = COLORS.get(color, COLORS["silver"])
    side = view in ("side", "side-right", "front-3-4", "rear-3-4")
    flip = view in ("side-right", "rear-3-4")
    squeeze = 0.86 if view in ("front-3-4", "rear-3-4") else 1.0
    rows = []
    for j in range(px):
        row = bytearray(px * 4)
        v = (j + 0.5) / px
        for i in range(px):
            u = (i + 0.5) / px
            if flip:
                u = 1 - u
            u = 0.5 + (u - 0.5) / squeeze
            r = g = b = a = 0
            # shadow
            d = ((u - 0.5) / 0.46) ** 2 + ((v - 0.705) / 0.035) ** 2
            if d < 1:
                r, g, b, a = 0, 0, 0, int(70 * (1 - d))
            if side:
                body = 0.08 < u < 0.92 and 0.5 < v < 0.67 and not (
                    (u < 0.12 and v < 0.54) or (u > 0.9 and v < 0.53))
                cabin_top, cabin_bot = 0.37, 0.5
                t = (v - cabin_top) / (cabin_bot - cabin_top)
                cabin = 0 <= t <= 1 and (0.33 - 0.11 * t) < u < (0.66 + 0.12 * t)
                glass = cabin and 0.12 < t < 0.93 and (0.35 - 0.1 * t) < u < (0.64 + 0.1 * t) and abs(u - 0.49) > 0.012
                wheels = [(0.26, 0.665), (0.74, 0.665)]
                wr = 0.075
            else:
                body = 0.2 < u < 0.8 and 0.49 < v < 0.67
                t = (v - 0.35) / 0.14
                cabin = 0 <= t <= 1 and (0.31 - 0.05 * t) < u < (0.69 + 0.05 * t)
                glass = cabin and 0.15 < t < 0.9 and (0.33 - 0.05 * t) < u < (0.67 + 0.05 * t)
                wheels = [(0.27, 0.665), (0.73, 0.665)]
                wr = 0.0
            if body or cabin:
                shade = 1.18 - 0.55 * max(0.0, min(1.0, (v - 0.37) / 0.3))
                r, g, b = (min(255, int(c * shade + 10)) for c in base)
                a = 255
                if abs(v - 0.545) < 0.004:
                    r, g, b = (min(255, int(c * 1.35 + 30)) for c in (r, g, b))
            if glass:
                r, g, b, a = 38, 46, 60, 235
            if not side and 0.5 < v < 0.54 and (0.23 < u < 0.33 or 0.67 < u < 0.77):
                r, g, b, a = (250, 246, 225, 255) if view == "front" else (200, 20, 30, 255)
            if not side and 0.64 < v < 0.7 and (0.21 < u < 0.3 or 0.7 < u < 0.79):
                r, g, b, a = 24, 24, 28, 255
            for cx, cy in wheels:
                dd = math.hypot(u - cx, v - cy)
                if dd < wr:
                    r, g, b, a = (28, 28, 32, 255) if dd > wr * 0.55 else (196, 200, 208, 255)
            row[4 * i:4 * i + 4] = bytes((r, g, b, a))
        rows.append(row)
    return png(px, px, rows)


class State:
    seen = set()
    images = {}
    hits = []


def problem(status, title, detail):
    return {"type": f"/docs/errors#{status}", "title": title, "status": status, "detail": detail,
            "request_id": "req_" + uuid.uuid4().hex[:16]}


class Handler(SimpleHTTPRequestHandler):
    server_version = "vis-preview"
    per_minute = 30
    docs_csp = None

    def log_message(self, fmt, *args):  # quieter
        print("%s %s" % (self.command, self.path[:120]))

    def send_bytes(self, status, body, ctype, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, obj, ctype="application/json", headers=None):
        self.send_bytes(status, json.dumps(obj).encode(), ctype, headers)

    def send_page(self, name, status=200):
        data = render.load_context()
        if name == "error":
            data["pages"]["error"]["context"]["detail"] = f"No page at {urlsplit(self.path).path}."
        csp = (self.docs_csp or CSP_DOCS) if name == "docs" else CSP
        html = render.render_page(name, data)
        render.OUT.mkdir(exist_ok=True)
        (render.OUT / f"{name}.html").write_text(html, encoding="utf-8")
        self.send_bytes(status, html.encode(), "text/html; charset=utf-8", {
            "Content-Security-Policy": csp,
            "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urlsplit(self.path)
        path, qs = url.path, {k: v[-1] for k, v in parse_qs(url.query).items()}
        routes = {spec.get("route"): name for name, spec in render.load_context()["pages"].items()}
        if path in routes:
            return self.send_page(routes[path])
        if path.startswith("/static/"):
            f = (STATIC / path[len("/static/"):]).resolve()
            if STATIC in f.parents and f.is_file():
                types = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                         ".svg": "image/svg+xml", ".txt": "text/plain; charset=utf-8", ".md": "text/plain; charset=utf-8"}
                return self.send_bytes(200, f.read_bytes(), types.get(f.suffix, "application/octet-stream"),
                                       {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})
        if path == "/api/v1/openapi.json" and OPENAPI.is_file():
            return self.send_bytes(200, OPENAPI.read_bytes(), "application/json")
        if path == "/api/v1/vehicles":
            return self.vehicles(qs)
        if path == "/images/car.png":
            return self.image(qs)
        return self.send_page("error", 404)

    def vehicles(self, qs):
        rid = "req_" + uuid.uuid4().hex[:16]
        year = int(qs["year"]) if qs.get("year", "").isdigit() else None
        if "q" in qs:
            limit = int(qs.get("limit", "10"))
            data = {"query": qs["q"], "year": year, "results": search(qs["q"], year, limit)}
        elif "make" in qs:
            make = find_make(qs["make"])
            if not make:
                return self.send_json(404, problem(404, "Not Found", f"unknown make {qs['make']!r}"),
                                      "application/problem+json")
            mid, mname, mslug, models = make
            m = {"id": mid, "name": mname, "slug": mslug}
            if "model" in qs:
                for name, slug, vtype, ranges in models:
                    if slug == qs["model"]:
                        data = {"make": m, "model": {"name": name, "slug": slug, "vehicle_type": vtype},
                                "years": years_of(ranges)}
                        break
                else:
                    return self.send_json(404, problem(404, "Not Found", "no such model"), "application/problem+json")
            else:
                data = {"make": m, "year": year, "models": [
                    {"name": n, "slug": s, "vehicle_type": t} for n, s, t, r in models
                    if year is None or year in years_of(r)]}
        else:
            data = {"years": list(range(1990, 2027))}
        time.sleep(0.08)
        self.send_json(200, {"data": data, "request_id": rid}, headers={"Cache-Control": "public, max-age=86400"})

    def image(self, qs):
        now = time.time()
        State.hits = [t for t in State.hits if now - t < 60] + [now]
        ptype = "application/problem+json"
        if len(State.hits) > self.per_minute:
            wait = int(60 - (now - State.hits[0])) + 1
            return self.send_json(429, problem(429, "Too Many Requests",
                                  f"The playground allows {self.per_minute} images a minute."), ptype,
                                  {"Retry-After": str(wait)})
        model = qs.get("model", "")
        if model == "missing":
            return self.send_json(404, problem(404, "Not Found", f"make {qs.get('make')!r} has no model 'missing'."), ptype)
        if model == "busy":
            return self.send_json(503, problem(503, "Service Unavailable",
                                  "Every render node is busy; the request was not billed."), ptype,
                                  {"Retry-After": "20"})
        key = (qs.get("color", "silver"), qs.get("view", "front-3-4"))
        variant = tuple(sorted(qs.items()))
        if variant not in State.seen:
            State.seen.add(variant)
            time.sleep(1.5)
        if key not in State.images:
            State.images[key] = car_png(*key)
        self.send_bytes(200, State.images[key], "image/png", {"Cache-Control": "public, max-age=3600"})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--per-minute", type=int, default=30)
    ap.add_argument("--docs-csp", help="the Content-Security-Policy to send with /docs instead")
    args = ap.parse_args()
    Handler.docs_csp = args.docs_csp
    Handler.per_minute = args.per_minute
    httpd = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"http://127.0.0.1:{args.port}/  (pages: / /playground /pricing /docs /docs/embeds /signin)")
    httpd.serve_forever()


if __name__ == "__main__":
    main()
