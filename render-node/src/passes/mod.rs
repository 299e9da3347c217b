//! GPU passes: the contact-shadow map and its blur, the MSAA scene pass,
//! and the post-processing resolve to straight-alpha RGBA8.

use std::sync::{Condvar, Mutex};

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};
use wgpu::util::DeviceExt;

use crate::RenderError;
use crate::gpu::Gpu;
use crate::vehicle::{Material, Mesh, Vertex};

pub const SCENE_WGSL: &str = include_str!("../../../shaders/scene.wgsl");
pub const POST_WGSL: &str = include_str!("../../../shaders/post.wgsl");
pub const SHADOW_BLUR_WGSL: &str = include_str!("../../../shaders/shadow_blur.wgsl");

const HDR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
const SAMPLES: u32 = 4;
const SHADOW_PX: u32 = 128;
/// Triangles wholly above this height (metres) cast no contact shadow:
/// see `draw_with`.
const SHADOW_CASTER_TOP: f32 = 0.8;

#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct SceneUniform {
    view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    paint: [f32; 4],
    shadow_rect: [f32; 4],
    misc: [f32; 4],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct BlurUniform {
    dir: [i32; 2],
    radius: i32,
    pad: i32,
}

/// What one frame needs besides the mesh.
#[derive(Debug, Clone, Copy)]
pub struct FrameParams {
    pub view_proj: Mat4,
    pub eye: Vec3,
    /// Linear RGB paint.
    pub paint: [f32; 3],
    /// Solid, metallic (flakes, tinted sheen) or pearl (a sheen that
    /// shifts toward a pale cool white at grazing angles, fine sparkle).
    pub finish: vis_protocol::Finish,
    /// Colour checks: paint in a uniform white studio of intensity 1, so the
    /// output is the paint through tone mapping.
    pub flat_lit: bool,
    /// Draw the ground (the contact shadow); off for elevations.
    pub ground: bool,
}

/// Per-frame textures; pooled so concurrent renders don't share them.
struct Targets {
    msaa: wgpu::TextureView,
    /// The MSAA target's samples averaged (the scene pass's resolve).
    resolved: wgpu::TextureView,
    depth: wgpu::TextureView,
    out: wgpu::Texture,
    out_view: wgpu::TextureView,
    shadow: wgpu::TextureView,
    shadow_depth: wgpu::TextureView,
    blur_a: wgpu::TextureView,
    blur_b: wgpu::TextureView,
    readback: wgpu::Buffer,
}

/// Pipelines and the target pool. Several frames may be in flight, up to
/// `max_in_flight`; further callers wait.
pub struct Passes {
    size: u32,
    /// The scene pass's pipelines for the paint, the rims, the rest of the
    /// car and the ground (`scene.wgsl`'s `GROUP` 0 to 3).
    scene: [wgpu::RenderPipeline; 4],
    shadow: wgpu::RenderPipeline,
    post: wgpu::ComputePipeline,
    blur: wgpu::ComputePipeline,
    scene_layout: wgpu::BindGroupLayout,
    post_layout: wgpu::BindGroupLayout,
    blur_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    blur_dirs: [wgpu::Buffer; 2],
    pool: Mutex<(Vec<Targets>, usize)>,
    freed: Condvar,
    max_in_flight: usize,
}

impl std::fmt::Debug for Passes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passes").field("size", &self.size).finish()
    }
}

fn vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    const ATTRS: [wgpu::VertexAttribute; 4] =
        wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint32];
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<Vertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &ATTRS,
    }
}

fn texture(
    gpu: &Gpu,
    label: &str,
    size: u32,
    format: wgpu::TextureFormat,
    samples: u32,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: samples,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

fn view(t: &wgpu::Texture) -> wgpu::TextureView {
    t.create_view(&wgpu::TextureViewDescriptor::default())
}

impl Passes {
    pub fn new(gpu: &Gpu, size: u32, max_in_flight: usize) -> Passes {
        let d = &gpu.device;
        let scene_mod = d.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("scene.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SCENE_WGSL.into()),
        });
        let post_mod = d.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("post.wgsl"),
            source: wgpu::ShaderSource::Wgsl(POST_WGSL.into()),
        });
        let blur_mod = d.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("shadow_blur.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SHADOW_BLUR_WGSL.into()),
        });
        let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
        let scene_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("scene"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: vis,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let post_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("post"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::StorageTexture {
                        access: wgpu::StorageTextureAccess::WriteOnly,
                        format: wgpu::TextureFormat::Rgba8Unorm,
                        view_dimension: wgpu::TextureViewDimension::D2,
                    },
                    count: None,
                },
            ],
        });
        let blur_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("blur"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::StorageTexture {
                        access: wgpu::StorageTextureAccess::WriteOnly,
                        format: HDR,
                        view_dimension: wgpu::TextureViewDimension::D2,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let scene_pl = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("scene"),
            bind_group_layouts: &[Some(&scene_layout)],
            immediate_size: 0,
        });
        let premul_over = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::SrcAlpha,
                dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                operation: wgpu::BlendOperation::Add,
            },
        };
        // The scene and shadow passes draw the same vertices with
        // `scene.wgsl`'s entry points; they differ in depth test, samples,
        // blending and the fragment's pipeline constants.
        let mesh_pipeline = |label: &str,
                             (vs, fs): (&str, &str),
                             depth_compare: wgpu::CompareFunction,
                             samples: u32,
                             blend: Option<wgpu::BlendState>,
                             constants: &[(&str, f64)]| {
            d.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&scene_pl),
                vertex: wgpu::VertexState {
                    module: &scene_mod,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &[Some(vertex_layout())],
                },
                primitive: wgpu::PrimitiveState {
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(depth_compare),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: samples,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &scene_mod,
                    entry_point: Some(fs),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants,
                        ..Default::default()
                    },
                    targets: &[Some(wgpu::ColorTargetState {
                        format: HDR,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let scene = [0.0, 1.0, 2.0, 3.0].map(|group| {
            mesh_pipeline(
                "scene",
                ("vs_main", "fs_main"),
                wgpu::CompareFunction::LessEqual,
                SAMPLES,
                Some(premul_over),
                &[("GROUP", group)],
            )
        });
        let shadow = mesh_pipeline(
            "shadow",
            ("vs_shadow", "fs_shadow"),
            wgpu::CompareFunction::Less,
            1,
            None,
            &[],
        );
        let post_pl = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("post"),
            bind_group_layouts: &[Some(&post_layout)],
            immediate_size: 0,
        });
        let post = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("post"),
            layout: Some(&post_pl),
            module: &post_mod,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let blur_pl = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("blur"),
            bind_group_layouts: &[Some(&blur_layout)],
            immediate_size: 0,
        });
        let blur = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("blur"),
            layout: Some(&blur_pl),
            module: &blur_mod,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let sampler = d.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let blur_dirs = [[1, 0], [0, 1]].map(|dir| {
            d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("blur dir"),
                contents: bytemuck::bytes_of(&BlurUniform {
                    dir,
                    radius: 7,
                    pad: 0,
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        });
        Passes {
            size,
            scene,
            shadow,
            post,
            blur,
            scene_layout,
            post_layout,
            blur_layout,
            sampler,
            blur_dirs,
            pool: Mutex::new((Vec::new(), 0)),
            freed: Condvar::new(),
            max_in_flight: max_in_flight.max(1),
        }
    }

    fn make_targets(&self, gpu: &Gpu) -> Targets {
        use wgpu::TextureUsages as U;
        let s = self.size;
        let out = texture(
            gpu,
            "out",
            s,
            wgpu::TextureFormat::Rgba8Unorm,
            1,
            U::STORAGE_BINDING | U::COPY_SRC,
        );
        Targets {
            msaa: view(&texture(gpu, "msaa", s, HDR, SAMPLES, U::RENDER_ATTACHMENT)),
            resolved: view(&texture(
                gpu,
                "resolved",
                s,
                HDR,
                1,
                U::RENDER_ATTACHMENT | U::TEXTURE_BINDING,
            )),
            depth: view(&texture(
                gpu,
                "depth",
                s,
                DEPTH,
                SAMPLES,
                U::RENDER_ATTACHMENT,
            )),
            out_view: view(&out),
            out,
            shadow: view(&texture(
                gpu,
                "shadow",
                SHADOW_PX,
                HDR,
                1,
                U::RENDER_ATTACHMENT | U::TEXTURE_BINDING,
            )),
            shadow_depth: view(&texture(
                gpu,
                "shadow depth",
                SHADOW_PX,
                DEPTH,
                1,
                U::RENDER_ATTACHMENT,
            )),
            blur_a: view(&texture(
                gpu,
                "blur a",
                SHADOW_PX,
                HDR,
                1,
                U::STORAGE_BINDING | U::TEXTURE_BINDING,
            )),
            blur_b: view(&texture(
                gpu,
                "blur b",
                SHADOW_PX,
                HDR,
                1,
                U::STORAGE_BINDING | U::TEXTURE_BINDING,
            )),
            readback: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: u64::from(s) * u64::from(s) * 4,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        }
    }

    fn acquire(&self, gpu: &Gpu) -> Targets {
        let mut g = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if g.1 < self.max_in_flight {
                g.1 += 1;
                if let Some(t) = g.0.pop() {
                    return t;
                }
                drop(g);
                return self.make_targets(gpu);
            }
            g = self.freed.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release(&self, t: Targets) {
        let mut g = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        g.0.push(t);
        g.1 -= 1;
        self.freed.notify_one();
    }

    /// Width and height of every frame, pixels.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Draws one frame; returns straight-alpha RGBA8, `size` x `size`.
    pub fn draw(
        &self,
        gpu: &Gpu,
        mesh: &Mesh,
        frame: &FrameParams,
    ) -> Result<Vec<u8>, RenderError> {
        let t = self.acquire(gpu);
        let result = self.draw_with(gpu, &t, mesh, frame);
        self.release(t);
        result
    }

    fn draw_with(
        &self,
        gpu: &Gpu,
        t: &Targets,
        mesh: &Mesh,
        frame: &FrameParams,
    ) -> Result<Vec<u8>, RenderError> {
        let d = &gpu.device;
        // Ground quad over the shadow rectangle: the footprint plus a margin.
        let (lo, hi) = mesh.bounds();
        let margin = 0.28 + 0.04 * (hi.x - lo.x);
        let (x0, z0) = (lo.x - margin, lo.z - margin);
        let (x1, z1) = (hi.x + margin, hi.z + margin);
        let mut vertices = Vec::with_capacity(mesh.vertices.len() + 4);
        let ground = |x: f32, z: f32| Vertex {
            pos: [x, -0.002, z],
            normal: [0.0, 1.0, 0.0],
            uv: [0.0, 0.0],
            material: Material::Ground as u32,
        };
        vertices.extend([
            ground(x0, z0),
            ground(x1, z0),
            ground(x1, z1),
            ground(x0, z1),
        ]);
        vertices.extend_from_slice(&mesh.vertices);
        // The car's triangles by pipeline: paint, rims, the rest, each by
        // its first vertex's material (the provoking vertex, whose `flat`
        // material the fragment shader sees).
        // A triangle of a surface whose back is never seen (`Mesh::shells`:
        // the body's closed shell, the rims' faces) whose three normals face
        // away from the eye lies behind the near side: the scene pass leaves
        // it out (lavapipe sets up and rasterises every triangle it is
        // given: 16% of an X5's cold render, docs/benchmarks.md "Session 37").
        // The shadow pass, seen from below, keeps it if it is a caster (below).
        let away = |i: u32| {
            let v = &mesh.vertices[i as usize];
            let n = Vec3::from(v.normal);
            let d = frame.eye - Vec3::from(v.pos);
            n.dot(d) < -0.3 * n.length() * d.length()
        };
        // The shadow pass's casters: every triangle reaching below
        // `SHADOW_CASTER_TOP` over the ground. What lies wholly above it
        // (the glasshouse, the roof, the upper body) is either hidden from
        // below by the body under it or, like a mirror's underside, a
        // metre up, where its occlusion (`exp(-3.2 h)`, `fs_shadow`) is
        // 4%: drawing it cost the shadow pass a vertex and a set-up a
        // triangle for nothing (docs/benchmarks.md, session 40).
        let low = |t: &[u32]| {
            t.iter()
                .any(|&i| mesh.vertices[i as usize].pos[1] < SHADOW_CASTER_TOP)
        };
        let mut groups: [Vec<u32>; 4] = Default::default();
        let mut casters = Vec::with_capacity(mesh.indices.len());
        for (k, t) in mesh.indices.chunks_exact(3).enumerate() {
            if low(t) {
                casters.extend(t.iter().map(|i| i + 4));
            }
            if t.iter().all(|&i| away(i)) && mesh.shells.iter().any(|r| r.contains(&(3 * k))) {
                continue;
            }
            let g = match mesh.vertices[t[0] as usize].material {
                m if m == Material::Paint as u32 => 0,
                m if m == Material::Alloy as u32 => 1,
                _ => 2,
            };
            groups[g].extend(t.iter().map(|i| i + 4));
        }
        groups[3] = casters;
        let mut indices = vec![0u32, 1, 2, 0, 2, 3];
        let mut ranges = Vec::with_capacity(4);
        for g in &groups {
            let start = indices.len() as u32;
            indices.extend_from_slice(g);
            ranges.push(start..indices.len() as u32);
        }
        let casters = ranges.pop().unwrap_or(0..0);
        let vbuf = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vertices"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let ibuf = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let uniform = SceneUniform {
            view_proj: frame.view_proj.to_cols_array_2d(),
            eye: frame.eye.extend(1.0).to_array(),
            paint: [
                frame.paint[0],
                frame.paint[1],
                frame.paint[2],
                match frame.finish {
                    vis_protocol::Finish::Solid => 0.0,
                    vis_protocol::Finish::Metallic => 1.0,
                    vis_protocol::Finish::Pearl => 2.0,
                },
            ],
            shadow_rect: [x0, z0, 1.0 / (x1 - x0), 1.0 / (z1 - z0)],
            misc: [
                1.0 / (hi.y + 0.1),
                2.6,
                if frame.flat_lit { 1.0 } else { 0.0 },
                0.0,
            ],
        };
        let ubuf = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("scene"),
            contents: bytemuck::bytes_of(&uniform),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let scene_bg = |tex: &wgpu::TextureView| {
            d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("scene"),
                layout: &self.scene_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: ubuf.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(tex),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&self.sampler),
                    },
                ],
            })
        };
        // The shadow pass doesn't sample; bind any texture it isn't writing.
        let shadow_bg = scene_bg(&t.blur_b);
        let main_bg = scene_bg(&t.blur_b);
        let blur_bg = |src: &wgpu::TextureView, dst: &wgpu::TextureView, dir: usize| {
            d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("blur"),
                layout: &self.blur_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(src),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(dst),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.blur_dirs[dir].as_entire_binding(),
                    },
                ],
            })
        };
        let blur_x = blur_bg(&t.shadow, &t.blur_a, 0);
        let blur_y = blur_bg(&t.blur_a, &t.blur_b, 1);
        let post_bg = d.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("post"),
            layout: &self.post_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&t.resolved),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&t.out_view),
                },
            ],
        });

        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("frame"),
        });
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &t.shadow,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &t.shadow_depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            pass.set_pipeline(&self.shadow);
            pass.set_bind_group(0, &shadow_bg, &[]);
            pass.set_vertex_buffer(0, vbuf.slice(..));
            pass.set_index_buffer(ibuf.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(casters.clone(), 0, 0..1);
        }
        let groups = SHADOW_PX.div_ceil(8);
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("shadow blur"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.blur);
            pass.set_bind_group(0, &blur_x, &[]);
            pass.dispatch_workgroups(groups, groups, 1);
            pass.set_bind_group(0, &blur_y, &[]);
            pass.dispatch_workgroups(groups, groups, 1);
        }
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &t.msaa,
                    depth_slice: None,
                    // The samples are tone-mapped already (`scene.wgsl`),
                    // so the pass's own resolve averages them; the samples
                    // themselves are not kept.
                    resolve_target: Some(&t.resolved),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &t.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            pass.set_bind_group(0, &main_bg, &[]);
            pass.set_vertex_buffer(0, vbuf.slice(..));
            pass.set_index_buffer(ibuf.slice(..), wgpu::IndexFormat::Uint32);
            for (pipeline, range) in self.scene[..3].iter().zip(ranges) {
                if !range.is_empty() {
                    pass.set_pipeline(pipeline);
                    pass.draw_indexed(range, 0, 0..1);
                }
            }
            if frame.ground {
                // After the car: the ground lies behind it, so the depth test
                // drops every sample the car covers before it is shaded
                // (drawn first, until session 37, all were shaded and then
                // painted over); the rest blend over the clear as before.
                pass.set_pipeline(&self.scene[3]);
                pass.draw_indexed(0..6, 0, 0..1);
            }
        }
        let g = self.size.div_ceil(8);
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("post"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.post);
            pass.set_bind_group(0, &post_bg, &[]);
            pass.dispatch_workgroups(g, g, 1);
        }
        let row = self.size as usize * 4;
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &t.out,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &t.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row as u32),
                    rows_per_image: Some(self.size),
                },
            },
            wgpu::Extent3d {
                width: self.size,
                height: self.size,
                depth_or_array_layers: 1,
            },
        );
        gpu.queue.submit([enc.finish()]);
        gpu.read_buffer(&t.readback, row, row, self.size as usize)
    }
}
