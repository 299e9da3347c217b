//! After refinement: the procedural render's silhouette, transparency and
//! paint colour are put back, in wgpu compute passes
//! (`shaders/reimpose.wgsl`) on the renderer's device.
//!
//! - Alpha is the procedural alpha, byte for byte: the refined image never
//!   changes what is transparent, nor the contact shadow.
//! - Outside the vehicle (background, shadow) the colour is the procedural
//!   colour. Inside, the refined colour is used, fading to the procedural one
//!   over the last few pixels before the silhouette (the coverage mask eroded
//!   by 2 px, then averaged over 5x5), so the studio background the model
//!   saw around the vehicle never bleeds into its edges.
//! - On paint (and the contrasting roof), hue and saturation are the
//!   procedural pixel's, and the value (brightness) is the refined one,
//!   scaled so the paint's mean brightness matches the procedural render:
//!   the model adds reflections and shading but cannot change the requested
//!   colour.
//!
//! The tests hold the shader to a plain CPU version of the same rules
//! ([`reference`], test-only): equal alpha and outside colour, every other
//! channel within one level.

use wgpu::util::DeviceExt;

use super::guide::{Guide, NO_MATERIAL};
use crate::RenderError;
use crate::gpu::Gpu;
use crate::image::Rgba;
use crate::vehicle::Material;

const REIMPOSE_WGSL: &str = include_str!("../../../shaders/reimpose.wgsl");

/// Pixels of fade inside the silhouette (the shader's `R`).
#[cfg(test)]
const ERODE: usize = 2;
#[cfg(test)]
const BLUR: usize = 2;

/// The three compute pipelines (erode, weigh, combine), built once per
/// renderer.
#[derive(Debug)]
pub struct Reimposer {
    layout: wgpu::BindGroupLayout,
    erode: wgpu::ComputePipeline,
    weigh: wgpu::ComputePipeline,
    combine: wgpu::ComputePipeline,
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    paint: u32,
    roof: u32,
    none: u32,
}

impl Reimposer {
    pub fn new(gpu: &Gpu) -> Reimposer {
        let d = &gpu.device;
        let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("reimpose.wgsl"),
            source: wgpu::ShaderSource::Wgsl(REIMPOSE_WGSL.into()),
        });
        let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("reimpose"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, false),
                storage(3, false),
                storage(4, false),
            ],
        });
        let pipeline_layout = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("reimpose"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Reimposer {
            erode: pipeline("erode"),
            weigh: pipeline("weigh"),
            combine: pipeline("combine"),
            layout,
        }
    }

    /// Combines the procedural render and its refinement (`refined`: RGB8,
    /// same size) using the guide's coverage and paint mask (same size).
    pub fn run(
        &self,
        gpu: &Gpu,
        procedural: &Rgba,
        refined: &[u8],
        guide: &Guide,
    ) -> Result<Rgba, RenderError> {
        let n = procedural.width as usize;
        assert_eq!(procedural.height as usize, n, "square renders");
        assert_eq!(guide.size as usize, n, "guide and render sizes differ");
        assert_eq!(refined.len(), n * n * 3, "refined image size");
        let area = n * n;
        let mut inputs: Vec<u32> = Vec::with_capacity(3 * area);
        inputs.extend(
            procedural
                .pixels
                .chunks_exact(4)
                .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]])),
        );
        inputs.extend(
            refined
                .chunks_exact(3)
                .map(|p| u32::from_le_bytes([p[0], p[1], p[2], 255])),
        );
        inputs.extend(guide.material.iter().map(|&m| u32::from(m)));

        let d = &gpu.device;
        let params = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("reimpose params"),
            contents: bytemuck::bytes_of(&Params {
                n: n as u32,
                paint: Material::Paint as u32,
                roof: Material::Roof as u32,
                none: u32::from(NO_MATERIAL),
            }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let input = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("reimpose inputs"),
            contents: bytemuck::cast_slice(&inputs),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let buffer = |label: &str, bytes: usize, usage: wgpu::BufferUsages| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let scratch = buffer("reimpose scratch", 2 * area * 4, storage);
        // Zeroed at creation, as wgpu guarantees for every new buffer.
        let sums = buffer("reimpose sums", 16, storage);
        let out = buffer(
            "reimpose out",
            area * 4,
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let readback = buffer(
            "reimpose readback",
            area * 4,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let bind = d.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("reimpose"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: input.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: scratch.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: sums.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: out.as_entire_binding(),
                },
            ],
        });
        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("reimpose"),
        });
        let groups = (n as u32).div_ceil(8);
        // One pass per stage: each reads what the last one wrote.
        for (label, pipeline) in [
            ("erode", &self.erode),
            ("weigh", &self.weigh),
            ("combine", &self.combine),
        ] {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(label),
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups, groups, 1);
        }
        enc.copy_buffer_to_buffer(&out, 0, &readback, 0, (area * 4) as u64);
        gpu.queue.submit([enc.finish()]);
        let pixels = gpu.read_buffer(&readback, n * 4, n * 4, n)?;
        Ok(Rgba {
            width: procedural.width,
            height: procedural.height,
            pixels,
        })
    }
}

/// The same rules on the CPU, one pixel after another: what the shader is
/// checked against.
#[cfg(test)]
pub fn reference(procedural: &Rgba, refined: &[u8], guide: &Guide) -> Rgba {
    let n = procedural.width as usize;
    assert_eq!(procedural.height as usize, n, "square renders");
    assert_eq!(guide.size as usize, n, "guide and render sizes differ");
    assert_eq!(refined.len(), n * n * 3, "refined image size");
    let weight = inside_weight(guide, n);

    // Exposure match over fully inside, opaque paint.
    let (mut sum_p, mut sum_r, mut count) = (0.0f64, 0.0f64, 0usize);
    for i in 0..n * n {
        if guide.is_paint(i) && weight[i] >= 0.999 && procedural.pixels[i * 4 + 3] == 255 {
            sum_p += f64::from(value(&procedural.pixels[i * 4..i * 4 + 3]));
            sum_r += f64::from(value(&refined[i * 3..i * 3 + 3]));
            count += 1;
        }
    }
    let gain = if count > 0 && sum_r > 1e-3 * count as f64 {
        (sum_p / sum_r).clamp(0.25, 4.0) as f32
    } else {
        1.0
    };

    let mut out = vec![0u8; n * n * 4];
    for i in 0..n * n {
        let p = &procedural.pixels[i * 4..i * 4 + 4];
        let a = p[3];
        if a == 0 {
            continue; // transparent: colour zeroed, as the post pass does
        }
        let w = weight[i];
        let o = &mut out[i * 4..i * 4 + 4];
        o[3] = a;
        if w <= 0.0 {
            o[..3].copy_from_slice(&p[..3]);
            continue;
        }
        let r = &refined[i * 3..i * 3 + 3];
        let target = if guide.keeps_hue(i) {
            let (h, s, _) = hsv(p);
            let v = (value(r) * gain).min(1.0);
            rgb(h, s, v)
        } else {
            [r[0], r[1], r[2]].map(|c| f32::from(c) / 255.0)
        };
        for c in 0..3 {
            let pc = f32::from(p[c]) / 255.0;
            o[c] = ((pc + (target[c] - pc) * w) * 255.0)
                .round()
                .clamp(0.0, 255.0) as u8;
        }
    }
    Rgba {
        width: procedural.width,
        height: procedural.height,
        pixels: out,
    }
}

#[cfg(test)]
/// 1 well inside the vehicle, 0 outside, a ramp just inside the silhouette.
fn inside_weight(guide: &Guide, n: usize) -> Vec<f32> {
    let cover: Vec<f32> = (0..n * n)
        .map(|i| if guide.covered(i) { 1.0 } else { 0.0 })
        .collect();
    // Erosion of a 0/1 mask: a pixel stays 1 when its whole window is 1.
    let full = (2 * ERODE + 1) as f32;
    let rows: Vec<f32> = box_sum(&cover, n, ERODE, true)
        .into_iter()
        .map(|v| if v >= full - 0.5 { 1.0 } else { 0.0 })
        .collect();
    let eroded: Vec<f32> = box_sum(&rows, n, ERODE, false)
        .into_iter()
        .map(|v| if v >= full - 0.5 { 1.0 } else { 0.0 })
        .collect();
    let len = ((2 * BLUR + 1) * (2 * BLUR + 1)) as f32;
    let blurred = box_sum(&box_sum(&eroded, n, BLUR, true), n, BLUR, false);
    blurred.into_iter().map(|v| v / len).collect()
}

#[cfg(test)]
/// Sums over a (2r+1) window along rows (or columns) with running sums;
/// samples outside the image count as 0. Inputs are small integers, so the
/// float sums are exact.
fn box_sum(src: &[f32], n: usize, r: usize, horizontal: bool) -> Vec<f32> {
    let mut dst = vec![0.0f32; n * n];
    if horizontal {
        for (s, d) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)) {
            let mut sum: f32 = s[..r.min(n)].iter().sum();
            for k in 0..n {
                if k + r < n {
                    sum += s[k + r];
                }
                if k > r {
                    sum -= s[k - r - 1];
                }
                d[k] = sum;
            }
        }
    } else {
        // Row by row, one running sum per column: cache-friendly.
        let mut sum = vec![0.0f32; n];
        for row in src.chunks_exact(n).take(r.min(n)) {
            sum.iter_mut().zip(row).for_each(|(a, b)| *a += b);
        }
        for k in 0..n {
            if k + r < n {
                let add = &src[(k + r) * n..(k + r + 1) * n];
                sum.iter_mut().zip(add).for_each(|(a, b)| *a += b);
            }
            if k > r {
                let sub = &src[(k - r - 1) * n..(k - r) * n];
                sum.iter_mut().zip(sub).for_each(|(a, b)| *a -= b);
            }
            dst[k * n..(k + 1) * n].copy_from_slice(&sum);
        }
    }
    dst
}

#[cfg(test)]
fn value(p: &[u8]) -> f32 {
    f32::from(p[0].max(p[1]).max(p[2])) / 255.0
}

/// Hue (degrees), saturation and value of an sRGB8 pixel.
pub fn hsv(p: &[u8]) -> (f32, f32, f32) {
    let [r, g, b] = [p[0], p[1], p[2]].map(|c| f32::from(c) / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let d = max - min;
    let h = if d < 1e-6 {
        0.0
    } else if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    let s = if max > 0.0 { d / max } else { 0.0 };
    (h, s, max)
}

#[cfg(test)]
fn rgb(h: f32, s: f32, v: f32) -> [f32; 3] {
    let c = v * s;
    let hp = (h / 60.0).rem_euclid(6.0);
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r + m, g + m, b + m]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hue_distance(a: f32, b: f32) -> f32 {
        let d = (a - b).abs() % 360.0;
        d.min(360.0 - d)
    }

    /// A `n` px "render" (n >= 58): a red paint disc with a glass band and
    /// a dark roof band, anti-aliased edge alpha, a grey-black shadow below;
    /// refined = unrelated colours.
    fn scene(n: usize) -> (Rgba, Guide, Vec<u8>) {
        let mut px = vec![0u8; n * n * 4];
        let mut material = vec![NO_MATERIAL; n * n];
        for y in 0..n {
            for x in 0..n {
                let i = y * n + x;
                let d = ((x as f32 - 32.0).powi(2) + (y as f32 - 28.0).powi(2)).sqrt();
                if d < 20.0 {
                    let shade = (200.0 - d * 4.0) as u8;
                    px[i * 4..i * 4 + 4].copy_from_slice(&[shade, shade / 8, shade / 7, 255]);
                    material[i] = if y < 20 {
                        Material::Glass as u8
                    } else if y < 24 {
                        px[i * 4..i * 4 + 3].copy_from_slice(&[40, 40, 44]);
                        Material::Roof as u8
                    } else {
                        Material::Paint as u8
                    };
                } else if d < 21.0 {
                    px[i * 4..i * 4 + 4].copy_from_slice(&[150, 20, 25, 128]);
                } else if y > 50 && y < 56 {
                    px[i * 4 + 3] = 90; // shadow: black, partly opaque
                }
            }
        }
        let procedural = Rgba::new(n as u32, n as u32, px).unwrap();
        let guide = Guide {
            size: n as u32,
            material,
            depth: vec![1.0; n * n],
        };
        let refined: Vec<u8> = (0..n * n * 3).map(|i| ((i * 37) % 251) as u8).collect();
        (procedural, guide, refined)
    }

    /// The shader follows the CPU rules: alpha and everything outside the
    /// vehicle exactly, the rest within one level (float rounding). 61 px
    /// leaves partial workgroups at the edges.
    #[test]
    fn the_gpu_passes_match_the_reference() {
        let gpu = Gpu::new().expect("a wgpu adapter (lavapipe without a GPU)");
        let reimposer = Reimposer::new(&gpu);
        for n in [64usize, 61] {
            let (procedural, guide, refined) = scene(n);
            let want = reference(&procedural, &refined, &guide);
            let got = reimposer.run(&gpu, &procedural, &refined, &guide).unwrap();
            let mut differing = 0;
            for i in 0..n * n {
                let (w, g) = (
                    &want.pixels[i * 4..i * 4 + 4],
                    &got.pixels[i * 4..i * 4 + 4],
                );
                assert_eq!(g[3], w[3], "alpha at {i} ({n} px)");
                if !guide.covered(i) {
                    assert_eq!(g, w, "outside the vehicle at {i} ({n} px)");
                }
                for c in 0..3 {
                    assert!(
                        g[c].abs_diff(w[c]) <= 1,
                        "channel {c} at {i} ({n} px): {g:?} against {w:?}"
                    );
                }
                differing += usize::from(g != w);
            }
            assert!(
                differing * 100 < n * n,
                "{differing} pixels off by one level"
            );
        }
    }

    #[test]
    fn alpha_outside_colour_and_paint_hue_come_back_from_the_procedural_render() {
        let n = 64usize;
        let (procedural, guide, refined) = scene(n);
        let out = reference(&procedural, &refined, &guide);

        let (mut paint, mut roof) = (0, 0);
        for i in 0..n * n {
            let (p, o) = (
                &procedural.pixels[i * 4..i * 4 + 4],
                &out.pixels[i * 4..i * 4 + 4],
            );
            assert_eq!(o[3], p[3], "alpha at {i}");
            if p[3] == 0 {
                assert_eq!(o, [0, 0, 0, 0]);
            } else if !guide.covered(i) {
                assert_eq!(o, p, "outside the vehicle at {i}");
            }
            let (hp, sp, _) = hsv(p);
            let (ho, so, vo) = hsv(o);
            if guide.is_paint(i) && vo > 0.15 && sp > 0.3 {
                assert!(hue_distance(hp, ho) < 6.0, "hue {hp} -> {ho} at {i}");
                assert!((sp - so).abs() < 0.1, "saturation {sp} -> {so} at {i}");
                paint += 1;
            }
            // The roof stays as grey as drawn, whatever the model made of it.
            if guide.keeps_hue(i) && !guide.is_paint(i) && vo > 0.15 {
                assert!(
                    (sp - so).abs() < 0.05,
                    "roof saturation {sp} -> {so} at {i}"
                );
                roof += 1;
            }
        }
        assert!(paint > 500, "{paint} paint pixels checked");
        assert!(roof > 50, "{roof} roof pixels checked");
        // The glass band takes the refined colour well inside the silhouette.
        let i = 14 * n + 32;
        assert_eq!(&out.pixels[i * 4..i * 4 + 3], &refined[i * 3..i * 3 + 3]);
    }

    #[test]
    fn box_sums_match_a_direct_window_sum() {
        let n = 9;
        let src: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 3) as f32).collect();
        for horizontal in [true, false] {
            let got = box_sum(&src, n, 2, horizontal);
            for y in 0..n {
                for x in 0..n {
                    let mut want = 0.0;
                    for d in -2isize..=2 {
                        let (xx, yy) = if horizontal {
                            (x as isize + d, y as isize)
                        } else {
                            (x as isize, y as isize + d)
                        };
                        if (0..n as isize).contains(&xx) && (0..n as isize).contains(&yy) {
                            want += src[yy as usize * n + xx as usize];
                        }
                    }
                    assert_eq!(got[y * n + x], want, "({x},{y}) horizontal {horizontal}");
                }
            }
        }
    }

    #[test]
    fn hsv_round_trips() {
        for p in [
            [179u8, 18, 28],
            [31, 78, 168],
            [242, 196, 20],
            [107, 110, 115],
            [0, 0, 0],
        ] {
            let (h, s, v) = hsv(&p);
            let back = rgb(h, s, v).map(|c| (c * 255.0).round() as u8);
            assert_eq!(back, p);
        }
    }
}
