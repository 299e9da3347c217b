// Separable Gaussian blur of the contact-shadow occlusion map; run once
// across and once down.

struct Blur {
    dir: vec2<i32>,
    radius: i32,
    pad: i32,
};

@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba16float, write>;
@group(0) @binding(2) var<uniform> blur: Blur;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let dims = vec2<i32>(textureDimensions(src));
    let p = vec2<i32>(id.xy);
    if (p.x >= dims.x || p.y >= dims.y) {
        return;
    }
    let sigma = max(f32(blur.radius) * 0.5, 0.5);
    var sum = 0.0;
    var wsum = 0.0;
    for (var k = -blur.radius; k <= blur.radius; k++) {
        let q = clamp(p + blur.dir * k, vec2<i32>(0), dims - vec2<i32>(1));
        let w = exp(-f32(k * k) / (2.0 * sigma * sigma));
        sum += textureLoad(src, q, 0).r * w;
        wsum += w;
    }
    let v = sum / wsum;
    textureStore(dst, p, vec4<f32>(v, v, v, 1.0));
}
