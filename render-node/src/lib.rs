//! Render node: the studio renderer (wgpu + WGSL), and the CPU delivery
//! pipeline (resize and encode) the control plane derives outputs with.
//!
//! ```no_run
//! # use vis_render::{Renderer, RendererConfig};
//! # use vis_protocol::*;
//! let renderer = Renderer::new(RendererConfig::default())?; // one per process
//! let job = RenderJob {
//!     variant: VariantKey {
//!         make: Slug::parse("toyota").unwrap(),
//!         model: Slug::parse("camry").unwrap(),
//!         year: 2019,
//!         color: Color::Red,
//!         view: View::Front34,
//!     },
//!     shape: BodyShape::Sedan,
//!     revision: 1,
//!     variation: 0,
//! };
//! let rgba = renderer.render(&job)?; // 1024x1024, straight alpha
//! let png = vis_render::image::encode_png(&rgba)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod gpu;
pub mod image;
pub mod node;
pub mod passes;
pub mod sheet;
mod sheet_font;
pub mod vehicle;

use std::path::PathBuf;

use vis_protocol::{BodyShape, Color, RenderJob, SOURCE_PX, View};

pub use image::{Encoded, Rgba, Source, derive};

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("no GPU adapter: {0}")]
    NoAdapter(String),
    #[error("gpu: {0}")]
    Gpu(String),
    #[error("models: {0}")]
    Models(String),
    #[error(transparent)]
    Image(#[from] image::ImageError),
}

#[derive(Debug, Clone)]
pub struct RendererConfig {
    /// Renders allowed in flight at once (each holds ~60 MB of targets).
    pub max_in_flight: usize,
    /// Load `models/*.toml` from here instead of the embedded copies.
    pub models_dir: Option<PathBuf>,
}

impl Default for RendererConfig {
    fn default() -> Self {
        RendererConfig {
            max_in_flight: 2,
            models_dir: None,
        }
    }
}

/// One vehicle to draw, without the catalog's slugs wrapper.
#[derive(Debug, Clone)]
pub struct Subject<'a> {
    pub make: &'a str,
    pub model: &'a str,
    pub year: u16,
    pub shape: BodyShape,
    pub color: Color,
    pub view: View,
    /// 0 for a variant's first render; n for its n-th re-render (a slightly
    /// turned pose: new bytes, the same vehicle).
    pub variation: u32,
}

/// The renderer: one wgpu device, pipelines and a pool of targets. Share it
/// (`Arc<Renderer>`); `render` may be called from several threads.
#[derive(Debug)]
pub struct Renderer {
    gpu: gpu::Gpu,
    passes: passes::Passes,
    models: vehicle::ModelLibrary,
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

impl Renderer {
    /// Opens the device (an error when there is no adapter) and builds the
    /// pipelines.
    pub fn new(config: RendererConfig) -> Result<Renderer, RenderError> {
        let models = match &config.models_dir {
            Some(dir) => vehicle::ModelLibrary::load_dir(dir)?,
            None => vehicle::ModelLibrary::embedded(),
        };
        let gpu = gpu::Gpu::new()?;
        let passes = passes::Passes::new(&gpu, SOURCE_PX, config.max_in_flight);
        Ok(Renderer {
            gpu,
            passes,
            models,
        })
    }

    pub fn adapter(&self) -> &wgpu::AdapterInfo {
        &self.gpu.info
    }

    pub fn models(&self) -> &vehicle::ModelLibrary {
        &self.models
    }

    /// Renders a job's variant: 1024x1024 RGBA, straight alpha.
    pub fn render(&self, job: &RenderJob) -> Result<Rgba, RenderError> {
        let v = &job.variant;
        self.render_subject(&Subject {
            make: v.make.as_str(),
            model: v.model.as_str(),
            year: v.year,
            shape: job.shape,
            color: v.color,
            view: v.view,
            variation: job.variation,
        })
    }

    pub fn render_subject(&self, s: &Subject<'_>) -> Result<Rgba, RenderError> {
        self.draw(s, false)
    }

    /// The subject with its paint flat-lit (a uniform white studio of
    /// intensity 1: diffuse irradiance 1 and the clear coat's 4.5%
    /// reflection) and everything else as usual: what the paint's colour
    /// becomes through tone mapping and encoding, for colour checks.
    pub fn render_flat_lit(&self, s: &Subject<'_>) -> Result<Rgba, RenderError> {
        self.draw(s, true)
    }

    fn draw(&self, s: &Subject<'_>, flat_lit: bool) -> Result<Rgba, RenderError> {
        let params = vehicle::Params::resolve(&self.models, s.shape, s.make, s.model, s.year);
        let mesh = vehicle::build(&params);
        let framing = vehicle::Framing::new(&mesh, params.spec.fill);
        let (mut view_proj, eye) = framing.camera(&mesh, s.view);
        if s.variation > 0 {
            // Turn the vehicle a little on its turntable: ±1.5° steps,
            // alternating sides, at most 4.5°.
            let step = s.variation.div_ceil(2).min(3) as f32 * 1.5;
            let sign = if s.variation % 2 == 1 { 1.0 } else { -1.0 };
            view_proj *= glam::Mat4::from_rotation_y((sign * step).to_radians());
        }
        let [r, g, b] = s.color.rgb();
        let frame = passes::FrameParams {
            view_proj,
            eye,
            paint: [srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b)],
            metallic: s.color.is_metallic(),
            flat_lit,
        };
        let pixels = self.passes.draw(&self.gpu, &mesh, &frame)?;
        Ok(Rgba::new(SOURCE_PX, SOURCE_PX, pixels)?)
    }
}
