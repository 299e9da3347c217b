//! ONNX diffusion refinement of the procedural render (cargo feature `onnx`).
//!
//! A [`RefineStage`] is opened once per process from a model directory in the
//! ONNX export layout of diffusers / optimum (`optimum-cli export onnx`):
//! `model_index.json`, `scheduler/scheduler_config.json`, `tokenizer/`,
//! `text_encoder/model.onnx`, `unet/model.onnx`, `vae_encoder/model.onnx`,
//! `vae_decoder/model.onnx`. Each render it refines runs image-to-image:
//!
//! 1. the procedural render is composited on a light studio grey and scaled
//!    to the model's image size (unet `sample_size` x VAE factor);
//! 2. the VAE encoder gives its latents (the distribution's mean when the
//!    export outputs mean and log-variance), times the VAE scaling factor;
//! 3. seeded noise is added for the first step that `strength` keeps, then
//!    the scheduler ([`scheduler`]: Euler or LCM) runs the unet with
//!    classifier-free guidance on a prompt built from make, model, year,
//!    colour, body and view (and a negative prompt) when `guidance > 1`;
//!    a unet with a ControlNet-style image input (`controlnet_cond`, ...)
//!    gets the render's depth map ([`Guide`]);
//! 4. the VAE decoder's image is scaled back to the render's size, and
//!    [`Reimposer`] (wgpu compute passes) puts back the procedural alpha
//!    (exactly), the colours outside the vehicle, and the paint's hue and
//!    saturation.
//!
//! The stage's [`RefineStage::fingerprint`] covers the model's content and
//! every setting that changes output bytes; the control plane folds it into
//! its render revision ([`crate::fold_revision`]).

mod digest;
mod guide;
mod reimpose;
pub mod runtime;
pub mod scheduler;
mod tokenizer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use fast_image_resize as fr;
use ort::session::Session;
use ort::value::{DynValue, Tensor, TensorElementType, ValueType};
use serde_json::Value;
use sha2::{Digest, Sha256};
use vis_protocol::{BodyShape, View};

pub use digest::{COMPONENTS, model_digest};
pub use guide::{DepthMap, Guide, NO_MATERIAL};
pub use reimpose::{Reimposer, hsv};
pub use scheduler::{Scheduler, SchedulerConfig, SchedulerKind};
pub use tokenizer::PromptTokenizer;

use crate::Subject;
use crate::gpu::Gpu;
use crate::image::{ImageError, Rgba};

/// Bump when the stage's output changes for the same model and settings
/// (it is part of the fingerprint, hence of render revisions).
pub const REFINE_VERSION: u32 = 1;

/// The studio grey the render is composited on before encoding.
pub const BACKGROUND: [u8; 3] = [236, 236, 234];

/// Unet inputs taken as a ControlNet-style conditioning image, in order of
/// preference: the renderer passes its depth map there.
pub const CONTROL_INPUTS: [&str; 5] = [
    "controlnet_cond",
    "control_image",
    "cond_image",
    "depth_map",
    "depth",
];

pub const DEFAULT_PROMPT: &str = "studio product photo of a {color} {year} {make} {model} \
     {shape}, {view}, clean light grey studio background, soft studio lighting, sharp focus, \
     high detail";
pub const DEFAULT_NEGATIVE: &str = "cartoon, drawing, illustration, text, watermark, logo, \
     lettering on the plate, people, blurry, deformed, extra wheels";

#[derive(Debug, thiserror::Error)]
pub enum RefineError {
    /// The ONNX Runtime library is not where it was looked for.
    #[error("{0}")]
    RuntimeMissing(String),
    /// The library exists but could not be loaded or initialised.
    #[error("{0}")]
    RuntimeLoad(String),
    #[error("model: {0}")]
    Model(String),
    #[error("refine settings: {0}")]
    Config(String),
    #[error("onnx runtime: {0}")]
    Run(String),
    #[error(transparent)]
    Image(#[from] ImageError),
}

fn run_err(what: &str) -> impl Fn(ort::Error) -> RefineError + '_ {
    move |e| RefineError::Run(format!("{what}: {e}"))
}

/// Where the networks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    #[default]
    Cpu,
    /// CUDA device id; needs the `onnx-cuda` feature and the
    /// `onnxruntime-gpu` wheel's library.
    Cuda(i32),
}

/// Operator settings of the refinement stage.
#[derive(Debug, Clone)]
pub struct RefineConfig {
    /// The exported model (diffusers ONNX layout).
    pub model_dir: PathBuf,
    /// The ONNX Runtime library; None: `VIS_ORT_DYLIB`, `ORT_DYLIB_PATH`,
    /// then Python's site-packages ([`runtime::locate`]).
    pub ort_dylib: Option<PathBuf>,
    /// Scheduled denoising steps; `floor(steps * strength)` of them run
    /// (LCM: `steps` run, drawn from the first `strength` of its schedule).
    pub steps: usize,
    /// How far the render is noised: 0 keeps it, 1 replaces it.
    pub strength: f32,
    /// Classifier-free guidance scale; at most 1 turns it off (one unet
    /// pass per step, as sd-turbo and LCM models want).
    pub guidance: f32,
    /// Weight of the depth conditioning, for unets with a
    /// `conditioning_scale` input.
    pub control_scale: f32,
    /// Mixed with a hash of make, model and year into each render's noise
    /// seed.
    pub seed: u64,
    /// Prompt template: `{color} {year} {make} {model} {shape} {view}`.
    pub prompt: String,
    pub negative_prompt: String,
    /// ONNX Runtime intra-op threads; 0: its default (all cores).
    pub threads: usize,
    pub device: Device,
}

impl RefineConfig {
    /// Defaults for a distilled model such as sd-turbo: 4 steps at strength
    /// 0.5 (two unet passes), no classifier-free guidance.
    pub fn new(model_dir: impl Into<PathBuf>) -> RefineConfig {
        RefineConfig {
            model_dir: model_dir.into(),
            ort_dylib: None,
            steps: 4,
            strength: 0.5,
            guidance: 0.0,
            control_scale: 1.0,
            seed: 0,
            prompt: DEFAULT_PROMPT.into(),
            negative_prompt: DEFAULT_NEGATIVE.into(),
            threads: 0,
            device: Device::Cpu,
        }
    }
}

/// Milliseconds spent in each part of one refinement.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    pub text_ms: f64,
    pub encode_ms: f64,
    pub unet_ms: f64,
    /// VAE decoding and scaling back to the render's size.
    pub decode_ms: f64,
    /// Re-imposing alpha and paint ([`Reimposer`], on the GPU), in
    /// `refine_render`.
    pub reimpose_ms: f64,
    /// Everything above.
    pub total_ms: f64,
    /// Unet runs (steps, doubled when guidance needs a separate batch).
    pub unet_runs: usize,
}

/// A refined image before re-imposition: RGB8, the input's size.
#[derive(Debug, Clone)]
pub struct Refined {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
    pub timings: Timings,
}

/// One ONNX network and what its inputs look like.
struct Net {
    session: Session,
    inputs: Vec<(String, Option<TensorElementType>, Vec<i64>)>,
    outputs: Vec<String>,
}

impl Net {
    fn open(
        env: &ort::environment::Environment,
        path: &Path,
        config: &RefineConfig,
    ) -> Result<Net, RefineError> {
        let what = path.display().to_string();
        let e = |e: String| RefineError::Model(format!("{what}: {e}"));
        let mut builder = Session::builder(env).map_err(|x| e(x.to_string()))?;
        if config.threads > 0 {
            builder = builder
                .with_intra_threads(config.threads)
                .map_err(|x| e(x.to_string()))?;
        }
        builder = builder
            .with_deterministic_compute(true)
            .map_err(|x| e(x.to_string()))?;
        if let Device::Cuda(id) = config.device {
            builder = cuda(builder, id).map_err(e)?;
        }
        if !path.is_file() {
            return Err(e("missing (diffusers ONNX layout expected)".into()));
        }
        let session = builder
            .commit_from_file(path)
            .map_err(|x| e(x.to_string()))?;
        let inputs = session
            .inputs()
            .iter()
            .map(|o| match o.dtype() {
                ValueType::Tensor { ty, shape, .. } => {
                    (o.name().to_owned(), Some(*ty), shape.to_vec())
                }
                _ => (o.name().to_owned(), None, Vec::new()),
            })
            .collect();
        let outputs = session
            .outputs()
            .iter()
            .map(|o| o.name().to_owned())
            .collect();
        Ok(Net {
            session,
            inputs,
            outputs,
        })
    }

    fn input(&self, name: &str) -> Option<&(String, Option<TensorElementType>, Vec<i64>)> {
        self.inputs.iter().find(|i| i.0 == name)
    }

    /// Runs with named inputs; returns the named output (or the first).
    fn run(
        &mut self,
        what: &str,
        inputs: Vec<(String, DynValue)>,
        output: Option<&str>,
    ) -> Result<(Vec<i64>, Vec<f32>), RefineError> {
        let name = output
            .filter(|o| self.outputs.iter().any(|x| x == o))
            .or(self.outputs.first().map(String::as_str))
            .ok_or_else(|| RefineError::Model(format!("{what} has no outputs")))?
            .to_owned();
        let outputs = self.session.run(inputs).map_err(run_err(what))?;
        let (shape, data) = outputs[name.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(run_err(what))?;
        Ok((shape.to_vec(), data.to_vec()))
    }
}

#[cfg(feature = "onnx-cuda")]
fn cuda(
    builder: ort::session::builder::SessionBuilder,
    id: i32,
) -> Result<ort::session::builder::SessionBuilder, String> {
    builder
        .with_execution_providers([ort::ep::CUDA::default()
            .with_device_id(id)
            .build()
            .error_on_failure()])
        .map_err(|e| format!("CUDA execution provider: {e}"))
}

#[cfg(not(feature = "onnx-cuda"))]
fn cuda(
    _builder: ort::session::builder::SessionBuilder,
    _id: i32,
) -> Result<ort::session::builder::SessionBuilder, String> {
    Err("CUDA needs render-node built with --features onnx-cuda".into())
}

fn f32_value(shape: Vec<i64>, data: Vec<f32>) -> Result<DynValue, RefineError> {
    Tensor::from_array((shape, data))
        .map(|t| t.into_dyn())
        .map_err(run_err("tensor"))
}

/// The networks, behind one lock: one refinement at a time per process
/// (ONNX Runtime parallelises inside each run).
struct Nets {
    text: Net,
    unet: Net,
    encoder: Net,
    decoder: Net,
}

/// How the unet wants to be fed, read from its inputs.
#[derive(Debug, Clone)]
struct UnetLayout {
    latent_channels: usize,
    /// False when the batch dimension is fixed at 1: guidance runs twice.
    batch2: bool,
    timestep_type: TensorElementType,
    /// Rank 0, or rank 1 fixed at 1, or rank 1 per batch item.
    timestep_shape: TimestepShape,
    timestep_cond: Option<usize>,
    control: Option<ControlInput>,
    conditioning_scale: Option<(String, Vec<i64>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimestepShape {
    Scalar,
    One,
    PerItem,
}

/// A ControlNet-style conditioning image input of the unet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlInput {
    pub name: String,
    pub channels: usize,
    /// Its height and width (the model's image size when dynamic).
    pub height: u32,
    pub width: u32,
}

/// The refinement stage: sessions, tokenizer, scheduler settings and the
/// fingerprint. `Send + Sync`; [`RefineStage::refine`] may be called from
/// several threads (runs are serialised).
pub struct RefineStage {
    config: RefineConfig,
    fingerprint: String,
    model_digest: String,
    runtime: PathBuf,
    tokenizer: PromptTokenizer,
    scheduler: SchedulerConfig,
    image_size: u32,
    vae_scale: u32,
    scaling_factor: f32,
    unet: UnetLayout,
    text_input_type: TensorElementType,
    nets: Mutex<Nets>,
}

impl std::fmt::Debug for RefineStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefineStage")
            .field("model_dir", &self.config.model_dir)
            .field("fingerprint", &self.fingerprint)
            .field("image_size", &self.image_size)
            .field("scheduler", &self.scheduler.class_name)
            .field("control", &self.unet.control)
            .finish()
    }
}

fn read_config(path: &Path) -> Result<Value, RefineError> {
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t)
            .map_err(|e| RefineError::Model(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Null),
        Err(e) => Err(RefineError::Model(format!("{}: {e}", path.display()))),
    }
}

impl RefineStage {
    /// Finds and loads ONNX Runtime, opens the four networks, the tokenizer
    /// and the scheduler config, checks the settings, and fingerprints the
    /// model directory.
    pub fn open(config: RefineConfig) -> Result<RefineStage, RefineError> {
        let located = runtime::locate(config.ort_dylib.as_deref())?;
        let dir = config.model_dir.clone();
        if !dir.join("model_index.json").is_file() {
            return Err(RefineError::Model(format!(
                "{}: no model_index.json; expected a diffusers ONNX export \
                 (optimum-cli export onnx --model MODEL DIR; docs/rendering.md)",
                dir.display()
            )));
        }
        let (env, runtime) = runtime::environment(&located)?;
        let nets = Nets {
            text: Net::open(&env, &dir.join("text_encoder/model.onnx"), &config)?,
            unet: Net::open(&env, &dir.join("unet/model.onnx"), &config)?,
            encoder: Net::open(&env, &dir.join("vae_encoder/model.onnx"), &config)?,
            decoder: Net::open(&env, &dir.join("vae_decoder/model.onnx"), &config)?,
        };
        let tokenizer = PromptTokenizer::load(&dir.join("tokenizer"))?;
        let sched_path = dir.join("scheduler/scheduler_config.json");
        let scheduler = SchedulerConfig::parse(
            &std::fs::read_to_string(&sched_path)
                .map_err(|e| RefineError::Model(format!("{}: {e}", sched_path.display())))?,
        )?;
        // Settings are checked now, not on the first render.
        Scheduler::img2img(&scheduler, config.steps, f64::from(config.strength))?;

        let unet_cfg = read_config(&dir.join("unet/config.json"))?;
        let vae_cfg = match read_config(&dir.join("vae_decoder/config.json"))? {
            Value::Null => read_config(&dir.join("vae_encoder/config.json"))?,
            v => v,
        };
        let vae_scale = vae_cfg
            .get("block_out_channels")
            .and_then(Value::as_array)
            .map_or(8, |b| 1u32 << b.len().saturating_sub(1));
        let scaling_factor = vae_cfg
            .get("scaling_factor")
            .and_then(Value::as_f64)
            .unwrap_or(0.18215) as f32;
        let sample = nets
            .unet
            .input("sample")
            .ok_or_else(|| RefineError::Model("unet/model.onnx has no `sample` input".into()))?;
        let static_side = sample.2.get(2).copied().filter(|d| *d > 0);
        let latent_side = unet_cfg
            .get("sample_size")
            .and_then(Value::as_u64)
            .or(static_side.map(|d| d as u64))
            .unwrap_or(64) as u32;
        let image_size = latent_side * vae_scale;
        let unet = unet_layout(&nets.unet, &unet_cfg, &vae_cfg, image_size)?;
        let text_input_type = match nets.text.input("input_ids") {
            Some((_, Some(t @ (TensorElementType::Int32 | TensorElementType::Int64)), _)) => *t,
            _ => {
                return Err(RefineError::Model(
                    "text_encoder/model.onnx needs an int32 or int64 `input_ids` input".into(),
                ));
            }
        };
        for (net, name, input) in [
            (&nets.encoder, "vae_encoder", "sample"),
            (&nets.decoder, "vae_decoder", "latent_sample"),
        ] {
            match net.input(input) {
                Some((_, Some(TensorElementType::Float32), _)) => {}
                Some((_, Some(TensorElementType::Float16), _)) => {
                    return Err(RefineError::Model(format!(
                        "{name}/model.onnx is float16; export in float32 (no --fp16)"
                    )));
                }
                _ => {
                    return Err(RefineError::Model(format!(
                        "{name}/model.onnx needs a float32 `{input}` input"
                    )));
                }
            }
        }

        let model_digest = model_digest(&dir)?;
        let fingerprint = fingerprint(&model_digest, &config);
        Ok(RefineStage {
            config,
            fingerprint,
            model_digest,
            runtime,
            tokenizer,
            scheduler,
            image_size,
            vae_scale,
            scaling_factor,
            unet,
            text_input_type,
            nets: Mutex::new(nets),
        })
    }

    /// Hex SHA-256 over the stage version, the model directory's content
    /// and every setting that changes output bytes (steps, strength,
    /// guidance, control scale, seed, prompts). Not the device or thread
    /// count: those change timings, not what is rendered.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Hex SHA-256 of the model directory's content alone.
    pub fn model_digest(&self) -> &str {
        &self.model_digest
    }

    pub fn config(&self) -> &RefineConfig {
        &self.config
    }

    /// The ONNX Runtime library in use.
    pub fn runtime_path(&self) -> &Path {
        &self.runtime
    }

    /// The model's image side (the render is scaled to it and back).
    pub fn image_size(&self) -> u32 {
        self.image_size
    }

    pub fn scheduler(&self) -> &SchedulerConfig {
        &self.scheduler
    }

    /// The unet's conditioning-image input, if it has one.
    pub fn control(&self) -> Option<&ControlInput> {
        self.unet.control.as_ref()
    }

    /// The prompt for a subject, from the configured template.
    pub fn prompt(&self, s: &Subject<'_>) -> String {
        prompt(&self.config.prompt, s)
    }

    /// The noise seed for a subject: the configured seed mixed with make,
    /// model, year and variation. Colour and view do not change it, as they
    /// do not change the body: one vehicle looks alike in every picture. A
    /// re-render (variation n) draws new noise as well as turning the pose.
    pub fn seed(&self, s: &Subject<'_>) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in s
            .make
            .bytes()
            .chain([0])
            .chain(s.model.bytes())
            .chain([0])
            .chain(s.year.to_le_bytes())
            .chain(s.variation.to_le_bytes())
        {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        h ^ self.config.seed
    }

    /// Refines a procedural render of `s` whose guide maps are `guide`
    /// (same size) and re-imposes alpha, outside colour and paint hue.
    pub fn refine_render(
        &self,
        gpu: &Gpu,
        reimposer: &Reimposer,
        procedural: &Rgba,
        guide: &Guide,
        s: &Subject<'_>,
    ) -> Result<(Rgba, Timings), RefineError> {
        let depth = guide.depth_map();
        let refined = self.refine(procedural, Some(&depth), &self.prompt(s), self.seed(s))?;
        let t = Instant::now();
        let out = reimposer
            .run(gpu, procedural, &refined.rgb, guide)
            .map_err(|e| RefineError::Run(format!("re-imposition: {e}")))?;
        let mut timings = refined.timings;
        timings.reimpose_ms = ms(t);
        timings.total_ms += timings.reimpose_ms;
        Ok((out, timings))
    }

    /// The diffusion itself: `image` (straight alpha, square) composited on
    /// [`BACKGROUND`], refined under `prompt`, returned as RGB at the input's
    /// size. `depth` feeds a conditioning input when the unet has one (the
    /// image's luminance does when no depth is given).
    pub fn refine(
        &self,
        image: &Rgba,
        depth: Option<&DepthMap>,
        prompt: &str,
        seed: u64,
    ) -> Result<Refined, RefineError> {
        let t0 = Instant::now();
        let mut timings = Timings::default();
        let s = self.image_size;
        let side = s as i64;
        let lat = (s / self.vae_scale) as i64;
        let c = self.unet.latent_channels;
        let guided = self.config.guidance > 1.0;
        let scheduler = Scheduler::img2img(
            &self.scheduler,
            self.config.steps,
            f64::from(self.config.strength),
        )?;

        let rgb = composite(image, BACKGROUND);
        let small = resize_rgb(&rgb, image.width, image.height, s, s)?;
        let pixels = s as usize * s as usize;
        let mut nchw = vec![0.0f32; 3 * pixels];
        for (i, p) in small.chunks_exact(3).enumerate() {
            for ch in 0..3 {
                nchw[ch * pixels + i] = f32::from(p[ch]) / 127.5 - 1.0;
            }
        }
        let control = match &self.unet.control {
            None => None,
            Some(ci) => Some(control_image(ci, depth, &small, s)?),
        };

        let mut nets = self.nets.lock().unwrap_or_else(|e| e.into_inner());
        let t = Instant::now();
        let cond = self.encode_text(&mut nets.text, prompt)?;
        let uncond = if guided {
            Some(self.encode_text(&mut nets.text, &self.config.negative_prompt)?)
        } else {
            None
        };
        timings.text_ms = ms(t);

        let t = Instant::now();
        let (shape, params) = nets.encoder.run(
            "vae_encoder",
            vec![("sample".into(), f32_value(vec![1, 3, side, side], nchw)?)],
            Some("latent_parameters"),
        )?;
        let n_lat = c * (lat * lat) as usize;
        if shape.len() != 4 || shape[2] != lat || shape[3] != lat || params.len() < n_lat {
            return Err(RefineError::Model(format!(
                "vae_encoder output {shape:?}, expected [1, {c} or {}, {lat}, {lat}]",
                2 * c
            )));
        }
        // Mean and log-variance stacked: the mean is the first half.
        let mut latents: Vec<f32> = params[..n_lat]
            .iter()
            .map(|v| v * self.scaling_factor)
            .collect();
        timings.encode_ms = ms(t);

        let mut noise = scheduler::Noise::new(seed);
        let first = noise.fill(latents.len());
        scheduler.add_noise(&mut latents, &first);

        let t = Instant::now();
        let guidance = self.config.guidance;
        for (i, &ts) in scheduler.timesteps().iter().enumerate() {
            let scale = scheduler.input_scale(i);
            let x_in: Vec<f32> = latents.iter().map(|v| v * scale).collect();
            let out = match &uncond {
                None => {
                    timings.unet_runs += 1;
                    self.unet_run(&mut nets.unet, &x_in, 1, ts, &cond, control.as_ref(), lat)?
                }
                Some(uncond) if self.unet.batch2 => {
                    timings.unet_runs += 1;
                    let x2 = [x_in.as_slice(), x_in.as_slice()].concat();
                    let h2 = [uncond.as_slice(), cond.as_slice()].concat();
                    let both =
                        self.unet_run(&mut nets.unet, &x2, 2, ts, &h2, control.as_ref(), lat)?;
                    let (u, c) = both.split_at(both.len() / 2);
                    cfg(u, c, guidance)
                }
                Some(uncond) => {
                    timings.unet_runs += 2;
                    let u =
                        self.unet_run(&mut nets.unet, &x_in, 1, ts, uncond, control.as_ref(), lat)?;
                    let c =
                        self.unet_run(&mut nets.unet, &x_in, 1, ts, &cond, control.as_ref(), lat)?;
                    cfg(&u, &c, guidance)
                }
            };
            scheduler.step(i, &out, &mut latents, &mut noise);
        }
        timings.unet_ms = ms(t);

        let t = Instant::now();
        let z: Vec<f32> = latents.iter().map(|v| v / self.scaling_factor).collect();
        let (shape, decoded) = nets.decoder.run(
            "vae_decoder",
            vec![(
                "latent_sample".into(),
                f32_value(vec![1, c as i64, lat, lat], z)?,
            )],
            Some("sample"),
        )?;
        drop(nets);
        if shape != [1, 3, side, side] {
            return Err(RefineError::Model(format!(
                "vae_decoder output {shape:?}, expected [1, 3, {s}, {s}]"
            )));
        }
        let mut out_small = vec![0u8; 3 * pixels];
        for i in 0..pixels {
            for ch in 0..3 {
                let v = (decoded[ch * pixels + i] + 1.0) * 127.5;
                out_small[i * 3 + ch] = v.round().clamp(0.0, 255.0) as u8;
            }
        }
        let rgb = resize_rgb(&out_small, s, s, image.width, image.height)?;
        timings.decode_ms = ms(t);
        timings.total_ms = ms(t0);
        Ok(Refined {
            width: image.width,
            height: image.height,
            rgb,
            timings,
        })
    }

    fn encode_text(&self, net: &mut Net, text: &str) -> Result<Vec<f32>, RefineError> {
        let ids = self.tokenizer.encode(text)?;
        let shape = vec![1, ids.len() as i64];
        let value = match self.text_input_type {
            TensorElementType::Int32 => {
                Tensor::from_array((shape, ids.iter().map(|i| *i as i32).collect::<Vec<i32>>()))
                    .map(|t| t.into_dyn())
            }
            _ => Tensor::from_array((
                shape,
                ids.iter().map(|i| i64::from(*i)).collect::<Vec<i64>>(),
            ))
            .map(|t| t.into_dyn()),
        }
        .map_err(run_err("tensor"))?;
        let (_, hidden) = net.run(
            "text_encoder",
            vec![("input_ids".into(), value)],
            Some("last_hidden_state"),
        )?;
        Ok(hidden)
    }

    #[allow(clippy::too_many_arguments)]
    fn unet_run(
        &self,
        net: &mut Net,
        x: &[f32],
        batch: i64,
        timestep: f64,
        hidden: &[f32],
        control: Option<&Vec<f32>>,
        lat: i64,
    ) -> Result<Vec<f32>, RefineError> {
        let u = &self.unet;
        let c = u.latent_channels as i64;
        let seq = self.tokenizer.max_len() as i64;
        let width = hidden.len() as i64 / (batch * seq);
        let t_shape: Vec<i64> = match u.timestep_shape {
            TimestepShape::Scalar => vec![],
            TimestepShape::One => vec![1],
            TimestepShape::PerItem => vec![batch],
        };
        let t_len = t_shape.iter().product::<i64>().max(1) as usize;
        let t_value = match u.timestep_type {
            TensorElementType::Float32 => {
                Tensor::from_array((t_shape, vec![timestep as f32; t_len])).map(|t| t.into_dyn())
            }
            TensorElementType::Int32 => {
                Tensor::from_array((t_shape, vec![timestep.round() as i32; t_len]))
                    .map(|t| t.into_dyn())
            }
            _ => Tensor::from_array((t_shape, vec![timestep.round() as i64; t_len]))
                .map(|t| t.into_dyn()),
        }
        .map_err(run_err("tensor"))?;
        let mut inputs = vec![
            (
                "sample".to_owned(),
                f32_value(vec![batch, c, lat, lat], x.to_vec())?,
            ),
            ("timestep".to_owned(), t_value),
            (
                "encoder_hidden_states".to_owned(),
                f32_value(vec![batch, seq, width], hidden.to_vec())?,
            ),
        ];
        if let Some(dim) = u.timestep_cond {
            let e = scheduler::guidance_embedding(f64::from(self.config.guidance), dim);
            let data = (0..batch).flat_map(|_| e.iter().copied()).collect();
            inputs.push((
                "timestep_cond".into(),
                f32_value(vec![batch, dim as i64], data)?,
            ));
        }
        if let (Some(ci), Some(img)) = (&u.control, control) {
            let data = (0..batch).flat_map(|_| img.iter().copied()).collect();
            inputs.push((
                ci.name.clone(),
                f32_value(
                    vec![
                        batch,
                        ci.channels as i64,
                        i64::from(ci.height),
                        i64::from(ci.width),
                    ],
                    data,
                )?,
            ));
        }
        if let Some((name, shape)) = &u.conditioning_scale {
            let shape = if shape.is_empty() { vec![] } else { vec![1] };
            inputs.push((
                name.clone(),
                f32_value(shape, vec![self.config.control_scale])?,
            ));
        }
        let (shape, out) = net.run("unet", inputs, Some("out_sample"))?;
        if shape != [batch, c, lat, lat] {
            return Err(RefineError::Model(format!(
                "unet output {shape:?}, expected [{batch}, {c}, {lat}, {lat}]"
            )));
        }
        Ok(out)
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Classifier-free guidance: `uncond + g * (cond - uncond)`.
fn cfg(uncond: &[f32], cond: &[f32], g: f32) -> Vec<f32> {
    uncond
        .iter()
        .zip(cond)
        .map(|(u, c)| u + g * (c - u))
        .collect()
}

fn unet_layout(
    unet: &Net,
    unet_cfg: &Value,
    vae_cfg: &Value,
    image_size: u32,
) -> Result<UnetLayout, RefineError> {
    let bad = |m: String| RefineError::Model(format!("unet/model.onnx: {m}"));
    let mut layout = UnetLayout {
        latent_channels: 4,
        batch2: true,
        timestep_type: TensorElementType::Int64,
        timestep_shape: TimestepShape::PerItem,
        timestep_cond: None,
        control: None,
        conditioning_scale: None,
    };
    let mut seen_timestep = false;
    let mut seen_hidden = false;
    for (name, ty, shape) in &unet.inputs {
        let ty = ty.ok_or_else(|| bad(format!("input {name} is not a tensor")))?;
        if ty == TensorElementType::Float16 {
            return Err(bad(format!(
                "input {name} is float16; export in float32 (no --fp16)"
            )));
        }
        match name.as_str() {
            "sample" => {
                layout.latent_channels = shape
                    .get(1)
                    .copied()
                    .filter(|d| *d > 0)
                    .map(|d| d as usize)
                    .or_else(|| {
                        unet_cfg
                            .get("in_channels")
                            .and_then(Value::as_u64)
                            .map(|d| d as usize)
                    })
                    .or_else(|| {
                        vae_cfg
                            .get("latent_channels")
                            .and_then(Value::as_u64)
                            .map(|d| d as usize)
                    })
                    .unwrap_or(4);
                layout.batch2 = shape.first().is_none_or(|d| *d != 1);
            }
            "timestep" => {
                seen_timestep = true;
                layout.timestep_type = match ty {
                    TensorElementType::Float32
                    | TensorElementType::Int64
                    | TensorElementType::Int32 => ty,
                    other => return Err(bad(format!("timestep type {other:?}"))),
                };
                layout.timestep_shape = match shape.as_slice() {
                    [] => TimestepShape::Scalar,
                    [1] => TimestepShape::One,
                    [_] => TimestepShape::PerItem,
                    other => return Err(bad(format!("timestep shape {other:?}"))),
                };
            }
            "encoder_hidden_states" => seen_hidden = true,
            "timestep_cond" => {
                let dim = shape.get(1).copied().filter(|d| *d > 0).ok_or_else(|| {
                    bad("timestep_cond needs a fixed width (LCM guidance embedding)".into())
                })?;
                layout.timestep_cond = Some(dim as usize);
            }
            "conditioning_scale" => {
                layout.conditioning_scale = Some((name.clone(), shape.clone()));
            }
            n if CONTROL_INPUTS.contains(&n) => {
                if layout.control.is_none() {
                    let dim = |i: usize| shape.get(i).copied().filter(|d| *d > 0);
                    layout.control = Some(ControlInput {
                        name: name.clone(),
                        channels: dim(1).map_or(3, |d| d as usize),
                        height: dim(2).map_or(image_size, |d| d as u32),
                        width: dim(3).map_or(image_size, |d| d as u32),
                    });
                }
            }
            other => {
                return Err(bad(format!(
                    "input {other:?} is not supported (SD 1.x / 2.x / turbo / LCM exports, \
                     optionally with a {} image input, are)",
                    CONTROL_INPUTS[0]
                )));
            }
        }
    }
    if !seen_timestep || !seen_hidden {
        return Err(bad(
            "needs sample, timestep and encoder_hidden_states inputs".into(),
        ));
    }
    Ok(layout)
}

/// The conditioning image: the depth map (or the image's luminance)
/// resized to the input and repeated over its channels, values in 0..1.
fn control_image(
    ci: &ControlInput,
    depth: Option<&DepthMap>,
    small_rgb: &[u8],
    side: u32,
) -> Result<Vec<f32>, RefineError> {
    let plane = match depth {
        Some(d) => resize_f32(&d.values, d.size, d.size, ci.width, ci.height)?,
        None => {
            let luma: Vec<f32> = small_rgb
                .chunks_exact(3)
                .map(|p| {
                    (0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2]))
                        / 255.0
                })
                .collect();
            resize_f32(&luma, side, side, ci.width, ci.height)?
        }
    };
    Ok((0..ci.channels)
        .flat_map(|_| plane.iter().copied())
        .collect())
}

/// Straight-alpha RGBA over an opaque background, as RGB8.
fn composite(img: &Rgba, bg: [u8; 3]) -> Vec<u8> {
    img.pixels
        .chunks_exact(4)
        .flat_map(|p| {
            let a = u32::from(p[3]);
            (0..3).map(move |c| {
                ((u32::from(p[c]) * a + u32::from(bg[c]) * (255 - a) + 127) / 255) as u8
            })
        })
        .collect()
}

fn resize_err(e: impl std::fmt::Display) -> RefineError {
    RefineError::Image(ImageError::Resize(e.to_string()))
}

/// Lanczos3 resize of RGB8.
fn resize_rgb(src: &[u8], sw: u32, sh: u32, dw: u32, dh: u32) -> Result<Vec<u8>, RefineError> {
    if (sw, sh) == (dw, dh) {
        return Ok(src.to_vec());
    }
    let src = fr::images::ImageRef::new(sw, sh, src, fr::PixelType::U8x3).map_err(resize_err)?;
    let mut dst = fr::images::Image::new(dw, dh, fr::PixelType::U8x3);
    let opts =
        fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3));
    fr::Resizer::new()
        .resize(&src, &mut dst, &opts)
        .map_err(resize_err)?;
    Ok(dst.into_vec())
}

/// Area-averaging resize of one f32 plane.
fn resize_f32(src: &[f32], sw: u32, sh: u32, dw: u32, dh: u32) -> Result<Vec<f32>, RefineError> {
    if (sw, sh) == (dw, dh) {
        return Ok(src.to_vec());
    }
    let bytes: &[u8] = bytemuck::cast_slice(src);
    let src = fr::images::ImageRef::new(sw, sh, bytes, fr::PixelType::F32).map_err(resize_err)?;
    let mut dst = fr::images::Image::new(dw, dh, fr::PixelType::F32);
    let opts = fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Box));
    fr::Resizer::new()
        .resize(&src, &mut dst, &opts)
        .map_err(resize_err)?;
    Ok(bytemuck::pod_collect_to_vec(&dst.into_vec()))
}

fn fingerprint(model_digest: &str, c: &RefineConfig) -> String {
    let mut h = Sha256::new();
    let text = format!(
        "vis-refine/{REFINE_VERSION}\nmodel={model_digest}\nsteps={}\nstrength={:?}\n\
         guidance={:?}\ncontrol_scale={:?}\nseed={}\nbackground={:?}\nprompt={}\nnegative={}\n",
        c.steps,
        c.strength,
        c.guidance,
        c.control_scale,
        c.seed,
        BACKGROUND,
        c.prompt,
        c.negative_prompt
    );
    h.update(text.as_bytes());
    hex::encode(h.finalize())
}

/// Slug words as a name: `land-rover` -> `Land Rover`, `rav4` -> `RAV4`.
fn title(slug: &str) -> String {
    slug.split('-')
        .filter(|w| !w.is_empty())
        .map(|w| {
            if w.chars().any(|c| c.is_ascii_digit()) {
                w.to_ascii_uppercase()
            } else {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn view_words(v: View) -> &'static str {
    match v {
        View::Front => "front view",
        View::Front34 => "front three-quarter view",
        View::Side | View::SideRight => "side view",
        View::Rear => "rear view",
        View::Rear34 => "rear three-quarter view",
        View::Top => "top-down view from directly above",
        View::Angle(a) => match a.degrees() {
            0 => "front view",
            90 | 270 => "side view",
            180 => "rear view",
            d if !(90..=270).contains(&d) => "front three-quarter view",
            _ => "rear three-quarter view",
        },
    }
}

fn shape_words(s: BodyShape) -> &'static str {
    match s {
        BodyShape::Suv => "SUV",
        BodyShape::BoxTruck => "box truck",
        BodyShape::Pickup => "pickup truck",
        other => other.id(),
    }
}

/// Fills a prompt template for a subject.
pub fn prompt(template: &str, s: &Subject<'_>) -> String {
    template
        .replace(
            "{color}",
            &vis_protocol::paints::describe(s.make, s.color, None).name,
        )
        .replace("{year}", &s.year.to_string())
        .replace("{make}", &title(s.make))
        .replace("{model}", &title(s.model))
        .replace("{shape}", shape_words(s.shape))
        .replace("{view}", view_words(s.view))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vis_protocol::Color;

    #[test]
    fn prompts_name_the_vehicle_colour_and_view() {
        let s = Subject {
            make: "toyota",
            model: "camry",
            year: 2019,
            shape: BodyShape::Sedan,
            color: Color::Red.into(),
            view: View::Side,
            variation: 0,
            staging: Default::default(),
        };
        assert_eq!(
            prompt(
                "studio product photo of a {color} {year} {make} {model}, {view}",
                &s
            ),
            "studio product photo of a red 2019 Toyota Camry, side view"
        );
        assert_eq!(title("land-rover"), "Land Rover");
        assert_eq!(title("rav4"), "RAV4");
        assert!(prompt(DEFAULT_PROMPT, &s).contains("red 2019 Toyota Camry sedan, side view"));
    }

    #[test]
    fn settings_change_the_fingerprint() {
        let a = RefineConfig::new("m");
        let base = fingerprint("d", &a);
        assert_eq!(base, fingerprint("d", &a.clone()));
        assert_ne!(base, fingerprint("e", &a));
        for change in [
            RefineConfig {
                steps: 5,
                ..a.clone()
            },
            RefineConfig {
                strength: 0.6,
                ..a.clone()
            },
            RefineConfig {
                guidance: 2.0,
                ..a.clone()
            },
            RefineConfig {
                seed: 1,
                ..a.clone()
            },
            RefineConfig {
                prompt: "x".into(),
                ..a.clone()
            },
        ] {
            assert_ne!(base, fingerprint("d", &change));
        }
        // Where it runs does not change what it renders.
        let elsewhere = RefineConfig {
            threads: 3,
            device: Device::Cuda(0),
            model_dir: "other".into(),
            ..a.clone()
        };
        assert_eq!(base, fingerprint("d", &elsewhere));
    }

    #[test]
    fn compositing_and_guidance_arithmetic() {
        let img = Rgba::new(2, 1, vec![255, 0, 0, 255, 0, 0, 0, 0]).unwrap();
        assert_eq!(composite(&img, [10, 20, 30]), vec![255, 0, 0, 10, 20, 30]);
        assert_eq!(cfg(&[1.0, 2.0], &[3.0, 2.0], 2.0), vec![5.0, 2.0]);
    }
}
