// Post-processing: resolves the 4x MSAA HDR target, tone-mapping every
// sample before averaging (clean edges against bright highlights; Khronos
// PBR Neutral, so paint keeps its hue and saturation), then
// un-premultiplies, cleans up alpha and encodes sRGB into straight-alpha
// RGBA8. Un-premultiplying before the sRGB curve is what keeps dark
// fringes off anti-aliased edges.

@group(0) @binding(0) var src: texture_multisampled_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;

fn tonemap(x: vec3<f32>) -> vec3<f32> {
    // Khronos PBR Neutral (KhronosGroup/ToneMapping, "PBR Neutral"): below
    // the compression start a colour passes through (less a small offset
    // that keeps blacks from floating), so a paint lit by an irradiance of
    // 1 comes out as its swatch; above it the peak channel rolls off
    // towards 1 and the colour desaturates towards white as much as it was
    // compressed, with no hue shift.
    let start = 0.8 - 0.04;
    let desaturation = 0.15;
    let m = min(x.r, min(x.g, x.b));
    let offset = select(0.04, m - 6.25 * m * m, m < 0.08);
    var c = x - vec3<f32>(offset);
    let peak = max(c.r, max(c.g, c.b));
    if (peak < start) {
        return c;
    }
    let d = 1.0 - start;
    let new_peak = 1.0 - d * d / (peak + d - start);
    c *= new_peak / peak;
    let g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(c, vec3<f32>(new_peak), g);
}

fn srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c <= vec3<f32>(0.0031308));
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let dims = textureDimensions(src);
    if (id.x >= dims.x || id.y >= dims.y) {
        return;
    }
    let n = i32(textureNumSamples(src));
    var acc = vec4<f32>(0.0);
    for (var s = 0; s < n; s++) {
        let p = textureLoad(src, vec2<i32>(id.xy), s);
        let a = clamp(p.a, 0.0, 1.0);
        var c = vec3<f32>(0.0);
        if (a > 1e-5) {
            c = tonemap(max(p.rgb / a, vec3<f32>(0.0)));
        }
        acc += vec4<f32>(c * a, a);
    }
    acc /= f32(n);
    // Alpha clean-up: drop what an 8-bit alpha cannot hold; colour of a
    // fully transparent pixel is zero.
    var out = vec4<f32>(0.0);
    if (acc.a >= 0.5 / 255.0) {
        out = vec4<f32>(srgb(clamp(acc.rgb / acc.a, vec3<f32>(0.0), vec3<f32>(1.0))), acc.a);
    }
    textureStore(dst, vec2<i32>(id.xy), out);
}
