// Re-imposition after ONNX refinement (render-node/src/onnx/reimpose.rs):
// the procedural render's alpha, its colour outside the vehicle and its paint
// hue are put back over the refined image. Three entry points, dispatched in
// order over an n x n image, 8x8 invocations per workgroup:
//   erode   - the coverage mask eroded by R px (a pixel stays covered when its
//             whole (2R+1)^2 window is covered; outside the image is not);
//   weigh   - how many of its (2R+1)^2 neighbours are eroded-covered (0..25:
//             the fade weight times 25), and the exposure sums over paint
//             that is fully inside and opaque;
//   combine - the output pixel.
// Pixels are RGBA8 packed little-endian in u32 (byte 0 is red), as the CPU
// holds them, so the buffers are the images' bytes.

struct Params {
    n: u32,
    paint: u32,
    roof: u32,
    none: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// [procedural RGBA8 | refined RGBA8 (alpha unused) | material], n*n each.
@group(0) @binding(1) var<storage, read> inputs: array<u32>;
// [eroded 0/1 | neighbour count 0..WINDOW], n*n each.
@group(0) @binding(2) var<storage, read_write> scratch: array<u32>;
// Sum of the procedural paint's value (max channel, 0..255), of the refined
// one, and how many pixels were summed.
@group(0) @binding(3) var<storage, read_write> sums: array<atomic<u32>, 3>;
@group(0) @binding(4) var<storage, read_write> out_px: array<u32>;

const R: i32 = 2;
const WINDOW: u32 = 25u; // (2R+1)^2

fn area() -> u32 {
    return params.n * params.n;
}

fn material(i: u32) -> u32 {
    return inputs[2u * area() + i];
}

fn covered(x: i32, y: i32) -> u32 {
    let n = i32(params.n);
    if (x < 0 || y < 0 || x >= n || y >= n) {
        return 0u;
    }
    return select(1u, 0u, material(u32(y * n + x)) == params.none);
}

fn eroded(x: i32, y: i32) -> u32 {
    let n = i32(params.n);
    if (x < 0 || y < 0 || x >= n || y >= n) {
        return 0u;
    }
    return scratch[u32(y * n + x)];
}

// The largest channel of a packed pixel, 0..255.
fn value_byte(px: u32) -> u32 {
    return max(px & 0xffu, max((px >> 8u) & 0xffu, (px >> 16u) & 0xffu));
}

@compute @workgroup_size(8, 8)
fn erode(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.n || id.y >= params.n) {
        return;
    }
    var all = 1u;
    for (var dy = -R; dy <= R; dy++) {
        for (var dx = -R; dx <= R; dx++) {
            all = all & covered(i32(id.x) + dx, i32(id.y) + dy);
        }
    }
    scratch[id.y * params.n + id.x] = all;
}

var<workgroup> group_sums: array<atomic<u32>, 3>;

@compute @workgroup_size(8, 8)
fn weigh(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let inside = id.x < params.n && id.y < params.n;
    if (inside) {
        var count = 0u;
        for (var dy = -R; dy <= R; dy++) {
            for (var dx = -R; dx <= R; dx++) {
                count += eroded(i32(id.x) + dx, i32(id.y) + dy);
            }
        }
        let i = id.y * params.n + id.x;
        scratch[area() + i] = count;
        let p = inputs[i];
        if (count == WINDOW && material(i) == params.paint && (p >> 24u) == 255u) {
            atomicAdd(&group_sums[0], value_byte(p));
            atomicAdd(&group_sums[1], value_byte(inputs[area() + i]));
            atomicAdd(&group_sums[2], 1u);
        }
    }
    // One global add per workgroup and sum, not one per pixel.
    workgroupBarrier();
    if (local == 0u) {
        for (var k = 0u; k < 3u; k++) {
            let s = atomicLoad(&group_sums[k]);
            if (s > 0u) {
                atomicAdd(&sums[k], s);
            }
        }
    }
}

fn hsv(c: vec3<f32>) -> vec3<f32> {
    let mx = max(c.r, max(c.g, c.b));
    let mn = min(c.r, min(c.g, c.b));
    let d = mx - mn;
    var h = 0.0;
    if (d >= 1e-6) {
        if (mx == c.r) {
            let t = (c.g - c.b) / d;
            h = 60.0 * (t - 6.0 * floor(t / 6.0));
        } else if (mx == c.g) {
            h = 60.0 * ((c.b - c.r) / d + 2.0);
        } else {
            h = 60.0 * ((c.r - c.g) / d + 4.0);
        }
    }
    let s = select(0.0, d / mx, mx > 0.0);
    return vec3<f32>(h, s, mx);
}

fn rgb(h: f32, s: f32, v: f32) -> vec3<f32> {
    let c = v * s;
    let q = h / 60.0;
    let hp = q - 6.0 * floor(q / 6.0);
    let x = c * (1.0 - abs(hp - 2.0 * floor(hp / 2.0) - 1.0));
    var t = vec3<f32>(c, 0.0, x);
    switch u32(hp) {
        case 0u: { t = vec3<f32>(c, x, 0.0); }
        case 1u: { t = vec3<f32>(x, c, 0.0); }
        case 2u: { t = vec3<f32>(0.0, c, x); }
        case 3u: { t = vec3<f32>(0.0, x, c); }
        case 4u: { t = vec3<f32>(x, 0.0, c); }
        default: {}
    }
    return t + vec3<f32>(v - c);
}

fn channels(px: u32) -> vec3<f32> {
    return vec3<f32>(
        f32(px & 0xffu),
        f32((px >> 8u) & 0xffu),
        f32((px >> 16u) & 0xffu),
    ) / 255.0;
}

@compute @workgroup_size(8, 8)
fn combine(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= params.n || id.y >= params.n) {
        return;
    }
    let i = id.y * params.n + id.x;
    let p = inputs[i];
    let alpha = p >> 24u;
    if (alpha == 0u) {
        out_px[i] = 0u; // transparent: colour zeroed, as the post pass does
        return;
    }
    let count = scratch[area() + i];
    if (count == 0u) {
        out_px[i] = p;
        return;
    }
    let w = f32(count) / f32(WINDOW);
    let pc = channels(p);
    let r = inputs[area() + i];
    var target_ = channels(r);
    let m = material(i);
    if (m == params.paint || m == params.roof) {
        // Exposure: the paint's mean brightness as drawn over as refined.
        let sum_p = f32(atomicLoad(&sums[0]));
        let sum_r = f32(atomicLoad(&sums[1]));
        let n = f32(atomicLoad(&sums[2]));
        var gain = 1.0;
        if (n > 0.0 && sum_r > 0.255 * n) {
            gain = clamp(sum_p / sum_r, 0.25, 4.0);
        }
        let ph = hsv(pc);
        let v = min(f32(value_byte(r)) / 255.0 * gain, 1.0);
        target_ = rgb(ph.x, ph.y, v);
    }
    let o = clamp(floor((pc + (target_ - pc) * w) * 255.0 + 0.5), vec3<f32>(0.0), vec3<f32>(255.0));
    let b = vec3<u32>(o);
    out_px[i] = b.x | (b.y << 8u) | (b.z << 16u) | (alpha << 24u);
}
