// Post-processing: reads the scene pass's resolved 4x MSAA target, whose
// samples the scene shader tone-mapped before the resolve averaged them
// (`scene.wgsl`'s `tonemap`: so edges against bright highlights stay
// clean), then un-premultiplies, cleans up alpha and encodes sRGB into
// straight-alpha RGBA8. Un-premultiplying before the sRGB curve is what
// keeps dark fringes off anti-aliased edges.

@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;

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
    let acc = clamp(textureLoad(src, vec2<i32>(id.xy), 0), vec4<f32>(0.0), vec4<f32>(1.0));
    // Alpha clean-up: drop what an 8-bit alpha cannot hold; colour of a
    // fully transparent pixel is zero.
    var out = vec4<f32>(0.0);
    if (acc.a >= 0.5 / 255.0) {
        out = vec4<f32>(srgb(clamp(acc.rgb / acc.a, vec3<f32>(0.0), vec3<f32>(1.0))), acc.a);
    }
    textureStore(dst, vec2<i32>(id.xy), out);
}
