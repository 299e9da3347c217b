//! render-node CLI: single renders, the contact sheet, and `run`, a remote
//! render node serving a control plane (src/node.rs).

use vis_render::node;

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use vis_protocol::{BodyShape, Color, View};
use vis_render::{Renderer, RendererConfig, Subject};

#[derive(Parser)]
#[command(name = "render-node", about = "Studio renders of vehicles")]
struct Cli {
    /// Load models/*.toml and models/identity/*.csv from this directory
    /// instead of the built-in copies.
    #[arg(long, env = "VIS_MODELS_DIR", global = true)]
    models_dir: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Render one vehicle to a 1024x1024 PNG.
    Render {
        #[arg(long)]
        make: String,
        #[arg(long)]
        model: String,
        #[arg(long)]
        year: u16,
        #[arg(long, default_value = "front-3-4")]
        view: View,
        #[arg(long, default_value = "silver")]
        color: Color,
        #[arg(long, default_value = "sedan")]
        shape: BodyShape,
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
        #[arg(short, long)]
        output: PathBuf,
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
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let slots = match &cli.cmd {
        Cmd::Run { slots, .. } => (*slots).max(1) as usize,
        _ => 1,
    };
    let renderer = Renderer::new(RendererConfig {
        models_dir: cli.models_dir,
        max_in_flight: slots,
    })
    .context("starting the renderer")?;
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
        } => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| "info".into()),
                )
                .with_writer(std::io::stderr)
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
                },
            ))?;
        }
        Cmd::Render {
            make,
            model,
            year,
            view,
            color,
            shape,
            output,
        } => {
            let make = vis_protocol::slugify(&make).context("make")?;
            let model = vis_protocol::slugify(&model).context("model")?;
            let t = std::time::Instant::now();
            let img = renderer.render_subject(&Subject {
                make: make.as_str(),
                model: model.as_str(),
                year,
                shape,
                color,
                view,
                variation: 0,
            })?;
            let png = vis_render::image::encode_png(&img)?;
            std::fs::write(&output, png).with_context(|| output.display().to_string())?;
            eprintln!(
                "render-node: wrote {} in {} ms",
                output.display(),
                t.elapsed().as_millis()
            );
        }
        Cmd::Sheet {
            cell,
            shapes,
            models,
            output,
        } => {
            let img = if let Some(list) = models {
                let text =
                    std::fs::read_to_string(&list).with_context(|| list.display().to_string())?;
                let vehicles = vis_render::sheet::parse_vehicle_list(&text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", list.display()))?;
                vis_render::sheet::vehicle_sheet(&renderer, cell, &vehicles)?
            } else {
                let shapes = if shapes.is_empty() {
                    BodyShape::ALL.to_vec()
                } else {
                    shapes
                };
                vis_render::sheet::contact_sheet(&renderer, cell, &shapes)?
            };
            let png = vis_render::image::encode_png(&img)?;
            std::fs::write(&output, png).with_context(|| output.display().to_string())?;
            eprintln!("render-node: wrote {}", output.display());
        }
    }
    Ok(())
}
