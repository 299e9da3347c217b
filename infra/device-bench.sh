#!/usr/bin/env bash
# The renderer and the ONNX stage on a GPU machine (docs/benchmarks.md,
# "On a GPU"). Runs from the repository root over binaries built elsewhere,
# since a GPU host for a short lease has neither Rust nor a network:
#
#   .dev/render-node.gz  release render-node with the onnx feature, stripped
#   .dev/bench-render.gz the criterion bench binary (cargo bench --no-run)
#   .dev/libonnxruntime.so.1.31.1.gz   from the onnxruntime wheel
# (gzipped: a lease carries at most 64 MiB with the working tree).
# The renders are infra/device-set.txt ("make model year shape view" lines).
#   .dev/tiny/           infra/make-tiny-diffusion.py's model
#   .gl/*.deb            Vulkan and EGL loaders, unpacked here when missing
#
# Writes to $OUT (default ./device-out): info.txt (driver, adapter), the
# criterion figures, renders.tar (the set at 1024, silver, PNG) and times.txt.
# With .dev/control-plane.gz, also a node's throughput through the service
# (infra/bench-farm.sh with 1, 4, 8 and 16 slots). STEPS picks steps by
# name (default: "renders criterion spins onnx farm").
# QUICK=1 runs a token amount of each step (to try the script on a laptop).
# Every step is bounded so one failure still leaves the others' figures.
set -uo pipefail
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
if ! ldconfig -p | grep -q libvulkan.so.1 && ls .gl/*.deb >/dev/null 2>&1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then
  export VK_DRIVER_FILES=$icd
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
BIN=/tmp/dev
mkdir -p $BIN
for f in .dev/*.gz; do gunzip -c "$f" > "$BIN/$(basename "$f" .gz)"; done
chmod +x "$BIN"/*
cp -r .dev/tiny "$BIN/"
cp infra/device-set.txt "$BIN/set.txt"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nproc
  lscpu | grep -m1 'Model name'
} > "$OUT/info.txt" 2>&1
ms() { date +%s%N; }
want() { [[ " ${STEPS:-renders criterion spins onnx farm} " == *" $1 "* ]]; }
if [ -n "${QUICK:-}" ]; then
  LINES=2 FILTER='render/cold_1024_png/sedan' PROCS='1 2' YEARS=2 COLORS=red
else
  LINES=99 FILTER='render/|spin/(turn|batch)' PROCS='1 4 8 16' YEARS=27 COLORS=red,blue,black,white
fi
times=$OUT/times.txt

# 1. The set, one process a render (device start included), then its files.
mkdir -p /tmp/renders
want renders && while read -r make model year shape view; do
  t=$(ms)
  timeout 60 "$BIN/render-node" render --make "$make" --model "$model" --year "$year" \
    --shape "$shape" --color silver --view "$view" \
    -o "/tmp/renders/$make-$model-$year-$view.png" 2>>"$OUT/info.txt"
  echo "render $make $model $year $view rc=$? $(( ($(ms) - t) / 1000000 )) ms" >> "$times"
done < <(head -n "$LINES" "$BIN/set.txt")
want renders && tar -C /tmp -cf "$OUT/renders.tar" renders

# 2. Criterion: cold renders of every shape and the curated set, spins.
want criterion && {
  ( cd render-node && timeout 240 "$BIN/bench-render" --bench --warm-up-time 1 \
    --measurement-time 3 "$FILTER" ) > "$OUT/criterion.txt" 2>&1
  echo "criterion rc=$?" >> "$times"
}

# 3. A node's capacity: N processes at once, each a 24-frame spin at 512.
want spins && for n in $PROCS; do
  t=$(ms) pids=()
  for i in $(seq 1 "$n"); do
    timeout 120 "$BIN/render-node" spin --make toyota --model camry --year $((2000 + i)) \
      --shape sedan -o "/tmp/spin$i.webp" >/dev/null 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "spin x$n: $(( n * 24 )) frames in $(( ($(ms) - t) / 1000000 )) ms" >> "$times"
done

# 4. The ONNX stage (CPU execution provider: the CUDA one needs the
#    onnxruntime-gpu wheel, too large to carry) on the tiny model.
want onnx && for steps in 2 8; do
  t=$(ms)
  timeout 120 "$BIN/render-node" render --make toyota --model camry --year 2019 \
    --shape sedan --view front-3-4 --refine "$BIN/tiny" --refine-steps "$steps" \
    --ort-dylib "$BIN/libonnxruntime.so.1.31.1" -o /tmp/refined$steps.png 2>&1 | tail -1 >> "$times"
  echo "refine steps=$steps wall $(( ($(ms) - t) / 1000000 )) ms" >> "$times"
done
cp /tmp/refined8.png "$OUT/" 2>/dev/null

# 5. Through the service: a control plane that only dispatches, one node.
if want farm && [ -x "$BIN/control-plane" ]; then
  for slots in $PROCS; do
    VIS_BIN=$BIN timeout 120 bash infra/bench-farm.sh "$slots" "$YEARS" "$COLORS" 2>&1 | tail -1 >> "$times"
  done
fi
echo done >> "$times"
