//! 360° spins (`GET /api/v1/images/spin`; docs/embeds.md, "Spins"): the 24
//! turntable angles of one vehicle and colour, each a cached variant of its
//! own (`View::Angle`), delivered as one animated WebP or one sprite sheet
//! and billed per frame in one charge.
//!
//! Order of work, as for one image (`super`): the ETag and the layout are
//! pure functions of the parameters (a 304 and the manifest touch no
//! image); a spin already assembled is charged with the bytes in hand;
//! otherwise the 24 credits are reserved first, the frames' sources are
//! fetched or rendered (each through the one deduplicated render path),
//! resized, laid out and encoded, and a failure refunds the charge, once.

use std::sync::Arc;

use bytes::Bytes;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use vis_catalog::Catalog;
use vis_protocol::{Angle, Format, RenderJob, View};

use super::{
    Deliverer, DeliveryError, ImageParams, Reserved, ResolveError, Resolved, refund_reserved,
};
use crate::billing::CREDITS_PER_IMAGE;
use crate::objects::ObjectKey;
use crate::renders::{Admission, SourceKind};
use crate::store::{NewDelivery, Payer};

/// Frames in a spin: the turn's angles, 0 to 345 in steps of 15.
pub const FRAMES: usize = Angle::COUNT;
/// A spin costs one image's credit per frame.
pub const CREDITS_PER_SPIN: i64 = CREDITS_PER_IMAGE * FRAMES as i64;
/// The largest frame edge, and the default: 24 frames of 512 px are a
/// product page's spin (an animation of about 1 MB, a 3072x2048 sheet).
pub const FRAME_MAX: u32 = 512;
/// Each frame of an animation is shown this long: a turn in 2 seconds.
pub const FRAME_MS: u32 = 83;
/// A sprite sheet's columns (24 frames: 6 x 4).
pub const SPRITE_COLUMNS: u32 = 6;

/// How the frames come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One animated WebP that loops forever.
    Animation,
    /// One image, the frames in a grid of [`SPRITE_COLUMNS`], row by row.
    Sprite,
}

impl Layout {
    pub fn id(self) -> &'static str {
        match self {
            Layout::Animation => "animation",
            Layout::Sprite => "sprite",
        }
    }
}

/// A spin resolved: its 24 frames (one [`Resolved`] per angle, at the
/// frame size), how they are laid out and encoded.
#[derive(Debug, Clone)]
pub struct Spin {
    pub frames: Vec<Resolved>,
    pub layout: Layout,
    pub format: Format,
}

/// Where each frame sits and what it shows (`response=manifest`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SpinManifest {
    /// `animation` or `sprite`.
    pub layout: String,
    /// `webp` for an animation; the sheet's format for a sprite.
    pub format: String,
    /// The spin's canonical URL (what a GET with these parameters serves).
    pub url: String,
    pub frame_count: usize,
    pub frame_width: u32,
    pub frame_height: u32,
    /// An animation's time per frame.
    pub frame_ms: u32,
    /// A sprite's grid; 1 x 1 for an animation.
    pub columns: u32,
    pub rows: u32,
    /// Credits a GET of the spin costs (one per frame).
    pub credits: i64,
    pub etag: String,
    /// Alt text for the spin's `<img>` (the vehicle, "360° spin").
    pub alt: String,
    pub frames: Vec<SpinFrame>,
}

/// One frame of a spin.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SpinFrame {
    pub index: usize,
    /// Degrees around the vehicle from the nose (90 the left side).
    pub angle: u16,
    /// The frame's view as responses name it (`angle-30`).
    pub view: String,
    /// The frame's cell in a sprite (0, 0 for an animation).
    pub x: u32,
    pub y: u32,
    /// The frame alone as an image: its canonical
    /// `GET /api/v1/images/car` URL (1 credit), at the frame size.
    pub image_url: String,
}

impl Spin {
    /// Looks the vehicle up once and makes its 24 frames at the frame size
    /// (`params.view` is ignored: a spin has every angle), encoded as
    /// `format` (a sheet's; WebP for an animation).
    pub fn resolve(
        deliverer: &Deliverer,
        catalog: &Catalog,
        params: &ImageParams,
        layout: Layout,
        format: Format,
    ) -> Result<Spin, ResolveError> {
        let frames = Angle::turn()
            .map(|a| {
                let p = ImageParams {
                    view: View::Angle(a),
                    ..params.clone()
                };
                deliverer.resolve(catalog, &p)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Spin {
            frames,
            layout,
            format,
        })
    }

    fn first(&self) -> &Resolved {
        &self.frames[0]
    }

    pub fn frame_size(&self) -> (u32, u32) {
        (self.first().width, self.first().height)
    }

    /// The grid: 6 x 4 for a sprite, 1 x 1 (frames in time) for an
    /// animation.
    pub fn grid(&self) -> (u32, u32) {
        match self.layout {
            Layout::Animation => (1, 1),
            Layout::Sprite => (
                SPRITE_COLUMNS,
                FRAMES.div_ceil(SPRITE_COLUMNS as usize) as u32,
            ),
        }
    }

    /// The output's size: one frame for an animation, the sheet for a
    /// sprite.
    pub fn output_size(&self) -> (u32, u32) {
        let (w, h) = self.frame_size();
        let (c, r) = self.grid();
        (w * c, h * r)
    }

    pub fn mime(&self) -> &'static str {
        self.format.mime()
    }

    /// What the spin is made of, hashed: every frame's variant and render
    /// revision, the frame size, the layout and the format.
    fn digest(&self) -> String {
        let mut h = Sha256::new();
        h.update(b"vis spin v1\0");
        for f in &self.frames {
            h.update(format!("{}|r{}\0", f.variant, f.revision).as_bytes());
        }
        let (w, hgt) = self.frame_size();
        h.update(format!("{w}x{hgt}|{}|{}", self.layout.id(), self.format).as_bytes());
        hex::encode(&h.finalize()[..12])
    }

    /// A strong validator for this exact spin (a frame re-rendered under a
    /// new revision changes it).
    pub fn etag(&self) -> String {
        format!("\"s-{}\"", self.digest())
    }

    /// An idempotency key's fingerprint: the same key with another spin is
    /// a conflict.
    pub fn fingerprint(&self) -> String {
        let (w, h) = self.frame_size();
        format!(
            "spin {} {w}x{h} {} {}",
            self.first().variant,
            self.layout.id(),
            self.format
        )
    }

    /// Where the assembled spin is kept.
    pub fn object_key(&self) -> ObjectKey {
        let v = &self.first().variant;
        ObjectKey::parse(&format!(
            "spins/{}/{}/{}/{}/{}-{}.{}",
            v.make,
            v.model,
            v.year,
            v.color,
            self.layout.id(),
            self.digest(),
            self.format
        ))
        .expect("slugs and ids make valid keys")
    }

    /// The canonical query: the image's, without a view, with `layout`.
    pub fn canonical_query(&self) -> String {
        let f = self.first();
        let v = &f.variant;
        let mut query = format!(
            "make={}&model={}&year={}&{}",
            v.make,
            v.model,
            v.year,
            super::color_query(v.color)
        );
        query.push_str(&super::staging_query(v.staging));
        if let Some(w) = f.box_w {
            query.push_str(&format!("&w={w}"));
        }
        if let Some(h) = f.box_h {
            query.push_str(&format!("&h={h}"));
        }
        query.push_str(&format!(
            "&format={}&layout={}",
            self.format,
            self.layout.id()
        ));
        query
    }

    pub fn canonical_path(&self) -> String {
        format!("/api/v1/images/spin?{}", self.canonical_query())
    }

    /// The manifest: where each frame sits, and each frame's own URL.
    pub fn manifest(&self, base_url: &str, alt: String) -> SpinManifest {
        let (w, h) = self.frame_size();
        let (columns, rows) = self.grid();
        SpinManifest {
            layout: self.layout.id().to_owned(),
            format: self.format.to_string(),
            url: format!("{base_url}{}", self.canonical_path()),
            frame_count: self.frames.len(),
            frame_width: w,
            frame_height: h,
            frame_ms: FRAME_MS,
            columns,
            rows,
            credits: CREDITS_PER_SPIN,
            etag: self.etag(),
            alt,
            frames: self
                .frames
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let (x, y) = match self.layout {
                        Layout::Animation => (0, 0),
                        Layout::Sprite => ((i as u32 % columns) * w, (i as u32 / columns) * h),
                    };
                    SpinFrame {
                        index: i,
                        angle: f.variant.view.yaw_degrees(),
                        view: f.variant.view.to_string(),
                        x,
                        y,
                        image_url: format!("{base_url}{}", f.canonical_path()),
                    }
                })
                .collect(),
        }
    }
}

/// What a delivered spin returns.
#[derive(Debug, Clone)]
pub struct DeliveredSpin {
    pub bytes: Bytes,
    pub source: SourceKind,
    pub credits_charged: i64,
    pub balance_after: i64,
}

impl Deliverer {
    /// Whether the assembled spin, or every frame's source, exists: a GET
    /// now would render nothing.
    pub async fn is_spin_cached(&self, spin: &Spin) -> bool {
        if matches!(self.objects.head(&spin.object_key()).await, Ok(Some(_))) {
            return true;
        }
        for f in &spin.frames {
            let source = crate::renders::source_key(&f.variant, f.revision);
            if !matches!(self.objects.head(&source).await, Ok(Some(_))) {
                return false;
            }
        }
        true
    }

    /// The spin's bytes: assembled before, or from its frames' sources
    /// (rendering those that are not), resized, laid out, encoded and kept.
    pub async fn spin_output(&self, spin: &Spin) -> Result<(Bytes, SourceKind), DeliveryError> {
        let key = spin.object_key();
        if let Ok(Some(obj)) = self.objects.get(&key).await {
            return Ok((obj.bytes, SourceKind::Cache));
        }
        let jobs: Vec<RenderJob> = spin
            .frames
            .iter()
            .map(|f| RenderJob {
                variant: f.variant.clone(),
                shape: f.shape,
                revision: f.revision,
                variation: f.revision.saturating_sub(self.revisions.base()),
            })
            .collect();
        // The cold frames are admitted and queued together, so one node
        // leases them as one batch and draws them from one mesh; then every
        // frame goes through the one deduplicated render path, joining its
        // job. A frame whose request is abandoned still finishes and is kept.
        self.dispatcher.admit_batch(&jobs).await?;
        let tasks: Vec<_> = jobs
            .into_iter()
            .map(|job| {
                let dispatcher = Arc::clone(&self.dispatcher);
                tokio::spawn(async move { dispatcher.source_with(&job, Admission::Paid).await })
            })
            .collect();
        let mut sources = Vec::with_capacity(tasks.len());
        for task in tasks {
            let frame = task
                .await
                .map_err(|e| DeliveryError::Derive(format!("a frame's task failed: {e}")))??;
            sources.push(frame);
        }
        let source = if sources.iter().all(|(_, k)| *k == SourceKind::Cache) {
            SourceKind::Cache
        } else {
            SourceKind::Generated
        };
        let (w, h) = spin.frame_size();
        let (layout, format) = (spin.layout, spin.format);
        let pngs: Vec<Bytes> = sources.into_iter().map(|(b, _)| b).collect();
        let bytes = tokio::task::spawn_blocking(move || assemble(&pngs, w, h, layout, format))
            .await
            .map_err(|e| DeliveryError::Derive(e.to_string()))?
            .map_err(|e| DeliveryError::Derive(e.to_string()))?;
        let bytes = Bytes::from(bytes);
        // Keeping the spin is an optimisation: a failure is logged.
        if let Err(e) = self.objects.put(&key, bytes.clone(), format.mime()).await {
            tracing::warn!(error = %e, "could not store an assembled spin");
        }
        Ok((bytes, source))
    }

    /// Delivers and bills one spin: the 24 credits reserved in one charge
    /// before anything costs (unless the spin is assembled already), and
    /// refunded, once, when the work fails or the client leaves first.
    pub async fn deliver_spin(
        &self,
        spin: &Spin,
        payer: &Payer<'_>,
    ) -> Result<DeliveredSpin, DeliveryError> {
        let expected = if self.is_spin_cached(spin).await {
            SourceKind::Cache
        } else {
            SourceKind::Generated
        };
        let first = spin.first();
        let (w, h) = spin.frame_size();
        let balance_after = self
            .debit(NewDelivery {
                request_id: payer.request_id.to_owned(),
                account_id: payer.account_id.to_owned(),
                key_id: Some(payer.key_id.to_owned()),
                // The charge names the spin's first frame (angle 0), so
                // usage, feedback and `prewarm --top` read a real variant.
                variant: first.variant.to_string(),
                revision: i64::from(first.revision),
                width: i64::from(w),
                height: i64::from(h),
                format: spin.format.to_string(),
                source: expected.as_str(),
                credits: CREDITS_PER_SPIN,
            })
            .await?;
        let mut reserved = Reserved {
            ledger: self.ledger.clone(),
            store: Arc::clone(&self.store),
            request_id: Some(payer.request_id.to_owned()),
        };
        match self.spin_output(spin).await {
            Ok((bytes, source)) => {
                reserved.request_id = None;
                self.count_delivered(source);
                Ok(DeliveredSpin {
                    bytes,
                    source,
                    credits_charged: CREDITS_PER_SPIN,
                    balance_after,
                })
            }
            Err(e) => {
                if let Some(request_id) = reserved.request_id.take() {
                    refund_reserved(&self.ledger, &*self.store, &request_id, "spin failed").await;
                }
                Err(e)
            }
        }
    }
}

/// Decodes each frame's source, fits it into the frame, lays the frames
/// out and encodes them.
fn assemble(
    pngs: &[Bytes],
    w: u32,
    h: u32,
    layout: Layout,
    format: Format,
) -> Result<Vec<u8>, vis_render::image::ImageError> {
    use vis_render::image;
    let frames = pngs
        .iter()
        .map(|png| {
            let src = image::decode_png(png)?;
            if (src.width, src.height) == (w, h) {
                Ok(src)
            } else {
                image::resize(&src, w, h)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    match layout {
        Layout::Animation => image::encode_animated_webp(&frames, FRAME_MS),
        Layout::Sprite => image::encode(&image::sprite(&frames, SPRITE_COLUMNS)?, format),
    }
}
