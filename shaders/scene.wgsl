// Scene pass: the vehicle under a studio of soft boxes, plus the ground
// plane that carries the blurred contact shadow. Writes premultiplied,
// linear, HDR colour; post.wgsl tone-maps and resolves.

struct Scene {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // Paint in linear RGB; w = 0 solid, 1 metallic, 2 pearl.
    paint: vec4<f32>,
    // Ground rectangle of the shadow map: x0, z0, 1/width, 1/depth.
    shadow_rect: vec4<f32>,
    // Shadow pass: height scale in x, occlusion scale in y; z = 1 for a
    // flat-lit colour check.
    misc: vec4<f32>,
};

@group(0) @binding(0) var<uniform> scene: Scene;
@group(0) @binding(1) var shadow_tex: texture_2d<f32>;
@group(0) @binding(2) var shadow_smp: sampler;

struct VIn {
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) material: u32,
};

struct VOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) material: u32,
};

@vertex
fn vs_main(v: VIn) -> VOut {
    var o: VOut;
    o.clip = scene.view_proj * vec4<f32>(v.pos, 1.0);
    o.world = v.pos;
    o.normal = v.normal;
    o.uv = v.uv;
    o.material = v.material;
    return o;
}

// One rectangular soft box: plane normal n (towards the light from the
// origin), axes a and b, half sizes in hs, soft edge width grows with rough.
fn softbox(d: vec3<f32>, n: vec3<f32>, a: vec3<f32>, b: vec3<f32>, hs: vec2<f32>, rough: f32) -> f32 {
    let t = dot(d, n);
    if (t <= 0.0) {
        return 0.0;
    }
    let p = d / t;
    let u = abs(dot(p, a)) / hs.x;
    let v = abs(dot(p, b)) / hs.y;
    let e = 0.04 + rough * 1.5;
    return (1.0 - smoothstep(1.0 - e, 1.0 + e, u)) * (1.0 - smoothstep(1.0 - e, 1.0 + e, v));
}

// The studio: a dark floor, a bright horizon band, a grey cyclorama, an
// overhead soft box and tall strip boxes either side.
fn env(d: vec3<f32>, rough: f32) -> vec3<f32> {
    var c = vec3<f32>(0.0);
    let y = d.y;
    let w = 0.05 + rough;
    let floor_c = 0.05 + 0.2 * exp(y * 14.0 / (1.0 + rough * 6.0));
    let wall = 0.22 + 0.55 * exp(-max(y, 0.0) * 6.0 / (1.0 + rough * 3.0));
    c += vec3<f32>(mix(floor_c, wall, smoothstep(-w * 0.3, w * 0.3, y)));
    c += vec3<f32>(4.5) * softbox(d, vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 0.0, 1.0), vec2<f32>(1.3, 0.55), rough);
    // Strip boxes mirrored left/right (so side and side-right match) and
    // front/rear fills; directions precomputed (normalize(cross(n, y))).
    // The rear pair at 1.0 (2.0 until session 42): a bonnet seen from the
    // front 3/4 reflects them at a grazing angle, and at 2.0 it was white
    // on every paint ("hoods strongly blown out": blind check, session 41).
    c += vec3<f32>(2.6) * softbox(d, vec3<f32>(0.47076, 0.21398, -0.85592), vec3<f32>(0.87622, -0.00000, 0.48192), vec3<f32>(0.0, 1.0, 0.0), vec2<f32>(0.16, 0.75), rough);
    c += vec3<f32>(1.0) * softbox(d, vec3<f32>(-0.64102, 0.22893, -0.73259), vec3<f32>(0.75258, 0.00000, -0.65850), vec3<f32>(0.0, 1.0, 0.0), vec2<f32>(0.16, 0.75), rough);
    c += vec3<f32>(2.6) * softbox(d, vec3<f32>(0.47076, 0.21398, 0.85592), vec3<f32>(-0.87622, 0.00000, 0.48192), vec3<f32>(0.0, 1.0, 0.0), vec2<f32>(0.16, 0.75), rough);
    c += vec3<f32>(1.0) * softbox(d, vec3<f32>(-0.64102, 0.22893, 0.73259), vec3<f32>(-0.75258, 0.00000, -0.65850), vec3<f32>(0.0, 1.0, 0.0), vec2<f32>(0.16, 0.75), rough);
    c += vec3<f32>(1.6) * softbox(d, vec3<f32>(0.94386, 0.33035, 0.00000), vec3<f32>(0.00000, 0.00000, 1.00000), vec3<f32>(0.0, 1.0, 0.0), vec2<f32>(0.6, 0.3), rough);
    c += vec3<f32>(1.2) * softbox(d, vec3<f32>(-0.94386, 0.33035, 0.00000), vec3<f32>(0.00000, 0.00000, -1.00000), vec3<f32>(0.0, 1.0, 0.0), vec2<f32>(0.6, 0.3), rough);
    return c;
}

// A cheap, very blurred studio for broad lobes (metallic sheen).
fn soft_env(d: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(mix(0.12, 0.6, smoothstep(-0.2, 0.3, d.y)) + 1.4 * smoothstep(0.5, 0.95, d.y));
}

// Diffuse light reaching a surface facing n.
fn irradiance(n: vec3<f32>) -> vec3<f32> {
    let sky = 0.55 + 0.45 * n.y;
    // Key light from above the front, fill from either side (symmetric).
    let key = max(dot(n, normalize(vec3<f32>(0.45, 0.85, 0.0))), 0.0);
    let fill = 0.5 * (max(dot(n, normalize(vec3<f32>(0.2, 0.4, 0.9))), 0.0) + max(dot(n, normalize(vec3<f32>(0.2, 0.4, -0.9))), 0.0));
    // A rear fill, so a tail is lit like a door and the clear coat's
    // reflection of the cyclorama does not veil a dark, unlit paint.
    let rear = max(dot(n, normalize(vec3<f32>(-0.8, 0.45, 0.0))), 0.0);
    return vec3<f32>(0.35 * sky + 0.75 * key + 0.45 * fill + 0.8 * rear);
}

fn fresnel(cos_t: f32, f0: f32) -> f32 {
    return f0 + (1.0 - f0) * pow(1.0 - clamp(cos_t, 0.0, 1.0), 5.0);
}

fn hash3(p: vec3<f32>) -> f32 {
    let q = fract(p * vec3<f32>(0.1031, 0.1030, 0.0973));
    let r = q + dot(q, q.yzx + 33.33);
    return fract((r.x + r.y) * r.z);
}

// What a material reflects: direct light `c` plus at most two reflections
// of the studio, k1 * env(r, r1) + k2 * env(r, r2).
struct Lobes {
    c: vec3<f32>,
    k1: vec3<f32>,
    r1: f32,
    k2: vec3<f32>,
    r2: f32,
}

// The body's paint (material 0): solid, metallic or pearl under a clear coat.
fn paint_lobes(i: VOut, n: vec3<f32>, r: vec3<f32>, nv: f32, irr: vec3<f32>) -> Lobes {
    var c = vec3<f32>(0.0);
    var k1 = vec3<f32>(0.0);
    var r1 = 0.0;
    var k2 = vec3<f32>(0.0);
    var r2 = 0.0;
    let base = scene.paint.rgb;
    if (scene.paint.w > 1.5) {
        // Pearl (mica, tri-coat): a brighter diffuse base than
        // metallic, a soft sheen whose tint slides from the paint
        // toward a pale cool white at grazing angles, and fine,
        // faint sparkle.
        let f = fresnel(nv, 0.05);
        let tint = mix(base, vec3<f32>(0.82, 0.86, 0.92), 0.45 * (1.0 - nv));
        let sheen = soft_env(r) * tint * 0.3;
        let cell = floor(i.world * 1400.0);
        let flake = step(0.985, hash3(cell)) * pow(max(dot(n, normalize(vec3<f32>(0.3, 1.0, 0.0))), 0.0), 2.0);
        c = base * irr * 0.8 * (1.0 - f) + sheen * (1.0 - f) + (base + vec3<f32>(0.3)) * flake * 0.06;
        k1 = vec3<f32>(f);
    } else if (scene.paint.w > 0.5) {
        // Metallic: darker diffuse, tinted broad sheen, sparkling flakes.
        let sheen = soft_env(r) * base * 0.55;
        let cell = floor(i.world * 900.0);
        let flake = step(0.96, hash3(cell)) * pow(max(dot(n, normalize(vec3<f32>(0.3, 1.0, 0.0))), 0.0), 2.0);
        let f = fresnel(nv, 0.05);
        // The flakes are finer than a pixel and shaded once per
        // pixel: at 0.35 (until session 30) they read as grain on
        // silver bonnets (blind checks, sessions 27 and 29).
        c = base * irr * 0.55 * (1.0 - f) + sheen * (1.0 - f) + base * flake * 0.1;
        k1 = vec3<f32>(f);
    } else {
        // Clear coat over a diffuse base.
        let f = fresnel(nv, 0.045);
        c = base * irr * (1.0 - f);
        k1 = vec3<f32>(f);
    }
    r1 = 0.01;
    // Occlusion (uv.x 10 + the share of light lost, on no other paint):
    // the inside of a pickup's bed darkens towards its floor, as a box's
    // walls do, so the bed reads open rather than as a cover.
    let open = 1.0 - step(9.5, i.uv.x) * clamp(i.uv.x - 10.0, 0.0, 1.0);
    c *= open;
    k1 *= open;
    // A shut line's lip (uv.x 7, beside the groove): the panels'
    // rounded edges catch the light. On dark paint the groove alone
    // is black on black, so the lips are lifted there (session 19).
    let lum = dot(base, vec3<f32>(0.2126, 0.7152, 0.0722));
    c += vec3<f32>(0.09) * step(6.5, i.uv.x) * step(i.uv.x, 7.5) * (1.0 - smoothstep(0.02, 0.15, lum)) * (0.4 + 0.6 * irr);
    return Lobes(c, k1, r1, k2, r2);
}

// A rim's face (material 4).
fn rim_lobes(i: VOut, irr: vec3<f32>) -> Lobes {
    var c = vec3<f32>(0.0);
    var k1 = vec3<f32>(0.0);
    var r1 = 0.0;
    var k2 = vec3<f32>(0.0);
    var r2 = 0.0;
    // Rim face (models/wheels.csv): uv.x = style * 2 + radial
    // fraction, uv.y = angle in spoke periods, both interpolated per
    // fragment. style = design % 8 + 8 * finish (0 silver, 1 dark,
    // 2 two-tone) + 24 * (design / 8) (vehicle::wheels::Wheel::style):
    // 0 five, 1 wide, 2 split, 3 multi, 4 turbine, 5 steel, 6 y,
    // 7 mesh, 8 ten, 9 twist, 10 dish.
    // A pixel's size in the face's units, taken here, before any
    // branch (derivatives need uniform control flow).
    let px_r = fwidth(i.uv.x);
    let px_a = fwidth(i.uv.y);
    let style = floor(i.uv.x / 2.0);
    let rad = i.uv.x - style * 2.0;
    let bank = floor(style / 24.0);
    let s8 = style - bank * 24.0;
    let fin = floor(s8 / 8.0);
    let design = s8 - fin * 8.0 + bank * 8.0;
    // Each design is drawn in the face's own lengths (the rim's radius
    // is 1) for its usual spoke count: a spoke a period's fraction wide
    // (until session 45) widened towards the rim like a fan blade, and
    // every design read as "a turbine" at 768 px. Another count scales
    // the spokes with the period.
    var counts = array<f32, 11>(5.0, 5.0, 5.0, 10.0, 5.0, 8.0, 5.0, 12.0, 10.0, 5.0, 8.0);
    let n_spokes = counts[u32(clamp(design, 0.0, 10.0))];
    let period = 6.2831853 / n_spokes;
    let a = fract(i.uv.y);
    // Across the spoke (its centre line at a = 0.5), in the face's lengths.
    let py = (a - 0.5) * period * rad;
    let ay = abs(py);
    let aa = max(max(px_r, px_a * period * rad), 0.003);
    // metal: how far inside the metal a point is (< 0: a window), the
    // spokes joined to a hub and a rim ring with rounded corners.
    var metal = 1.0;
    var hub_r = 0.24;
    var ring_r = 0.88;
    var fillet = 0.05;
    if (design == 0.0) {
        // Five broad straight spokes, a little wider at the hub; the
        // windows are large rounded triangles.
        metal = 0.1 + 0.04 * (1.0 - rad) - ay;
        hub_r = 0.27;
        ring_r = 0.87;
        fillet = 0.07;
    } else if (design == 1.0) {
        // Broad spokes round small rounded windows.
        metal = 0.2 - ay;
        hub_r = 0.4;
        ring_r = 0.8;
        fillet = 0.1;
    } else if (design == 2.0) {
        // Pairs of thin parallel spokes, joined at the hub.
        let o = 0.08 * smoothstep(0.22, 0.4, rad);
        metal = 0.04 - abs(ay - o);
    } else if (design == 3.0) {
        // Thin spokes flaring out at the rim: petal windows.
        metal = 0.03 + 0.1 * smoothstep(0.55, 0.92, rad) - ay;
        ring_r = 0.9;
    } else if (design == 4.0) {
        // Turbine: a disc with curved slots near its rim.
        let b = fract(i.uv.y * 2.0 + (rad - 0.45) * 1.6);
        metal = max((abs(b - 0.16) - 0.16) * period * 0.5 * rad, max(0.46 - rad, rad - 0.8));
        hub_r = -1.0;
        ring_r = 2.0;
    } else if (design == 5.0) {
        // Steel wheel under a hubcap: short rounded vents round the cap.
        metal = max(ay - 0.07, max(0.6 - rad, rad - 0.7));
        hub_r = -1.0;
        ring_r = 2.0;
    } else if (design == 6.0) {
        // Y: a broad stem from the hub forks halfway into two thin
        // branches that meet the rim far apart.
        let t = clamp((rad - 0.42) / 0.46, 0.0, 1.0);
        let o = 0.2 * t;
        metal = mix(0.09, 0.045, smoothstep(0.0, 0.4, t)) - abs(ay - o);
        fillet = 0.06;
    } else if (design == 7.0) {
        // Cross-spoke lattice: two families of straight bars, each
        // tangent to a circle inside the hub, cross in rows of diamond
        // windows (bars winding out at a steady angle drew a daisy).
        let c = 0.2 / max(rad, 0.2);
        let turn = acos(c) / period;
        let e1 = abs(fract(i.uv.y - turn + 0.5) - 0.5);
        let e2 = abs(fract(i.uv.y + turn + 0.5) - 0.5);
        metal = 0.03 - min(e1, e2) * period * rad * sqrt(1.0 - c * c);
        hub_r = 0.27;
        ring_r = 0.85;
        fillet = 0.03;
    } else if (design == 8.0) {
        // Ten thin straight spokes, long slot windows out to the rim.
        metal = 0.034 - ay;
        hub_r = 0.2;
        ring_r = 0.9;
        fillet = 0.04;
    } else if (design == 9.0) {
        // Swept spokes: each curves the same way towards the rim.
        let t = clamp((rad - 0.2) / 0.7, 0.0, 1.0);
        let sweep = 0.32 * t * t;
        let q = 0.64 * t / 0.7 * period * rad;
        let e = abs(fract(i.uv.y - sweep) - 0.5);
        metal = 0.085 - 0.025 * rad - e * period * rad / sqrt(1.0 + q * q);
        fillet = 0.06;
    } else {
        // Dish: a flat face pierced by round holes.
        let phi = (a - 0.5) * period;
        let p = vec2<f32>(rad * cos(phi), rad * sin(phi));
        metal = length(p - vec2<f32>(0.6, 0.0)) - 0.13;
        hub_r = -1.0;
        ring_r = 2.0;
    }
    // Join the hub and the rim ring, rounding the windows' corners.
    let joins = vec2<f32>(hub_r - rad, rad - ring_r);
    for (var k = 0; k < 2; k++) {
        let b = joins[k];
        let h = clamp(0.5 + 0.5 * (metal - b) / fillet, 0.0, 1.0);
        metal = mix(b, metal, h) + fillet * h * (1.0 - h);
    }
    // Antialiased over a pixel (a hard step crawled along the spokes).
    let solid = clamp(metal / aa + 0.5, 0.0, 1.0);
    let gap = 1.0 - solid;
    let lip = step(0.93, rad);
    // Painted silver alloy: a light diffuse grey under a satin
    // clear coat. Until session 30 it was a dark mirror (0.12 grey
    // under a 0.75 reflection) between black windows: chrome wire
    // wheels, "retro" and "of the wrong era" in two blind checks.
    var base = vec3<f32>(0.3) * irr;
    var spec = vec3<f32>(0.32, 0.33, 0.34);
    var rough = 0.3;
    if (fin == 1.0) {
        // Painted dark grey.
        base = vec3<f32>(0.042) * irr + vec3<f32>(0.02);
        spec = vec3<f32>(0.26);
    } else if (fin == 2.0) {
        // A machined face: bright, with the spokes' edges and the
        // pockets' walls painted dark, so the face reads as bright
        // spokes outlined in black, not as the silver wheel. The band is
        // about a pixel wide at 768 px: one half again as wide ate the
        // thin spokes of split, ten and y (session 45).
        let edge = 1.0 - clamp((metal - 0.02) / aa + 0.5, 0.0, 1.0);
        base = mix(vec3<f32>(0.34) * irr, vec3<f32>(0.03) * irr, edge);
        spec = mix(vec3<f32>(0.55, 0.56, 0.58), vec3<f32>(0.2), edge);
        rough = 0.15;
    }
    if (design == 5.0) {
        // The hubcap's grey plastic; the steel rim beyond it dark.
        let steel = step(0.8, rad);
        base = mix(vec3<f32>(0.09) * irr, vec3<f32>(0.025) * irr, steel);
        spec = mix(vec3<f32>(0.35), vec3<f32>(0.1), steel);
        rough = 0.4;
    }
    // A small flat centre cap, satin dark: a glossy one (until
    // session 30) caught the studio as a chrome dome.
    let hub = 1.0 - step(0.11, rad);
    let keep = solid * (1.0 - 0.85 * hub);
    // Through the windows: the brake disc's dull grey in the wheel's
    // shade, not a hole (0.09 until session 41: windows a third as
    // bright as the spokes, which blurred every design into one grey).
    c = (base * solid + vec3<f32>(0.055) * irr * gap) * (1.0 - hub) + vec3<f32>(0.05) * hub;
    k1 = spec * keep;
    r1 = rough;
    k2 = vec3<f32>(lip * 0.15 * (1.0 - hub));
    r2 = 0.05;
    return Lobes(c, k1, r1, k2, r2);
}

// Every other material of the car.
fn other_lobes(i: VOut, n: vec3<f32>, r: vec3<f32>, nv: f32, irr: vec3<f32>, fw: f32) -> Lobes {
    var c = vec3<f32>(0.0);
    var k1 = vec3<f32>(0.0);
    var r1 = 0.0;
    var k2 = vec3<f32>(0.0);
    var r2 = 0.0;
    switch i.material {
        case 1u: {
            // Tinted glass over a dark cabin. Its mirror of the overhead
            // soft box is dimmed (a studio flags it): a raked windscreen or
            // rear glass seen end on mirrors it at a grazing angle, and the
            // glass was a pale grey pane in every straight front and rear
            // view ("frosted", session 43's review).
            let f = fresnel(nv, 0.07);
            c = vec3<f32>(0.008, 0.011, 0.014);
            k1 = vec3<f32>((0.035 + 0.965 * f) * (1.0 - 0.7 * smoothstep(0.25, 0.8, r.y)));
        }
        case 2u: {
            // Rubber, with tread grooves on the running surface; the outer
            // sidewall (uv.x >= 2) is satin, its rim protector a touch
            // glossier, and it carries a fine moulded ring (no lettering).
            let side = step(1.5, i.uv.x);
            let groove = step(0.8, fract(i.uv.y * 60.0)) * step(0.3, i.uv.x) * step(i.uv.x, 0.75);
            let bead = side * (1.0 - step(2.1, i.uv.x));
            let ring = side * step(2.5, i.uv.x) * (1.0 - step(2.7, i.uv.x));
            c = vec3<f32>(0.025 + 0.01 * ring) * irr * (1.0 - groove * 0.6);
            k1 = vec3<f32>(0.035 + 0.03 * side + 0.04 * bead);
            r1 = 0.6 - 0.3 * side;
        }
        case 3u: {
            // Chrome. Where it mirrors the studio from 3 to 25 degrees
            // under the horizon (a grille's bars and frames, facing forward
            // and seen from above) it catches a white card standing in
            // front of the car: a mirror of the dark floor alone drew chrome
            // bars black on silver and white paint (session 32), and a
            // faint card (0.24 until session 45) left them the paint's grey,
            // "pale paint on silver".
            k1 = vec3<f32>(0.9, 0.92, 0.95);
            r1 = 0.03;
            c = vec3<f32>(0.7, 0.72, 0.76) * smoothstep(-0.7, -0.45, r.y) * (1.0 - smoothstep(-0.06, 0.02, r.y));
        }
        case 5u: {
            c = vec3<f32>(0.018) * irr;
            k1 = vec3<f32>(fresnel(nv, 0.04) * 0.6);
            r1 = 0.35;
        }
        case 6u: {
            // Headlamp: chrome reflector bowl, bright cells, clear cover.
            let cells = step(0.5, fract(i.uv.x * 3.0)) * step(0.25, i.uv.y) * step(i.uv.y, 0.75);
            c = vec3<f32>(2.2, 2.3, 2.5) * (0.35 + 0.65 * cells);
            k1 = vec3<f32>(0.5);
            r1 = 0.2;
            k2 = vec3<f32>(fresnel(nv, 0.05));
        }
        case 7u: {
            // A lit tail lamp: an even light guide. (Segmented by the
            // quads' uv until session 44: at 768 px the lit outline of
            // every lamp read as "jagged, dashed", aliasing.)
            c = vec3<f32>(2.6, 0.12, 0.08) * 0.8;
            k1 = vec3<f32>(fresnel(nv, 0.05));
        }
        case 8u: {
            // Blank plate: white, no text.
            c = vec3<f32>(0.82, 0.83, 0.84) * irr;
        }
        case 9u: {
            // A grille's opening: uv.x's integer part / 2 picks the fill
            // (vehicle::body::GrilleTexture): 0 horizontal slats over uv.y,
            // 1 vertical slats 2.8 cm apart, 2 a diamond mesh of 3.5 cm
            // cells (a cascading or honeycomb grille's), both in world space. A pattern finer than a few pixels
            // fades to its mean instead of aliasing into speckles.
            let tex = floor(i.uv.x / 2.0);
            var slat = step(0.55, fract(i.uv.y * 7.0));
            if (tex > 0.5) {
                var d = abs(fract(i.world.z / 0.028) - 0.5);
                var aa = fw / 0.028;
                var edge = 0.3;
                var mean = 0.4;
                if (tex > 1.5) {
                    let a = (i.world.z + i.world.y) / 0.035;
                    let b = (i.world.z - i.world.y) / 0.035;
                    d = max(abs(fract(a) - 0.5), abs(fract(b) - 0.5));
                    aa = fw * 1.41 / 0.035;
                    edge = 0.36;
                    mean = 0.5;
                }
                let sharp = smoothstep(edge - aa, edge + aa, d);
                slat = mix(mean, sharp, clamp(1.5 - 2.5 * aa, 0.0, 1.0));
            }
            // Horizontal slats show by their reflections; vertical slats
            // and a mesh face forward and catch little, so their bars are
            // a lit dark grey.
            // A mesh's bars are darker still and mirror the studio at a
            // fifth of a slat's strength: at half (until session 46) its
            // cells of 5-6 px at 768 px drew a grey halftone of dots over
            // every large grille ("dithered checkerboard grille mesh",
            // blind checks of sessions 45 and 46); real honeycomb reads as
            // a dark texture with faint highlights at that size.
            let mesh = step(1.5, tex);
            let lit = step(0.5, tex) * (0.045 - 0.025 * mesh);
            c = mix(vec3<f32>(0.01), vec3<f32>(0.02) + lit * irr, slat);
            k1 = vec3<f32>((0.25 - 0.2 * mesh) * slat);
            r1 = 0.2;
        }
        case 10u: {
            c = vec3<f32>(1.2, 0.45, 0.03);
            k1 = vec3<f32>(fresnel(nv, 0.05));
        }
        case 11u: {
            c = vec3<f32>(0.035, 0.03, 0.028) * irr;
            k1 = vec3<f32>(0.02);
            r1 = 0.5;
        }
        case 13u: {
            c = vec3<f32>(0.006);
        }
        case 14u: {
            // Contrast roof under the same clear coat as the paint: white
            // over dark paint, black over light; always white for a
            // two-tone glasshouse (uv.x 1).
            let l = dot(scene.paint.rgb, vec3<f32>(0.2126, 0.7152, 0.0722));
            let base = select(select(vec3<f32>(0.75), vec3<f32>(0.012), l > 0.25), vec3<f32>(0.75), i.uv.x > 0.5);
            let f = fresnel(nv, 0.045);
            c = base * irr * (1.0 - f);
            k1 = vec3<f32>(f);
            r1 = 0.01;
        }
        case 15u: {
            // Lamp housing: smoked black chrome behind a clear cover.
            c = vec3<f32>(0.012, 0.013, 0.015) * irr;
            k1 = vec3<f32>(0.04 + 0.5 * fresnel(nv, 0.04));
            r1 = 0.12;
        }
        case 16u: {
            // LED running light: even, cool and very bright.
            c = vec3<f32>(3.2, 3.35, 3.6);
            k1 = vec3<f32>(fresnel(nv, 0.05));
        }
        case 18u: {
            // A plain lamp's reflector behind its clear cover: a light,
            // cool silver grey lit by the studio and a glossy cover.
            c = vec3<f32>(0.16, 0.17, 0.19) * (0.4 + 0.6 * irr);
            k1 = vec3<f32>(0.22 + fresnel(nv, 0.05));
            r1 = 0.12;
        }
        case 17u: {
            // Tail lens: a deep red around the lit graphic, a lens unit
            // in daylight. (A smoked 0.1 red until session 44: lamps read
            // as dark holes with glowing edges, "tail-lamp glow only along
            // some edges" in that session's blind check.)
            c = vec3<f32>(0.26, 0.01, 0.014) * (0.5 + 0.5 * irr);
            k1 = vec3<f32>(fresnel(nv, 0.05) + 0.04);
            r1 = 0.05;
        }
        default: {
            c = vec3<f32>(1.0, 0.0, 1.0);
        }
    }
    return Lobes(c, k1, r1, k2, r2);
}

// The car's colours are tone-mapped here, per fragment, into the MSAA target
// (the post pass averages the samples): a fragment's samples share one
// colour, so this is the per-sample tone mapping the post pass did until
// session 32, at a quarter of the cost.
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

// The scene pass draws the ground and three ranges of the car's triangles,
// each with its own pipeline (`passes::Passes`): GROUP 0 the paint, 1 the
// rims, 2 the rest of the car, 3 the ground. GROUP is a pipeline constant,
// so each pipeline compiles only its own group's shading: the CPU fallback
// (lavapipe) runs every branch of a switch under masks for every fragment,
// and the paint's flakes and the rims' spoke patterns were paid by every
// pixel of every material (session 32).
override GROUP: u32 = 2u;

@fragment
fn fs_main(i: VOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    // The metres a pixel covers here (taken before any branch: derivatives
    // need uniform control flow), so fine patterns can be antialiased.
    let fw = length(fwidth(i.world));
    if (GROUP == 3u) {
        // Ground: black with the blurred occlusion as alpha.
        let uv = (i.world.xz - scene.shadow_rect.xy) * scene.shadow_rect.zw;
        let s = textureSampleLevel(shadow_tex, shadow_smp, uv, 0.0).r;
        let edge = smoothstep(0.0, 0.08, uv.x) * smoothstep(0.0, 0.08, uv.y)
            * smoothstep(0.0, 0.08, 1.0 - uv.x) * smoothstep(0.0, 0.08, 1.0 - uv.y);
        let a = clamp(s * 1.3, 0.0, 0.88) * edge;
        return vec4<f32>(0.0, 0.0, 0.0, a);
    }
    if (GROUP == 0u && scene.misc.z > 0.5) {
        // Flat-lit colour check: the paint in a uniform white studio of
        // intensity 1 (diffuse irradiance 1 plus the clear coat's 4.5%
        // reflection at normal incidence), which PBR Neutral maps back to
        // the base colour.
        return vec4<f32>(tonemap(scene.paint.rgb * (1.0 - 0.045) + vec3<f32>(0.045)), 1.0);
    }
    var n = normalize(i.normal);
    if (!front) {
        n = -n;
    }
    let v = normalize(scene.eye.xyz - i.world);
    // Meshes are two-sided; keep normals facing the eye.
    if (dot(n, v) < 0.0) {
        n = normalize(n - v * dot(n, v) * 1.02);
    }
    let r = reflect(-v, n);
    let nv = max(dot(n, v), 0.0);
    let irr = irradiance(n);
    // The studio's reflections are evaluated once, after the material's
    // lobes, not inside each material's branch (lavapipe would pay them
    // all for every fragment).
    var l: Lobes;
    if (GROUP == 0u) {
        l = paint_lobes(i, n, r, nv, irr);
    } else if (GROUP == 1u) {
        l = rim_lobes(i, irr);
    } else {
        l = other_lobes(i, n, r, nv, irr, fw);
    }
    var c = l.c + l.k1 * env(r, l.r1);
    if (any(l.k2 > vec3<f32>(0.0))) {
        c += l.k2 * env(r, l.r2);
    }
    return vec4<f32>(tonemap(max(c, vec3<f32>(0.0))), 1.0);
}

// Shadow pass: the vehicle seen from below, orthographic over the shadow
// rectangle; lower surfaces (nearer the ground) occlude more.
struct SOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) height: f32,
};

@vertex
fn vs_shadow(v: VIn) -> SOut {
    var o: SOut;
    let uv = (v.pos.xz - scene.shadow_rect.xy) * scene.shadow_rect.zw;
    o.clip = vec4<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, clamp(v.pos.y * scene.misc.x, 0.0, 1.0), 1.0);
    o.height = v.pos.y;
    return o;
}

@fragment
fn fs_shadow(i: SOut) -> @location(0) vec4<f32> {
    let occ = exp(-i.height * scene.misc.y);
    return vec4<f32>(occ, occ, occ, 1.0);
}
