#!/usr/bin/env python3
"""libvips doing the delivery pipeline's work, timed like the Rust bench.

Same source (the 1024 PNG the Rust bench writes to $TMPDIR/vis-bench-source.png),
same work per iteration: resize to fit NxN (Lanczos3, alpha premultiplied by
libvips), encode PNG (compression 1, like png's Fast), WebP lossy q85 with
alpha (effort 2 = libwebp method 2), JPG q85 flattened on white. Reports the
median of many runs, single-threaded (VIPS_CONCURRENCY=1) to match.

    pip install pyvips pyvips-binary
    python3 render-node/benches/vips_bench.py [source.png]
"""

import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import pyvips  # noqa: E402

pyvips.cache_set_max(0)


def timed(fn, runs=30, warmup=3):
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1000.0


def derive(src, px, fmt):
    img = src
    if px != img.width:
        img = img.resize(px / img.width, kernel="lanczos3")
    if fmt == "png":
        return img.write_to_buffer(".png", compression=1)
    if fmt == "webp":
        return img.write_to_buffer(".webp", Q=85, effort=2, alpha_q=90)
    return img.flatten(background=[255, 255, 255]).write_to_buffer(".jpg", Q=85)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.gettempdir(), "vis-bench-source.png")
    png = open(path, "rb").read()
    print(f"libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}, source {path}")
    print(f"decode_png_1024: {timed(lambda: pyvips.Image.new_from_buffer(png, '', access='sequential').copy_memory()):.2f} ms")
    decoded = pyvips.Image.new_from_buffer(png, "").copy_memory()
    for fmt in ("png", "webp", "jpg"):
        for px in (256, 512, 1024):
            ms = timed(lambda: derive(decoded, px, fmt))
            ms_png = timed(lambda: derive(pyvips.Image.new_from_buffer(png, "", access="sequential"), px, fmt))
            size = len(derive(decoded, px, fmt))
            print(f"from_rgba_{fmt}/{px}: {ms:.2f} ms   from_png_{fmt}/{px}: {ms_png:.2f} ms   {size} bytes")


if __name__ == "__main__":
    main()
