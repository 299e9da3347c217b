//! render-node CLI: single renders, the contact sheet, and `run`, a remote
//! render node serving a control plane (src/node.rs).

use vis_render::node;

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use vis_protocol::{BodyShape, Finish, Paint, View};
use vis_render::{Renderer, RendererConfig, Subject};

#[derive(Parser)]
#[command(name = "render-node", about = "Studio renders of vehicles")]
struct Cli {
    /// Load models/*.toml and models/identity/*.csv from this directory
    /// instead of the built-in copies.
    #[arg(long, env = "VIS_MODELS_DIR", global = true)]
    models_dir: Option<PathBuf>,
    #[command(flatten)]
    refine: RefineArgs,
    #[command(subcommand)]
    cmd: Cmd,
}

/// ONNX diffusion refinement (docs/rendering.md, "ONNX refinement").
#[derive(clap::Args)]
struct RefineArgs {
    /// Refine renders with the diffusion model exported here (diffusers ONNX
    /// layout; needs render-node built with the onnx feature).
    #[arg(
        long,
        value_name = "MODEL_DIR",
        env = "VIS_REFINE_MODEL_DIR",
        global = true
    )]
    refine: Option<PathBuf>,
    /// The ONNX Runtime library (default: VIS_ORT_DYLIB, ORT_DYLIB_PATH, then
    /// the onnxruntime wheel in Python's site-packages).
    #[arg(long, value_name = "PATH", global = true)]
    ort_dylib: Option<PathBuf>,
    /// Scheduled denoising steps (floor(steps * strength) run).
    #[arg(long, env = "VIS_REFINE_STEPS", global = true)]
    refine_steps: Option<usize>,
    /// How far the render is noised: 0 keeps it, 1 replaces it.
    #[arg(long, env = "VIS_REFINE_STRENGTH", global = true)]
    refine_strength: Option<f32>,
    /// Classifier-free guidance scale (at most 1: off).
    #[arg(long, env = "VIS_REFINE_GUIDANCE", global = true)]
    refine_guidance: Option<f32>,
    /// Mixed into every render's noise seed.
    #[arg(long, env = "VIS_REFINE_SEED", global = true)]
    refine_seed: Option<u64>,
    /// ONNX Runtime intra-op threads (0: all cores).
    #[arg(long, env = "VIS_REFINE_THREADS", global = true)]
    refine_threads: Option<usize>,
    /// `cpu` or `cuda:N` (CUDA needs the onnx-cuda feature).
    #[arg(long, env = "VIS_REFINE_DEVICE", global = true, default_value = "cpu")]
    refine_device: String,
}

/// The vehicle a single render, a spin or a description is of.
#[derive(clap::Args)]
struct VehicleArgs {
    #[arg(long)]
    make: String,
    #[arg(long)]
    model: String,
    #[arg(long)]
    year: u16,
    #[arg(long, default_value = "sedan")]
    shape: BodyShape,
}

impl VehicleArgs {
    /// The make and model as the catalog's slugs ("Land Rover" is
    /// `land-rover`).
    fn slugs(&self) -> anyhow::Result<(vis_protocol::Slug, vis_protocol::Slug)> {
        Ok((
            vis_protocol::slugify(&self.make).context("make")?,
            vis_protocol::slugify(&self.model).context("model")?,
        ))
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Render one vehicle to a 1024x1024 PNG.
    Render {
        #[command(flatten)]
        vehicle: VehicleArgs,
        #[arg(long, default_value = "front-3-4")]
        view: View,
        /// A preset colour name, or `#RRGGBB` (painted solid unless
        /// `--finish` says otherwise).
        #[arg(long, default_value = "silver", value_parser = parse_color)]
        color: Paint,
        /// The finish of a `#RRGGBB` colour: solid, metallic or pearl.
        #[arg(long)]
        finish: Option<Finish>,
        /// Draw an orthographic elevation (no perspective, no camera
        /// elevation, no ground) instead of the studio camera: what the
        /// proportion tests measure (docs/rendering.md, "Proportions").
        #[arg(long)]
        elevation: bool,
        /// Leave out the contact shadow (the API's `shadow=false`).
        #[arg(long)]
        no_shadow: bool,
        /// Draw at the size class's one scale (the API's `scale=relative`).
        #[arg(long)]
        relative: bool,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Print the body a make, model and year resolve to: its dimensions and
    /// the side profile's control points in metres from the nose, for tuning
    /// models/ (no GPU needed).
    Describe {
        #[command(flatten)]
        vehicle: VehicleArgs,
    },
    /// Render the 24 turntable angles of one vehicle in one batch (one mesh,
    /// one device) into an animated WebP, and say how long it took.
    Spin {
        #[command(flatten)]
        vehicle: VehicleArgs,
        #[arg(long, default_value = "silver", value_parser = parse_color)]
        color: Paint,
        /// Each frame's edge in pixels (the source renders are 1024).
        #[arg(long, default_value_t = 512)]
        size: u32,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Render every shape in every view and a few colours into one PNG, or
    /// with --models a named list of vehicles, one row each in all six views.
    Sheet {
        #[arg(long, default_value_t = 256)]
        cell: u32,
        /// Only these shapes (comma-separated); all by default.
        #[arg(long, value_delimiter = ',')]
        shapes: Vec<BodyShape>,
        /// A vehicle list: one `year make model [colour] [shape]` a line
        /// (e.g. models/sheets/icons.txt).
        #[arg(long)]
        models: Option<PathBuf>,
        /// With --models: every vehicle at its size class's one scale (the
        /// API's `scale=relative`), a size comparison.
        #[arg(long, requires = "models")]
        relative: bool,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Print the renderer's fingerprint (the refinement model and settings) and
    /// the render revision the control plane should use with it.
    Revision {
        /// The control plane's configured render revision.
        #[arg(long, default_value_t = 1)]
        base_revision: u32,
    },
    /// Serve a control plane as a remote render node until drained or
    /// stopped (docs/render-nodes.md).
    Run {
        /// The control plane's base URL, e.g. http://10.0.0.5:8080.
        #[arg(long, env = "VIS_CONTROL_PLANE")]
        control_plane: String,
        /// The node token `control-plane nodes add NAME` printed.
        #[arg(long, env = "VIS_NODE_TOKEN", hide_env_values = true)]
        token: String,
        /// Renders at once.
        #[arg(long, env = "VIS_NODE_SLOTS", default_value_t = 1)]
        slots: u32,
        /// The most jobs a slot leases at once: queued jobs of one vehicle,
        /// drawn from one mesh (a spin's 24 frames). 1: one at a time.
        #[arg(long, env = "VIS_NODE_BATCH", default_value_t = 24,
              value_parser = clap::value_parser!(u32).range(1..=24))]
        batch: u32,
        /// With --refine: the plain revision the control plane's revision
        /// was folded from (`render-node revision --base-revision`). Jobs
        /// under a folded revision that is not this node's are refused.
        #[arg(long, env = "VIS_BASE_REVISION", default_value_t = 1)]
        base_revision: u32,
    },
}

#[cfg(feature = "onnx")]
fn attach_refine(renderer: Renderer, args: &RefineArgs) -> anyhow::Result<Renderer> {
    use vis_render::onnx::{Device, RefineConfig, RefineStage};
    let Some(dir) = &args.refine else {
        return Ok(renderer);
    };
    let mut config = RefineConfig::new(dir);
    config.ort_dylib = args.ort_dylib.clone();
    if let Some(v) = args.refine_steps {
        config.steps = v;
    }
    if let Some(v) = args.refine_strength {
        config.strength = v;
    }
    if let Some(v) = args.refine_guidance {
        config.guidance = v;
    }
    if let Some(v) = args.refine_seed {
        config.seed = v;
    }
    if let Some(v) = args.refine_threads {
        config.threads = v;
    }
    config.device = match args.refine_device.as_str() {
        "cpu" => Device::Cpu,
        d => match d.strip_prefix("cuda") {
            Some("") => Device::Cuda(0),
            Some(n) => Device::Cuda(
                n.trim_start_matches(':')
                    .parse()
                    .with_context(|| format!("--refine-device {d}"))?,
            ),
            None => anyhow::bail!("--refine-device {d}: cpu or cuda:N"),
        },
    };
    let stage = RefineStage::open(config)
        .with_context(|| format!("opening the refinement model {}", dir.display()))?;
    eprintln!(
        "render-node: refining with {} ({}px, {}, control input: {}; ONNX Runtime {})",
        dir.display(),
        stage.image_size(),
        stage.scheduler().class_name,
        stage.control().map_or("none", |c| c.name.as_str()),
        stage.runtime_path().display()
    );
    Ok(renderer.with_refine(stage))
}

#[cfg(not(feature = "onnx"))]
fn attach_refine(renderer: Renderer, args: &RefineArgs) -> anyhow::Result<Renderer> {
    if args.refine.is_some() {
        anyhow::bail!(
            "--refine needs render-node built with the onnx feature: \
             cargo build --release -p vis-render --features onnx"
        );
    }
    Ok(renderer)
}

/// [`Cmd::Describe`]'s report: one `name value` a line, lengths in metres
/// (x from the nose back, heights from the ground).
fn describe(p: &vis_render::vehicle::Params) -> String {
    let rows: [(&str, f32); 22] = [
        ("length", p.length),
        ("width", p.width),
        ("height", p.height),
        ("wheelbase", p.wheelbase),
        ("front_axle_x", p.front_overhang),
        ("rear_axle_x", p.front_overhang + p.wheelbase),
        ("wheel_radius", p.wheel_radius),
        ("windshield_foot_x", p.ws_base),
        ("dash_to_axle", p.ws_base - p.front_overhang),
        ("windshield_top_x", p.ws_base + p.ws_run),
        ("rear_glass_top_x", p.length - p.bl_base - p.bl_run),
        ("rear_glass_foot_x", p.length - p.bl_base),
        ("ride", p.ride),
        ("belt", p.belt),
        ("nose", p.hood),
        ("deck", p.deck),
        ("boxy", p.boxy),
        ("tumble", p.tumble),
        ("flare", p.flare),
        ("era", p.era),
        ("cowl_fraction", p.ws_base / p.length),
        ("tail_fraction", p.bl_base / p.length),
    ];
    let mut out = format!(
        "generation {}\nshape {:?}\n",
        p.generation.as_deref().unwrap_or("-"),
        p.shape
    );
    for (name, v) in rows {
        out.push_str(&format!("{name} {v:.3}\n"));
    }
    out
}

/// Keeps Mesa's Wayland probe out of the log on a host with no session
/// (`vis_render::gpu::headless_vulkan_env` says why and when).
#[allow(unsafe_code)]
fn quiet_headless_vulkan() {
    if let Some((name, value)) = vis_render::gpu::headless_vulkan_env(|k| std::env::var_os(k)) {
        // SAFETY: first thing in `main`, before anything starts a thread, so
        // nothing reads the environment concurrently.
        unsafe { std::env::set_var(name, value) };
    }
}

fn main() -> anyhow::Result<()> {
    quiet_headless_vulkan();
    let cli = Cli::parse();
    if let Cmd::Describe { vehicle } = &cli.cmd {
        let lib = match &cli.models_dir {
            Some(dir) => vis_render::vehicle::ModelLibrary::load_dir(dir)
                .with_context(|| format!("loading {}", dir.display()))?,
            None => vis_render::vehicle::ModelLibrary::embedded(),
        };
        let (make, model) = vehicle.slugs()?;
        let p = vis_render::vehicle::Params::resolve(
            &lib,
            vehicle.shape,
            make.as_str(),
            model.as_str(),
            vehicle.year,
        );
        print!("{}", describe(&p));
        return Ok(());
    }
    let slots = match &cli.cmd {
        Cmd::Run { slots, .. } => (*slots).max(1) as usize,
        _ => 1,
    };
    let renderer = Renderer::new(RendererConfig {
        models_dir: cli.models_dir,
        max_in_flight: slots,
        ..Default::default()
    })
    .context("starting the renderer")?;
    let renderer = attach_refine(renderer, &cli.refine)?;
    eprintln!(
        "render-node: adapter {} ({:?})",
        renderer.adapter().name,
        renderer.adapter().device_type
    );
    match cli.cmd {
        Cmd::Run {
            control_plane,
            token,
            slots,
            batch,
            base_revision,
        } => {
            let renderer = renderer.expect_base_revision(base_revision);
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| "info".into()),
                )
                .with_writer(std::io::stderr)
                .with_ansi(
                    std::io::IsTerminal::is_terminal(&std::io::stderr())
                        && std::env::var_os("NO_COLOR").is_none(),
                )
                .init();
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .context("starting the async runtime")?;
            runtime.block_on(node::run(
                renderer,
                node::NodeOptions {
                    control_plane,
                    token,
                    slots,
                    batch,
                },
            ))?;
        }
        Cmd::Render {
            vehicle,
            view,
            color,
            finish,
            elevation,
            no_shadow,
            relative,
            output,
        } => {
            let color = match (color, finish) {
                (Paint::Custom { rgb, .. }, Some(f)) => Paint::custom(rgb, f),
                (Paint::Named(_), Some(_)) => {
                    anyhow::bail!("--finish applies to #RRGGBB colours; a preset has its own")
                }
                (c, None) => c,
            };
            let format = output_format(&output)?;
            let (make, model) = vehicle.slugs()?;
            let t = std::time::Instant::now();
            let subject = Subject {
                make: make.as_str(),
                model: model.as_str(),
                year: vehicle.year,
                shape: vehicle.shape,
                color,
                view,
                variation: 0,
                staging: vis_protocol::Staging {
                    shadow: !no_shadow,
                    scale: if relative {
                        vis_protocol::Scale::Relative
                    } else {
                        vis_protocol::Scale::Fill
                    },
                },
            };
            let img = if elevation {
                renderer.render_elevation(&subject)?
            } else {
                renderer.render_subject(&subject)?
            };
            write_image(&output, format, &img)?;
            eprintln!(
                "render-node: wrote {} in {} ms",
                output.display(),
                t.elapsed().as_millis()
            );
        }
        Cmd::Spin {
            vehicle,
            color,
            size,
            output,
        } => {
            let (make, model) = vehicle.slugs()?;
            let t = std::time::Instant::now();
            let frames = renderer.render_turn(&Subject {
                make: make.as_str(),
                model: model.as_str(),
                year: vehicle.year,
                shape: vehicle.shape,
                color,
                view: View::default(),
                variation: 0,
                staging: Default::default(),
            })?;
            let rendered = t.elapsed();
            let size = size.clamp(1, vis_protocol::SOURCE_PX);
            let frames = frames
                .iter()
                .map(|f| vis_render::image::resize(f, size, size))
                .collect::<Result<Vec<_>, _>>()?;
            let bytes = vis_render::image::encode_animated_webp(&frames, 83)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("writing {}", output.display()))?;
            eprintln!(
                "render-node: 24 frames rendered in {} ms ({} ms a frame), {} bytes in {} ms in all: {}",
                rendered.as_millis(),
                rendered.as_millis() / 24,
                bytes.len(),
                t.elapsed().as_millis(),
                output.display()
            );
        }
        Cmd::Sheet {
            cell,
            shapes,
            models,
            relative,
            output,
        } => {
            let format = output_format(&output)?;
            let staging = vis_protocol::Staging {
                scale: if relative {
                    vis_protocol::Scale::Relative
                } else {
                    vis_protocol::Scale::Fill
                },
                ..Default::default()
            };
            let img = if let Some(list) = models {
                let text =
                    std::fs::read_to_string(&list).with_context(|| list.display().to_string())?;
                let vehicles = vis_render::sheet::parse_vehicle_list(&text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", list.display()))?;
                vis_render::sheet::vehicle_sheet(&renderer, cell, &vehicles, staging)?
            } else {
                let shapes = if shapes.is_empty() {
                    BodyShape::ALL.to_vec()
                } else {
                    shapes
                };
                vis_render::sheet::contact_sheet(&renderer, cell, &shapes)?
            };
            write_image(&output, format, &img)?;
            eprintln!("render-node: wrote {}", output.display());
        }
        // Answered before the renderer starts.
        Cmd::Describe { .. } => {}
        Cmd::Revision { base_revision } => {
            let fingerprint = renderer.fingerprint();
            println!("fingerprint: {}", fingerprint.unwrap_or("procedural"));
            println!(
                "revision: {}",
                vis_render::fold_revision(base_revision, fingerprint)
            );
        }
    }
    Ok(())
}

/// The format an output file's extension names: `.png`, `.webp`, `.avif` or
/// `.jpg`/`.jpeg` (flattened on white), encoded as the image endpoint does.
fn output_format(output: &std::path::Path) -> anyhow::Result<vis_protocol::Format> {
    use vis_protocol::Format;
    let ext = output
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    Ok(match ext.as_str() {
        "png" => Format::Png,
        "webp" => Format::Webp,
        "jpg" | "jpeg" => Format::Jpg,
        "avif" => Format::Avif,
        _ => anyhow::bail!(
            "{}: name the output file .png, .webp, .avif or .jpg",
            output.display()
        ),
    })
}

fn write_image(
    output: &std::path::Path,
    format: vis_protocol::Format,
    img: &vis_render::Rgba,
) -> anyhow::Result<()> {
    let bytes = vis_render::image::encode(img, format)?;
    std::fs::write(output, bytes).with_context(|| output.display().to_string())
}

/// `--color`: a preset name or `#RRGGBB`.
fn parse_color(raw: &str) -> Result<Paint, String> {
    Paint::parse_color(raw, None).map_err(|e| e.to_string())
}
