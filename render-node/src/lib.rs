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
//!         color: Color::Red.into(),
//!         view: View::Front34,
//!         staging: Staging::default(),
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
#[cfg(feature = "onnx")]
pub mod onnx;
pub mod paint;
pub mod passes;
pub mod sheet;
mod sheet_font;
pub mod vehicle;

use std::path::PathBuf;

use vis_protocol::{BodyShape, Paint, RenderJob, SOURCE_PX, View};

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
    #[cfg(feature = "onnx")]
    #[error("refine: {0}")]
    Refine(#[from] onnx::RefineError),
    /// A refining renderer was given a job under a revision that does not
    /// carry a fingerprint (see [`fold_revision`]).
    #[error("{0}")]
    Revision(String),
}

#[derive(Debug, Clone)]
pub struct RendererConfig {
    /// Renders allowed in flight at once (each holds ~60 MB of targets).
    pub max_in_flight: usize,
    /// Load `models/*.toml` from here instead of the embedded copies.
    pub models_dir: Option<PathBuf>,
    /// Width and height of every render in pixels, rounded up to a
    /// multiple of 64 (readback rows): the service's source is `SOURCE_PX`
    /// (1024); tests that render hundreds of vehicles use less.
    pub size: u32,
}

impl Default for RendererConfig {
    fn default() -> Self {
        RendererConfig {
            max_in_flight: 2,
            models_dir: None,
            size: SOURCE_PX,
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
    /// A preset colour (`Color::Red.into()`) or any sRGB colour and finish:
    /// painted with exactly these sRGB bytes as its base colour.
    pub color: Paint,
    pub view: View,
    /// 0 for a variant's first render; n for its n-th re-render (a slightly
    /// turned pose: new bytes, the same vehicle).
    pub variation: u32,
    /// How the vehicle is staged: with its contact shadow or without.
    pub staging: vis_protocol::Staging,
}

/// The renderer: one wgpu device, pipelines and a pool of targets. Share it
/// (`Arc<Renderer>`); `render` may be called from several threads.
#[derive(Debug)]
pub struct Renderer {
    gpu: gpu::Gpu,
    passes: passes::Passes,
    models: vehicle::ModelLibrary,
    /// The ONNX refinement stage, when an operator gave a model.
    #[cfg(feature = "onnx")]
    refine: Option<onnx::RefineStage>,
    /// Re-imposition's compute pipelines, on this renderer's device: built
    /// at the first refinement, so a node that never refines never builds
    /// them.
    #[cfg(feature = "onnx")]
    reimposer: std::sync::OnceLock<onnx::Reimposer>,
    /// The control plane's plain revision, when told
    /// ([`Renderer::expect_base_revision`]): a refining renderer then also
    /// refuses folded revisions that are not its own.
    base_revision: Option<u32>,
}

/// Folds a renderer's [`Renderer::fingerprint`] into a render revision (the
/// number in object keys, job rows and ETags). No fingerprint keeps `base`; with
/// one, the result is a hash of both in `0x8000_0000..0xC000_0000`: never a
/// plain revision (operators count those up from 1), room above it for the
/// control plane's per-variant re-render bumps (it adds them to the
/// deployment's revision), and a new value when the model, the refinement
/// settings or `base` change.
pub fn fold_revision(base: u32, fingerprint: Option<&str>) -> u32 {
    let Some(id) = fingerprint else {
        return base;
    };
    // FNV-1a; the fingerprint is already a SHA-256, this only mixes in `base`.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in b"vis render revision\0"
        .iter()
        .chain(&base.to_le_bytes())
        .chain(id.as_bytes())
    {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    (((h ^ (h >> 32)) as u32) & 0x3fff_ffff) | FOLDED
}

/// The lowest folded revision: plain ones stay below it.
const FOLDED: u32 = 0x8000_0000;

/// Whether `revision` (a deployment's, without per-variant bumps) is a
/// folded one: renders refined by a model ([`fold_revision`]), which only
/// a refining renderer may draw.
pub fn is_folded(revision: u32) -> bool {
    revision >= FOLDED
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
        let passes = passes::Passes::new(
            &gpu,
            config.size.max(64).next_multiple_of(64),
            config.max_in_flight,
        );
        Ok(Renderer {
            gpu,
            passes,
            models,
            #[cfg(feature = "onnx")]
            refine: None,
            #[cfg(feature = "onnx")]
            reimposer: std::sync::OnceLock::new(),
            base_revision: None,
        })
    }

    /// Refines every render with an ONNX diffusion stage from now on.
    #[cfg(feature = "onnx")]
    pub fn with_refine(mut self, stage: onnx::RefineStage) -> Renderer {
        self.refine = Some(stage);
        self
    }

    #[cfg(feature = "onnx")]
    pub fn refine_stage(&self) -> Option<&onnx::RefineStage> {
        self.refine.as_ref()
    }

    /// Refines a procedural render of `s` (and its guide, from
    /// [`Renderer::render_with_guide`]) with `stage`, attached or not, and
    /// re-imposes alpha and paint on this renderer's device.
    #[cfg(feature = "onnx")]
    pub fn refine_with(
        &self,
        stage: &onnx::RefineStage,
        procedural: &Rgba,
        guide: &onnx::Guide,
        s: &Subject<'_>,
    ) -> Result<(Rgba, onnx::Timings), onnx::RefineError> {
        let reimposer = self
            .reimposer
            .get_or_init(|| onnx::Reimposer::new(&self.gpu));
        stage.refine_render(&self.gpu, reimposer, procedural, guide, s)
    }

    /// What besides the code decides this renderer's output bytes: None for
    /// the procedural renderer alone (the control plane's revision number
    /// covers it), the refinement stage's fingerprint (hex SHA-256 of model
    /// content and settings) when one is attached. Fold it into the render
    /// revision with [`fold_revision`].
    pub fn fingerprint(&self) -> Option<&str> {
        #[cfg(feature = "onnx")]
        if let Some(stage) = &self.refine {
            return Some(stage.fingerprint());
        }
        None
    }

    /// The plain revision the control plane folds with this renderer's
    /// fingerprint (`render-node run --base-revision`, 1 by default, as
    /// `render-node revision` prints it): a refining renderer then refuses
    /// jobs under another model's or setting's folded revision, whose
    /// cached bytes would not be its own.
    pub fn expect_base_revision(mut self, base: u32) -> Renderer {
        self.base_revision = Some(base);
        self
    }

    pub fn adapter(&self) -> &wgpu::AdapterInfo {
        &self.gpu.info
    }

    pub fn models(&self) -> &vehicle::ModelLibrary {
        &self.models
    }

    /// Renders a job's variant: 1024x1024 RGBA, straight alpha. A refining
    /// renderer refuses a job whose revision is a plain one (not from
    /// [`fold_revision`]): its bytes would be served under the validator of
    /// procedural renders.
    pub fn render(&self, job: &RenderJob) -> Result<Rgba, RenderError> {
        self.render_job(job, &mut Meshes::default())
    }

    /// Renders several jobs one after another on this renderer's device,
    /// handing each render to `each` (with the job's index) as soon as it is
    /// drawn. Consecutive jobs of one vehicle (make, model, year and body)
    /// share one mesh, so a spin's 24 frames, or a vehicle's six views,
    /// build it once: a render node's batch (docs/render-nodes.md). Each
    /// render is the pixels [`Renderer::render`] draws for its job alone.
    pub fn render_batch(
        &self,
        jobs: &[RenderJob],
        mut each: impl FnMut(usize, Result<Rgba, RenderError>),
    ) {
        let mut meshes = Meshes::default();
        for (i, job) in jobs.iter().enumerate() {
            each(i, self.render_job(job, &mut meshes));
        }
    }

    /// [`Renderer::render_batch`] with each render encoded as its PNG
    /// source: what a render node stores for each job. `each` gets the job's
    /// index, its PNG (or why there is none) and the milliseconds that
    /// render and encode took on their own.
    pub fn render_batch_png(
        &self,
        jobs: &[RenderJob],
        mut each: impl FnMut(usize, Result<Vec<u8>, String>, u64),
    ) {
        let mut last = std::time::Instant::now();
        self.render_batch(jobs, |i, rgba| {
            let png = rgba
                .map_err(|e| e.to_string())
                .and_then(|rgba| image::encode_png(&rgba).map_err(|e| e.to_string()));
            each(i, png, last.elapsed().as_millis() as u64);
            last = std::time::Instant::now();
        });
    }

    fn render_job(&self, job: &RenderJob, meshes: &mut Meshes) -> Result<Rgba, RenderError> {
        let base = job.revision.saturating_sub(job.variation);
        match (self.fingerprint(), is_folded(base)) {
            (None, true) => Err(format!(
                "job revision {} is a refined (folded) revision, but this renderer does not \
                 refine: start it with --refine MODEL_DIR and the model the control plane's \
                 revision was folded with (docs/rendering.md)",
                job.revision
            )),
            (Some(fingerprint), false) => Err(format!(
                "job revision {} is a plain render revision, but this renderer refines \
                 (fingerprint {fingerprint}): set the control plane's [render] revision to {} \
                 on every replica, what `render-node --refine DIR revision --base-revision {base}` \
                 prints (docs/rendering.md)",
                job.revision,
                fold_revision(base, Some(fingerprint))
            )),
            (Some(fingerprint), true) => match self.base_revision {
                Some(plain) if fold_revision(plain, Some(fingerprint)) != base => Err(format!(
                    "job revision {} was folded with another model or other settings: this \
                     renderer (fingerprint {fingerprint}, base revision {plain}) draws revision \
                     {}; every refining node and control-plane replica must agree \
                     (docs/rendering.md)",
                    job.revision,
                    fold_revision(plain, Some(fingerprint))
                )),
                _ => Ok(()),
            },
            (None, false) => Ok(()),
        }
        .map_err(RenderError::Revision)?;
        let v = &job.variant;
        self.render_subject_with(
            &Subject {
                make: v.make.as_str(),
                model: v.model.as_str(),
                year: v.year,
                shape: job.shape,
                color: v.color,
                view: v.view,
                variation: job.variation,
                staging: v.staging,
            },
            meshes,
        )
    }

    /// Renders one subject: the procedural render, refined when a stage is
    /// attached. 1024x1024 RGBA, straight alpha.
    pub fn render_subject(&self, s: &Subject<'_>) -> Result<Rgba, RenderError> {
        self.render_subject_with(s, &mut Meshes::default())
    }

    fn render_subject_with(
        &self,
        s: &Subject<'_>,
        meshes: &mut Meshes,
    ) -> Result<Rgba, RenderError> {
        #[cfg(feature = "onnx")]
        if let Some(stage) = &self.refine {
            let (rgba, view_proj) = self.draw(s, false, meshes)?;
            let guide = onnx::Guide::rasterize(meshes.mesh(), &view_proj, rgba.width);
            return Ok(self.refine_with(stage, &rgba, &guide, s)?.0);
        }
        Ok(self.draw(s, false, meshes)?.0)
    }

    /// The procedural render alone, even with a refinement stage attached.
    pub fn render_procedural(&self, s: &Subject<'_>) -> Result<Rgba, RenderError> {
        Ok(self.draw(s, false, &mut Meshes::default())?.0)
    }

    /// The procedural render and its guide maps (material and depth per
    /// pixel, rasterized on the CPU from the same mesh and camera), what a
    /// refinement stage needs.
    #[cfg(feature = "onnx")]
    pub fn render_with_guide(&self, s: &Subject<'_>) -> Result<(Rgba, onnx::Guide), RenderError> {
        let mut meshes = Meshes::default();
        let (rgba, view_proj) = self.draw(s, false, &mut meshes)?;
        let guide = onnx::Guide::rasterize(meshes.mesh(), &view_proj, rgba.width);
        Ok((rgba, guide))
    }

    /// The subject with its paint flat-lit (a uniform white studio of
    /// intensity 1: diffuse irradiance 1 and the clear coat's 4.5%
    /// reflection) and everything else as usual: what the paint's colour
    /// becomes through tone mapping and encoding, for colour checks. Never
    /// refined: it measures the procedural paint.
    pub fn render_flat_lit(&self, s: &Subject<'_>) -> Result<Rgba, RenderError> {
        Ok(self.draw(s, true, &mut Meshes::default())?.0)
    }

    /// An orthographic elevation of the subject, as on an engineering
    /// drawing: the same mesh and shading seen exactly along the view's
    /// horizontal axis (no perspective, no camera elevation, no ground or
    /// shadow), its bounding box centred with 5% margins. Side and front
    /// elevations are what proportions are measured on
    /// (`tests/proportions.rs`): their silhouettes are the vehicle's length,
    /// width and height to scale.
    pub fn render_elevation(&self, s: &Subject<'_>) -> Result<Rgba, RenderError> {
        Ok(self.render_elevations(s, &[s.view])?.remove(0))
    }

    /// [`Renderer::render_elevation`] in several views (the subject's own
    /// view is ignored) from one mesh.
    pub fn render_elevations(
        &self,
        s: &Subject<'_>,
        views: &[View],
    ) -> Result<Vec<Rgba>, RenderError> {
        let params = vehicle::Params::resolve(&self.models, s.shape, s.make, s.model, s.year);
        let mesh = vehicle::build(&params);
        let n = self.passes.size();
        views
            .iter()
            .map(|view| {
                let (view_proj, eye) = vehicle::elevation_camera(&mesh, *view);
                let frame = passes::FrameParams {
                    view_proj,
                    eye,
                    paint: paint::base_linear(s.color),
                    finish: s.color.finish(),
                    flat_lit: false,
                    ground: false,
                };
                let pixels = self.passes.draw(&self.gpu, &mesh, &frame)?;
                Ok(Rgba::new(n, n, pixels)?)
            })
            .collect()
    }

    /// The 24 turntable angles of the subject (0° to 345°, 15° apart; its
    /// own view and variation are ignored) from one mesh, drawn one after
    /// another on this renderer's device: a spin's cold frames in one
    /// batch. Each frame is the pixels [`Renderer::render_procedural`]
    /// draws for that angle (`tests/angles.rs`); never refined.
    pub fn render_turn(&self, s: &Subject<'_>) -> Result<Vec<Rgba>, RenderError> {
        let mut meshes = Meshes::default();
        vis_protocol::Angle::turn()
            .map(|a| {
                let frame = Subject {
                    view: View::Angle(a),
                    variation: 0,
                    ..s.clone()
                };
                Ok(self.draw(&frame, false, &mut meshes)?.0)
            })
            .collect()
    }

    /// Draws `s` with the mesh `meshes` holds for its vehicle (built when
    /// it holds another's); the render and its camera.
    fn draw(
        &self,
        s: &Subject<'_>,
        flat_lit: bool,
        meshes: &mut Meshes,
    ) -> Result<(Rgba, glam::Mat4), RenderError> {
        let (params, mesh) = meshes.of(&self.models, s);
        let framing = framing_of(s, mesh, params);
        let (mut view_proj, eye) = framing.camera(mesh, s.view);
        if s.variation > 0 {
            // Turn the vehicle a little on its turntable: ±1.5° steps,
            // alternating sides, at most 4.5°.
            let step = s.variation.div_ceil(2).min(3) as f32 * 1.5;
            let sign = if s.variation % 2 == 1 { 1.0 } else { -1.0 };
            view_proj *= glam::Mat4::from_rotation_y((sign * step).to_radians());
        }
        let frame = studio_frame(s, view_proj, eye, flat_lit);
        let pixels = self.passes.draw(&self.gpu, mesh, &frame)?;
        let n = self.passes.size();
        Ok((Rgba::new(n, n, pixels)?, view_proj))
    }
}

/// The mesh of the vehicle drawn last, kept while a batch draws more of its
/// views: a vehicle's mesh depends on its body, make, model and year only.
#[derive(Default)]
struct Meshes {
    last: Option<(MeshOf, vehicle::Params, vehicle::Mesh)>,
}

/// What a mesh is built from: body, make, model and year.
type MeshOf = (BodyShape, String, String, u16);

impl Meshes {
    /// The parameters and mesh of `s`'s vehicle, built unless held.
    fn of(
        &mut self,
        models: &vehicle::ModelLibrary,
        s: &Subject<'_>,
    ) -> (&vehicle::Params, &vehicle::Mesh) {
        let id: MeshOf = (s.shape, s.make.to_owned(), s.model.to_owned(), s.year);
        if self.last.as_ref().is_none_or(|(held, _, _)| *held != id) {
            let params = vehicle::Params::resolve(models, s.shape, s.make, s.model, s.year);
            let mesh = vehicle::build(&params);
            self.last = Some((id, params, mesh));
        }
        let (_, params, mesh) = self.last.as_ref().expect("just built");
        (params, mesh)
    }

    /// The mesh drawn last (after [`Meshes::of`]).
    #[cfg(feature = "onnx")]
    fn mesh(&self) -> &vehicle::Mesh {
        &self.last.as_ref().expect("a mesh was drawn").2
    }
}

/// How `s` is framed: filling the frame (the studio default), or with
/// `scale=relative` at its size class's one scale.
fn framing_of(s: &Subject<'_>, mesh: &vehicle::Mesh, params: &vehicle::Params) -> vehicle::Framing {
    match s.staging.scale {
        vis_protocol::Scale::Fill => vehicle::Framing::new(mesh, params.spec.fill),
        vis_protocol::Scale::Relative => {
            vehicle::Framing::relative(mesh, vehicle::reference_size(s.shape))
        }
    }
}

/// The studio's frame of `s` from a camera: its paint, and the ground with
/// its contact shadow unless the staging leaves it out.
fn studio_frame(
    s: &Subject<'_>,
    view_proj: glam::Mat4,
    eye: glam::Vec3,
    flat_lit: bool,
) -> passes::FrameParams {
    passes::FrameParams {
        view_proj,
        eye,
        paint: paint::base_linear(s.color),
        finish: s.color.finish(),
        flat_lit,
        ground: s.staging.shadow,
    }
}

#[cfg(test)]
mod tests {
    use super::fold_revision;

    #[test]
    fn folded_revisions_never_collide_with_plain_ones() {
        assert_eq!(fold_revision(7, None), 7);
        let a = fold_revision(1, Some("aaaa"));
        assert!((0x8000_0000..0xc000_0000).contains(&a));
        // Re-render bumps added on top never overflow.
        for base in 0..2000 {
            let f = fold_revision(base, Some(&format!("{base:064x}")));
            assert!((0x8000_0000..0xc000_0000).contains(&f), "{f:#x}");
            assert!(f.checked_add(1 << 29).is_some());
        }
        assert_eq!(a, fold_revision(1, Some("aaaa")));
        assert_ne!(a, fold_revision(1, Some("aaab")));
        assert_ne!(a, fold_revision(2, Some("aaaa")));
    }
}
