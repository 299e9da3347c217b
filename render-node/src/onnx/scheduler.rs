//! Noise schedulers for image-to-image sampling, from a diffusers
//! `scheduler/scheduler_config.json`: Euler (discrete, the ancestral-free
//! variant) and LCM (latent consistency). Both follow the training noise
//! schedule in the config (betas, number of training steps, prediction type);
//! any other scheduler class (PNDM, DDIM, LMS, ...) is sampled with Euler over
//! its schedule, which every Stable Diffusion checkpoint supports.
//!
//! Image-to-image: of `steps` scheduled timesteps, the last
//! `floor(steps * strength)` run (Euler), or LCM's timesteps are drawn from
//! the first `strength` of its original schedule; the encoded image gets the
//! noise of the first step that runs.

use serde::Deserialize;

use super::RefineError;

/// The fields of `scheduler_config.json` that matter here (diffusers names).
#[derive(Debug, Clone, Deserialize)]
pub struct SchedulerConfig {
    #[serde(rename = "_class_name", default)]
    pub class_name: String,
    #[serde(default = "d_train_steps")]
    pub num_train_timesteps: usize,
    #[serde(default = "d_beta_start")]
    pub beta_start: f64,
    #[serde(default = "d_beta_end")]
    pub beta_end: f64,
    #[serde(default = "d_beta_schedule")]
    pub beta_schedule: String,
    #[serde(default = "d_prediction")]
    pub prediction_type: String,
    #[serde(default)]
    pub timestep_spacing: Option<String>,
    #[serde(default)]
    pub steps_offset: usize,
    #[serde(default = "d_original_steps")]
    pub original_inference_steps: usize,
    #[serde(default = "d_timestep_scaling")]
    pub timestep_scaling: f64,
}

fn d_train_steps() -> usize {
    1000
}
fn d_beta_start() -> f64 {
    0.00085
}
fn d_beta_end() -> f64 {
    0.012
}
fn d_beta_schedule() -> String {
    "scaled_linear".into()
}
fn d_prediction() -> String {
    "epsilon".into()
}
fn d_original_steps() -> usize {
    50
}
fn d_timestep_scaling() -> f64 {
    10.0
}

impl SchedulerConfig {
    pub fn parse(json: &str) -> Result<SchedulerConfig, RefineError> {
        serde_json::from_str(json)
            .map_err(|e| RefineError::Model(format!("scheduler_config.json: {e}")))
    }

    /// Which sampler this config asks for.
    pub fn kind(&self) -> SchedulerKind {
        if self.class_name.starts_with("LCM") {
            SchedulerKind::Lcm
        } else {
            SchedulerKind::Euler
        }
    }

    fn alphas_cumprod(&self) -> Result<Vec<f64>, RefineError> {
        let n = self.num_train_timesteps;
        if n < 2 {
            return Err(RefineError::Model(format!(
                "scheduler_config.json: num_train_timesteps {n}"
            )));
        }
        let lin = |a: f64, b: f64, i: usize| a + (b - a) * i as f64 / (n - 1) as f64;
        let betas: Vec<f64> = match self.beta_schedule.as_str() {
            "linear" => (0..n)
                .map(|i| lin(self.beta_start, self.beta_end, i))
                .collect(),
            "scaled_linear" => (0..n)
                .map(|i| lin(self.beta_start.sqrt(), self.beta_end.sqrt(), i).powi(2))
                .collect(),
            other => {
                return Err(RefineError::Model(format!(
                    "scheduler_config.json: beta_schedule {other:?} (linear and scaled_linear \
                     are supported)"
                )));
            }
        };
        let mut acc = 1.0;
        Ok(betas
            .iter()
            .map(|b| {
                acc *= 1.0 - b;
                acc
            })
            .collect())
    }

    fn prediction(&self) -> Result<Prediction, RefineError> {
        match self.prediction_type.as_str() {
            "epsilon" => Ok(Prediction::Epsilon),
            "v_prediction" => Ok(Prediction::V),
            "sample" => Ok(Prediction::Sample),
            other => Err(RefineError::Model(format!(
                "scheduler_config.json: prediction_type {other:?}"
            ))),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerKind {
    Euler,
    Lcm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prediction {
    Epsilon,
    V,
    Sample,
}

/// One image-to-image sampling run: the timesteps the unet sees, in order,
/// and how each step moves the latents.
#[derive(Debug, Clone)]
pub struct Scheduler {
    kind: SchedulerKind,
    prediction: Prediction,
    /// Timesteps passed to the unet, one per denoising step.
    timesteps: Vec<f64>,
    /// Euler: sigma per step plus the final one (0). LCM: unused.
    sigmas: Vec<f64>,
    alphas_cumprod: Vec<f64>,
    timestep_scaling: f64,
}

impl Scheduler {
    /// Plans `steps` scheduled steps of which `strength` (0..=1] run.
    pub fn img2img(
        config: &SchedulerConfig,
        steps: usize,
        strength: f64,
    ) -> Result<Scheduler, RefineError> {
        if steps == 0 || !(strength > 0.0 && strength <= 1.0) {
            return Err(RefineError::Config(format!(
                "steps {steps} and strength {strength}: need steps >= 1 and 0 < strength <= 1"
            )));
        }
        let alphas_cumprod = config.alphas_cumprod()?;
        let prediction = config.prediction()?;
        let t_train = config.num_train_timesteps;
        match config.kind() {
            SchedulerKind::Euler => {
                let all = euler_timesteps(config, steps)?;
                let train_sigmas: Vec<f64> = alphas_cumprod
                    .iter()
                    .map(|a| ((1.0 - a) / a).sqrt())
                    .collect();
                let mut sigmas: Vec<f64> = all.iter().map(|t| interp(&train_sigmas, *t)).collect();
                sigmas.push(0.0);
                let run = ((steps as f64 * strength) as usize).min(steps);
                if run == 0 {
                    return Err(RefineError::Config(format!(
                        "strength {strength} of {steps} steps runs no step: raise steps or strength"
                    )));
                }
                let start = steps - run;
                Ok(Scheduler {
                    kind: SchedulerKind::Euler,
                    prediction,
                    timesteps: all[start..].to_vec(),
                    sigmas: sigmas[start..].to_vec(),
                    alphas_cumprod,
                    timestep_scaling: config.timestep_scaling,
                })
            }
            SchedulerKind::Lcm => {
                let original = config.original_inference_steps.max(1);
                let c = t_train / original;
                let usable = (original as f64 * strength) as usize;
                if steps > usable {
                    return Err(RefineError::Config(format!(
                        "LCM: {steps} steps at strength {strength} need at most \
                         original_inference_steps * strength = {usable} steps"
                    )));
                }
                // Candidate timesteps c-1, 2c-1, ... over the first `strength`
                // of the schedule, newest first; `steps` of them evenly by index.
                let origin: Vec<usize> = (1..=usable).rev().map(|k| k * c - 1).collect();
                let timesteps = (0..steps)
                    .map(|i| origin[i * usable / steps] as f64)
                    .collect();
                Ok(Scheduler {
                    kind: SchedulerKind::Lcm,
                    prediction,
                    timesteps,
                    sigmas: Vec::new(),
                    alphas_cumprod,
                    timestep_scaling: config.timestep_scaling,
                })
            }
        }
    }

    pub fn kind(&self) -> SchedulerKind {
        self.kind
    }

    /// The timesteps the unet is called at, in order.
    pub fn timesteps(&self) -> &[f64] {
        &self.timesteps
    }

    /// Noises the encoded image for the first step that runs.
    pub fn add_noise(&self, latents: &mut [f32], noise: &[f32]) {
        match self.kind {
            SchedulerKind::Euler => {
                let s = self.sigmas[0] as f32;
                for (x, n) in latents.iter_mut().zip(noise) {
                    *x += n * s;
                }
            }
            SchedulerKind::Lcm => {
                let a = self.alpha_at(self.timesteps[0]);
                let (sa, sb) = (a.sqrt() as f32, (1.0 - a).sqrt() as f32);
                for (x, n) in latents.iter_mut().zip(noise) {
                    *x = sa * *x + sb * n;
                }
            }
        }
    }

    /// What step `i`'s unet input is multiplied by.
    pub fn input_scale(&self, i: usize) -> f32 {
        match self.kind {
            SchedulerKind::Euler => (1.0 / (self.sigmas[i].powi(2) + 1.0).sqrt()) as f32,
            SchedulerKind::Lcm => 1.0,
        }
    }

    /// Moves `latents` by step `i` given the unet's (guided) output. LCM
    /// re-noises between steps with fresh noise from `noise`.
    pub fn step(&self, i: usize, model_out: &[f32], latents: &mut [f32], noise: &mut Noise) {
        match self.kind {
            SchedulerKind::Euler => {
                let sigma = self.sigmas[i];
                let dt = (self.sigmas[i + 1] - sigma) as f32;
                let s = sigma as f32;
                let c = 1.0 / (sigma * sigma + 1.0);
                for (x, m) in latents.iter_mut().zip(model_out) {
                    let x0 = match self.prediction {
                        Prediction::Epsilon => *x - s * m,
                        Prediction::V => {
                            (f64::from(*m) * (-sigma * c.sqrt()) + f64::from(*x) * c) as f32
                        }
                        Prediction::Sample => *m,
                    };
                    let derivative = (*x - x0) / s;
                    *x += derivative * dt;
                }
            }
            SchedulerKind::Lcm => {
                let t = self.timesteps[i];
                let a = self.alpha_at(t);
                let (sa, sb) = (a.sqrt(), (1.0 - a).sqrt());
                let scaled = t * self.timestep_scaling;
                let sigma_data2 = 0.25;
                let c_skip = (sigma_data2 / (scaled * scaled + sigma_data2)) as f32;
                let c_out = (scaled / (scaled * scaled + sigma_data2).sqrt()) as f32;
                let last = i + 1 == self.timesteps.len();
                let prev = (!last).then(|| self.alpha_at(self.timesteps[i + 1]));
                for (x, m) in latents.iter_mut().zip(model_out) {
                    let (xf, mf) = (f64::from(*x), f64::from(*m));
                    let x0 = match self.prediction {
                        Prediction::Epsilon => (xf - sb * mf) / sa,
                        Prediction::V => sa * xf - sb * mf,
                        Prediction::Sample => mf,
                    } as f32;
                    let denoised = c_out * x0 + c_skip * *x;
                    *x = match prev {
                        None => denoised,
                        Some(ap) => {
                            ap.sqrt() as f32 * denoised + (1.0 - ap).sqrt() as f32 * noise.sample()
                        }
                    };
                }
            }
        }
    }

    fn alpha_at(&self, t: f64) -> f64 {
        let i = (t.round().max(0.0) as usize).min(self.alphas_cumprod.len() - 1);
        self.alphas_cumprod[i]
    }
}

/// Euler's schedule of `steps` timesteps, newest first
/// (`timestep_spacing`: leading (default), trailing or linspace).
fn euler_timesteps(config: &SchedulerConfig, steps: usize) -> Result<Vec<f64>, RefineError> {
    let t = config.num_train_timesteps;
    let spacing = config.timestep_spacing.as_deref().unwrap_or("leading");
    let ts: Vec<f64> = match spacing {
        "linspace" => (0..steps)
            .rev()
            .map(|i| {
                if steps == 1 {
                    0.0
                } else {
                    (t - 1) as f64 * i as f64 / (steps - 1) as f64
                }
            })
            .collect(),
        "leading" => {
            let ratio = t / steps;
            (0..steps)
                .rev()
                .map(|i| (i * ratio + config.steps_offset) as f64)
                .collect()
        }
        "trailing" => {
            let ratio = t as f64 / steps as f64;
            (0..steps)
                .map(|i| (t as f64 - i as f64 * ratio).round() - 1.0)
                .collect()
        }
        other => {
            return Err(RefineError::Model(format!(
                "scheduler_config.json: timestep_spacing {other:?}"
            )));
        }
    };
    Ok(ts
        .into_iter()
        .map(|x| x.clamp(0.0, (t - 1) as f64))
        .collect())
}

/// Linear interpolation of `table` (indexed by training timestep) at `t`.
fn interp(table: &[f64], t: f64) -> f64 {
    let lo = t.floor().max(0.0) as usize;
    let hi = (lo + 1).min(table.len() - 1);
    let lo = lo.min(table.len() - 1);
    let f = t - t.floor();
    table[lo] * (1.0 - f) + table[hi] * f
}

/// LCM-distilled unets take the guidance scale as a sinusoidal embedding
/// (`timestep_cond`, width `dim`): sin and cos of `(w - 1) * 1000` over
/// geometric frequencies.
pub fn guidance_embedding(w: f64, dim: usize) -> Vec<f32> {
    let half = dim / 2;
    let mut out = vec![0.0f32; dim];
    if half == 0 {
        return out;
    }
    let x = (w - 1.0) * 1000.0;
    let k = if half > 1 {
        10000f64.ln() / (half - 1) as f64
    } else {
        0.0
    };
    for i in 0..half {
        let a = x * (-(i as f64) * k).exp();
        out[i] = a.sin() as f32;
        out[half + i] = a.cos() as f32;
    }
    out
}

/// Deterministic standard-normal noise: splitmix64 and Box-Muller, so a
/// seed gives the same latents on every machine.
#[derive(Debug, Clone)]
pub struct Noise {
    state: u64,
    spare: Option<f32>,
}

impl Noise {
    pub fn new(seed: u64) -> Noise {
        Noise {
            state: seed,
            spare: None,
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1].
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    }

    pub fn sample(&mut self) -> f32 {
        if let Some(s) = self.spare.take() {
            return s;
        }
        let r = (-2.0 * self.uniform().ln()).sqrt();
        let th = std::f64::consts::TAU * self.uniform();
        self.spare = Some((r * th.sin()) as f32);
        (r * th.cos()) as f32
    }

    pub fn fill(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.sample()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sd(class: &str, spacing: &str) -> SchedulerConfig {
        SchedulerConfig::parse(&format!(
            r#"{{"_class_name": "{class}", "num_train_timesteps": 1000, "beta_start": 0.00085,
                "beta_end": 0.012, "beta_schedule": "scaled_linear", "steps_offset": 1,
                "timestep_spacing": "{spacing}"}}"#
        ))
        .unwrap()
    }

    #[test]
    fn euler_timesteps_match_diffusers_spacings() {
        let leading = Scheduler::img2img(&sd("EulerDiscreteScheduler", "leading"), 4, 1.0).unwrap();
        assert_eq!(leading.timesteps(), &[751.0, 501.0, 251.0, 1.0]);
        let trailing =
            Scheduler::img2img(&sd("EulerDiscreteScheduler", "trailing"), 4, 1.0).unwrap();
        assert_eq!(trailing.timesteps(), &[999.0, 749.0, 499.0, 249.0]);
        let lin = Scheduler::img2img(&sd("EulerDiscreteScheduler", "linspace"), 4, 1.0).unwrap();
        assert_eq!(lin.timesteps(), &[999.0, 666.0, 333.0, 0.0]);
        // SD's largest training sigma.
        assert!(
            (trailing.sigmas[0] - 14.6146).abs() < 1e-3,
            "{}",
            trailing.sigmas[0]
        );
        assert_eq!(*trailing.sigmas.last().unwrap(), 0.0);
        assert!(trailing.sigmas.windows(2).all(|w| w[0] > w[1]));
    }

    #[test]
    fn strength_keeps_the_last_steps() {
        let s = Scheduler::img2img(&sd("EulerDiscreteScheduler", "leading"), 10, 0.5).unwrap();
        assert_eq!(s.timesteps(), &[401.0, 301.0, 201.0, 101.0, 1.0]);
        assert_eq!(s.sigmas.len(), 6);
        assert!(Scheduler::img2img(&sd("EulerDiscreteScheduler", "leading"), 2, 0.3).is_err());
        assert!(Scheduler::img2img(&sd("EulerDiscreteScheduler", "leading"), 4, 0.0).is_err());
    }

    #[test]
    fn other_scheduler_classes_sample_with_euler() {
        assert_eq!(sd("PNDMScheduler", "leading").kind(), SchedulerKind::Euler);
        assert_eq!(sd("LCMScheduler", "leading").kind(), SchedulerKind::Lcm);
    }

    #[test]
    fn lcm_timesteps_match_diffusers() {
        let c = sd("LCMScheduler", "leading");
        let s = Scheduler::img2img(&c, 4, 1.0).unwrap();
        assert_eq!(s.timesteps(), &[999.0, 759.0, 499.0, 259.0]);
        let half = Scheduler::img2img(&c, 4, 0.5).unwrap();
        assert_eq!(half.timesteps(), &[499.0, 379.0, 259.0, 139.0]);
        assert!(Scheduler::img2img(&c, 30, 0.5).is_err());
    }

    #[test]
    fn a_perfect_noise_prediction_recovers_the_image() {
        // Euler with the true noise as epsilon lands on the clean latents.
        let s = Scheduler::img2img(&sd("EulerDiscreteScheduler", "trailing"), 4, 0.75).unwrap();
        let clean: Vec<f32> = (0..64).map(|i| (i as f32 * 0.37).sin()).collect();
        let noise = Noise::new(7).fill(64);
        let mut x = clean.clone();
        s.add_noise(&mut x, &noise);
        let mut rng = Noise::new(1);
        for i in 0..s.timesteps().len() {
            s.step(i, &noise, &mut x, &mut rng);
        }
        for (a, b) in x.iter().zip(&clean) {
            assert!((a - b).abs() < 1e-3, "{a} vs {b}");
        }
        // LCM's last step returns the boundary-conditioned clean estimate.
        let l = Scheduler::img2img(&sd("LCMScheduler", "leading"), 2, 0.6).unwrap();
        let mut x = clean.clone();
        l.add_noise(&mut x, &noise);
        for i in 0..l.timesteps().len() {
            // The true noise of the current latents.
            let a = l.alpha_at(l.timesteps()[i]);
            let eps: Vec<f32> = x
                .iter()
                .zip(&clean)
                .map(|(xt, c)| {
                    ((f64::from(*xt) - a.sqrt() * f64::from(*c)) / (1.0 - a).sqrt()) as f32
                })
                .collect();
            l.step(i, &eps, &mut x, &mut rng);
        }
        for (a, b) in x.iter().zip(&clean) {
            assert!((a - b).abs() < 2e-3, "{a} vs {b}");
        }
    }

    #[test]
    fn noise_is_deterministic_and_standard() {
        let a = Noise::new(42).fill(20_000);
        assert_eq!(a, Noise::new(42).fill(20_000));
        assert_ne!(a, Noise::new(43).fill(20_000));
        let mean = a.iter().map(|x| f64::from(*x)).sum::<f64>() / a.len() as f64;
        let var = a
            .iter()
            .map(|x| (f64::from(*x) - mean).powi(2))
            .sum::<f64>()
            / a.len() as f64;
        assert!(mean.abs() < 0.03, "{mean}");
        assert!((var - 1.0).abs() < 0.05, "{var}");
    }

    #[test]
    fn guidance_embedding_is_sin_then_cos() {
        let e = guidance_embedding(1.0, 8);
        assert_eq!(e, vec![0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        let e = guidance_embedding(8.5, 256);
        assert_eq!(e.len(), 256);
        assert!((e[0] - (7500f64).sin() as f32).abs() < 1e-6);
    }
}
