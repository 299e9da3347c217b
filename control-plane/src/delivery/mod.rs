//! Image delivery: from validated parameters to encoded bytes, billed.
//!
//! Order of work for one request, and why:
//! 1. The output's size, ETag and canonical URL are pure functions of the
//!    parameters, so a conditional request is answered (304, free) without
//!    touching the image.
//! 2. An output in memory is charged with the bytes in hand.
//! 3. Otherwise the credit is reserved first: the charge (one conditional
//!    debit, the delivery record) commits before any work that costs
//!    something, so a request the balance cannot pay for never starts a
//!    cold render (docs/ledger.md, "Reserved before the render").
//! 4. The output comes from the object store, else is derived from the
//!    source render (which may be rendered now). A failed render, a spent
//!    budget, a full queue or a client that leaves first refunds the
//!    reserved charge, once.

pub mod alt;
pub mod idempotent;
pub mod signed;
pub mod spin;
pub mod tokens;

use std::sync::Arc;

use bytes::Bytes;
use sha2::{Digest, Sha256};
use vis_catalog::{Catalog, LookupError};
use vis_protocol::paints::{ColorMatch, PaintLookupError};
use vis_protocol::{
    BodyShape, Format, FormatChoice, Framing, Paint, RenderJob, Slug, Staging, VariantKey, View,
};

use crate::billing::CREDITS_PER_IMAGE;
use crate::metrics::Metrics;
use crate::objects::ObjectStore;
use crate::renders::cache::{Derived, DerivedCache, DerivedKey};
use crate::renders::{Admission, DispatchError, Dispatcher, SourceKind};
pub use crate::store::Payer;
use crate::store::{CallClaimStore, DeliveryStore, NewDelivery, StoreError};

/// Parameters of one image, validated (spec §4, GET /api/v1/images/car).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageParams {
    pub make: String,
    pub model: String,
    pub year: u16,
    pub view: View,
    /// A preset or `#RRGGBB` (with its finish); the default silver when
    /// `paint` names the colour instead.
    pub color: Paint,
    /// A manufacturer's paint code of the make (`paint=3R3`), looked up
    /// once the make is known.
    pub paint: Option<PaintRequest>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// A format, or `auto`: chosen per request from its `Accept` header.
    pub format: FormatChoice,
    /// Background, fit, trim and padding (checked against the box).
    pub framing: Framing,
    /// How the vehicle is staged (`shadow`): part of the variant.
    pub staging: Staging,
}

/// `paint=CODE`, and the `finish` to paint it in when not its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaintRequest {
    pub code: String,
    pub finish: Option<vis_protocol::Finish>,
}

/// A catalog vehicle resolved from [`ImageParams`], with the output's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub variant: VariantKey,
    pub shape: BodyShape,
    pub revision: u32,
    pub width: u32,
    pub height: u32,
    /// The output's format: the one asked for, or with `format=auto` the
    /// one negotiated from the request's `Accept` header
    /// ([`Resolved::negotiate`]; PNG until then).
    pub format: Format,
    /// Whether the request said `format=auto`: a URL that keeps it
    /// negotiates on every load.
    pub auto_format: bool,
    /// Requested box, kept for the canonical URL.
    pub box_w: Option<u32>,
    pub box_h: Option<u32>,
    /// Background, fit, trim and padding: applied when the output is
    /// derived, so part of its key, ETag and canonical URL.
    pub framing: Framing,
    /// The paint code the client named, if any: only what the colour is
    /// called (`color_match`), never the variant.
    pub paint_code: Option<String>,
}

impl Resolved {
    pub fn derived_key(&self) -> DerivedKey {
        DerivedKey {
            variant: self.variant.clone(),
            revision: self.revision,
            width: self.width,
            height: self.height,
            format: self.format,
            framing: self.framing,
        }
    }

    /// A strong validator for this exact output: variant, size, format,
    /// framing and render revision (a re-render under a new revision
    /// changes it). A plain output's text has no framing part, so its ETag
    /// is the one it had before framing existed.
    pub fn etag(&self) -> String {
        let mut text = format!(
            "{}|{}x{}|{}|r{}",
            self.variant, self.width, self.height, self.format, self.revision
        );
        if !self.framing.is_plain() {
            text.push_str(&format!("|{}", self.framing));
        }
        let digest = Sha256::digest(text.as_bytes());
        format!("\"r{}-{}\"", self.revision, hex::encode(&digest[..12]))
    }

    /// The canonical request path of this image, in `make` spelling.
    pub fn canonical_path(&self) -> String {
        format!("/api/v1/images/car?{}", self.canonical_query())
    }

    /// The path of this exact output (`Content-Location`): the canonical
    /// path with the negotiated format in place of `auto`.
    pub fn representation_path(&self) -> String {
        Resolved {
            auto_format: false,
            ..self.clone()
        }
        .canonical_path()
    }

    /// The `format` the request asked for: a format or `auto`.
    pub fn format_choice(&self) -> FormatChoice {
        if self.auto_format {
            FormatChoice::Auto
        } else {
            FormatChoice::Fixed(self.format)
        }
    }

    /// With `format=auto`, takes the format the client's acceptance
    /// (`q_of`: `http::accept::Accept::q`) gives this output, by whether it
    /// is transparent (`Format::negotiate`); otherwise keeps the one asked
    /// for.
    pub fn negotiate(&mut self, q_of: impl Fn(Format) -> f32) {
        if self.auto_format {
            self.format = Format::negotiate(q_of, !self.framing.opaque());
        }
    }

    /// What the variant's paint is called on this make, and how exactly
    /// (`X-Color-Match`, `color_match`).
    pub fn color_match(&self) -> ColorMatch {
        vis_protocol::paints::describe(
            self.variant.make.as_str(),
            self.variant.color,
            self.paint_code.as_deref(),
        )
    }

    /// The canonical query of this image: slugs, every parameter spelt out,
    /// in a fixed order (`make, model, year, view, color, finish, shadow,
    /// scale, w, h, background, fit, trim, padding, format`, staging and
    /// framing only when not the defaults; an angle view is `angle=N` in view's place; `format=auto`
    /// stays `auto`). A custom colour is `color=%23rrggbb` (with `finish` when
    /// not solid), whether it was asked for by hex or by paint code: one
    /// variant, one canonical URL.
    pub fn canonical_query(&self) -> String {
        let v = &self.variant;
        let mut query = format!(
            "make={}&model={}&year={}&{}&{}",
            v.make,
            v.model,
            v.year,
            view_query(v.view),
            color_query(v.color)
        );
        query.push_str(&staging_query(v.staging));
        if let Some(w) = self.box_w {
            query.push_str(&format!("&w={w}"));
        }
        if let Some(h) = self.box_h {
            query.push_str(&format!("&h={h}"));
        }
        query.push_str(&self.framing.query());
        query.push_str(&format!("&format={}", self.format_choice()));
        query
    }
}

/// `view=…` of a named view, `angle=…` of an angle view.
pub fn view_query(view: View) -> String {
    match view.angle() {
        Some(a) => format!("angle={}", a.degrees()),
        None => format!("view={view}"),
    }
}

/// The view of a canonical query's `view` or `angle` (`None` when
/// neither names one).
pub fn view_of_query(view: Option<&str>, angle: Option<&str>) -> Option<View> {
    match angle {
        Some(a) => a
            .parse()
            .ok()
            .and_then(vis_protocol::Angle::new)
            .map(View::Angle),
        None => view.unwrap_or(View::default().id()).parse().ok(),
    }
}

/// `&shadow=false` and `&scale=relative` of a staging, as the canonical
/// query spells them (each only when not the default).
pub fn staging_query(staging: Staging) -> String {
    let mut query = String::new();
    if !staging.shadow {
        query.push_str("&shadow=false");
    }
    if staging.scale != vis_protocol::Scale::Fill {
        query.push_str(&format!("&scale={}", staging.scale.id()));
    }
    query
}

/// `color=…` (and `&finish=…`) of a paint, as the canonical query spells it.
pub fn color_query(paint: Paint) -> String {
    match paint {
        Paint::Named(c) => format!("color={c}"),
        Paint::Custom { rgb, finish } => {
            let hex = &vis_protocol::hex_of(rgb)[1..];
            match finish {
                vis_protocol::Finish::Solid => format!("color=%23{hex}"),
                f => format!("color=%23{hex}&finish={f}"),
            }
        }
    }
}

/// Why parameters name no image: the catalog has no such vehicle, or the
/// make has no such paint code.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ResolveError {
    #[error(transparent)]
    Catalog(#[from] LookupError),
    #[error(transparent)]
    Paint(#[from] PaintLookupError),
}

/// Looks the vehicle up (and its paint code) and computes the output's size.
pub fn resolve(
    catalog: &Catalog,
    p: &ImageParams,
    revision: u32,
) -> Result<Resolved, ResolveError> {
    let vehicle = catalog.lookup(&p.make, &p.model, p.year)?;
    let (color, paint_code) = match &p.paint {
        Some(req) => {
            let found = vis_protocol::paints::find_paint(&vehicle.make.slug, &req.code)?;
            (
                found.paint().with_finish(req.finish),
                Some(found.code.clone()),
            )
        }
        None => (p.color, None),
    };
    let slug = |s: &str| Slug::parse(s).expect("catalog slugs are valid");
    let (width, height) = p.framing.output_size(p.width, p.height);
    Ok(Resolved {
        variant: VariantKey {
            make: slug(&vehicle.make.slug),
            model: slug(&vehicle.model.slug),
            year: vehicle.year,
            color,
            view: p.view,
            staging: p.staging,
        },
        shape: vehicle.shape,
        revision,
        width,
        height,
        format: p.format.provisional(),
        auto_format: p.format == FormatChoice::Auto,
        box_w: p.width,
        box_h: p.height,
        framing: p.framing,
        paint_code,
    })
}

#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    #[error("insufficient credits")]
    InsufficientCredits { balance: i64, required: i64 },
    #[error(transparent)]
    Dispatch(#[from] DispatchError),
    #[error("deriving the output failed: {0}")]
    Derive(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a successful delivery returns.
#[derive(Debug, Clone)]
pub struct Delivered {
    pub output: Derived,
    pub source: SourceKind,
    pub credits_charged: i64,
    pub balance_after: i64,
}

/// The part of the store delivery uses beside the ledger: its charges,
/// read back to refund them, and the idempotency claims of retried calls.
/// `app.rs` hands the concrete store in as this port.
pub trait DeliveryPorts: DeliveryStore + CallClaimStore {}

impl<T: DeliveryStore + CallClaimStore + ?Sized> DeliveryPorts for T {}

/// Everything delivery needs, shared.
#[derive(Debug, Clone)]
pub struct Deliverer {
    pub store: Arc<dyn DeliveryPorts>,
    pub ledger: crate::billing::Ledger,
    pub objects: Arc<dyn ObjectStore>,
    pub dispatcher: Arc<Dispatcher>,
    pub derived: Arc<DerivedCache>,
    pub metrics: Arc<Metrics>,
    /// Each variant's render revision (`renders::revisions`).
    pub revisions: Arc<crate::renders::revisions::Revisions>,
}

impl Deliverer {
    /// Looks the vehicle up, at its current render revision.
    pub fn resolve(&self, catalog: &Catalog, p: &ImageParams) -> Result<Resolved, ResolveError> {
        let mut r = resolve(catalog, p, self.revisions.base())?;
        r.revision = self.revisions.of(&r.variant);
        Ok(r)
    }

    /// Whether `r`'s output or its source render already exists, so that a
    /// delivery now would be a cache hit (HEAD answers with this).
    pub async fn is_cached(&self, r: &Resolved) -> bool {
        if self.is_derived(r).await {
            return true;
        }
        let source = crate::renders::source_key(&r.variant, r.revision);
        matches!(self.objects.head(&source).await, Ok(Some(_)))
    }

    /// Whether `r`'s output itself (this size and format) exists, so that
    /// serving it derives nothing.
    pub async fn is_derived(&self, r: &Resolved) -> bool {
        let key = r.derived_key();
        self.derived.get(&key).is_some()
            || matches!(self.objects.head(&key.object_key()).await, Ok(Some(_)))
    }

    /// The output for `r`, from cache or derived (rendering if needed).
    pub async fn output(&self, r: &Resolved) -> Result<(Derived, SourceKind), DeliveryError> {
        self.output_with(r, Admission::Paid).await
    }

    /// The output for `r`, from cache or derived; a cold render only when
    /// `admission` allows one.
    pub async fn output_with(
        &self,
        r: &Resolved,
        admission: Admission,
    ) -> Result<(Derived, SourceKind), DeliveryError> {
        let key = r.derived_key();
        if let Some(hit) = self.derived.get(&key) {
            return Ok((hit, SourceKind::Cache));
        }
        let object_key = key.object_key();
        if let Ok(Some(obj)) = self.objects.get(&object_key).await {
            let d = Derived {
                bytes: obj.bytes,
                width: r.width,
                height: r.height,
                format: r.format,
            };
            self.derived.insert(key, d.clone());
            return Ok((d, SourceKind::Cache));
        }
        let job = RenderJob {
            variant: r.variant.clone(),
            shape: r.shape,
            revision: r.revision,
            variation: r.revision.saturating_sub(self.revisions.base()),
        };
        let (source, kind) = self.dispatcher.source_with(&job, admission).await?;
        let (box_w, box_h, framing, format) = (r.box_w, r.box_h, r.framing, r.format);
        let encoded = tokio::task::spawn_blocking(move || {
            vis_render::image::derive(
                vis_render::Source::Png(&source),
                box_w,
                box_h,
                &framing,
                format,
            )
        })
        .await
        .map_err(|e| DeliveryError::Derive(e.to_string()))?
        .map_err(|e| DeliveryError::Derive(e.to_string()))?;
        let d = Derived {
            bytes: Bytes::from(encoded.bytes),
            width: encoded.width,
            height: encoded.height,
            format,
        };
        // Persisting the derived output is an optimisation: a failure is
        // logged, the delivery goes on.
        if let Err(e) = self
            .objects
            .put(&object_key, d.bytes.clone(), format.mime())
            .await
        {
            tracing::warn!(error = %e, "could not store a derived output");
        }
        self.derived.insert(key, d.clone());
        Ok((d, kind))
    }

    /// Delivers and bills one image.
    ///
    /// A memory hit is charged with the bytes in hand. Anything else (an
    /// object read, a derivation, a cold render) first *reserves* the
    /// credit: the charge is committed before the work starts, so a request
    /// the balance cannot pay for starts no render (concurrent requests
    /// for new variants each reserve through the one conditional debit and
    /// only those that got a credit render). When the work fails, or the
    /// client leaves before it ends, the charge is refunded, once.
    pub async fn deliver(
        &self,
        r: &Resolved,
        payer: &Payer<'_>,
    ) -> Result<Delivered, DeliveryError> {
        if let Some(hit) = self.derived.get(&r.derived_key()) {
            let balance_after = self.charge(r, payer, SourceKind::Cache).await?;
            return Ok(self.delivered(hit, SourceKind::Cache, balance_after));
        }
        // The charge row records where the bytes come from: a render
        // unless the output or its source already exists.
        let expected = if self.is_cached(r).await {
            SourceKind::Cache
        } else {
            SourceKind::Generated
        };
        let balance_after = self.charge(r, payer, expected).await?;
        let mut reserved = Reserved {
            ledger: self.ledger.clone(),
            store: Arc::clone(&self.store),
            request_id: Some(payer.request_id.to_owned()),
        };
        match self.output(r).await {
            Ok((output, source)) => {
                reserved.request_id = None;
                Ok(self.delivered(output, source, balance_after))
            }
            Err(e) => {
                if let Some(request_id) = reserved.request_id.take() {
                    refund_reserved(&self.ledger, &*self.store, &request_id, "render failed").await;
                }
                Err(e)
            }
        }
    }

    /// One conditional debit of the payer's key for `r`.
    async fn charge(
        &self,
        r: &Resolved,
        payer: &Payer<'_>,
        source: SourceKind,
    ) -> Result<i64, DeliveryError> {
        let delivery = NewDelivery {
            request_id: payer.request_id.to_owned(),
            account_id: payer.account_id.to_owned(),
            key_id: Some(payer.key_id.to_owned()),
            variant: r.variant.to_string(),
            revision: i64::from(r.revision),
            width: i64::from(r.width),
            height: i64::from(r.height),
            format: r.format.to_string(),
            source: source.as_str(),
            credits: CREDITS_PER_IMAGE,
        };
        self.debit(delivery).await
    }

    /// Counts a delivery in `/metrics` by where its bytes came from.
    fn count_delivered(&self, source: SourceKind) {
        match source {
            SourceKind::Cache => self.metrics.images_delivered_cache.inc(),
            SourceKind::Generated => self.metrics.images_delivered_generated.inc(),
        };
    }

    /// One conditional debit through the ledger; too few credits is
    /// [`DeliveryError::InsufficientCredits`].
    async fn debit(&self, delivery: NewDelivery) -> Result<i64, DeliveryError> {
        match self.ledger.charge(delivery).await {
            Ok(b) => Ok(b),
            Err(StoreError::InsufficientCredits { balance, required }) => {
                Err(DeliveryError::InsufficientCredits { balance, required })
            }
            Err(e) => Err(e.into()),
        }
    }

    fn delivered(&self, output: Derived, source: SourceKind, balance_after: i64) -> Delivered {
        self.count_delivered(source);
        Delivered {
            output,
            source,
            credits_charged: CREDITS_PER_IMAGE,
            balance_after,
        }
    }
}

/// A credit reserved for a delivery still at work: dropped armed (the
/// client left, the request was cancelled), it refunds the charge.
struct Reserved {
    ledger: crate::billing::Ledger,
    store: Arc<dyn DeliveryPorts>,
    /// `Some` while armed.
    request_id: Option<String>,
}

impl Drop for Reserved {
    fn drop(&mut self) {
        let Some(request_id) = self.request_id.take() else {
            return;
        };
        let (ledger, store) = (self.ledger.clone(), Arc::clone(&self.store));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                refund_reserved(
                    &ledger,
                    &*store,
                    &request_id,
                    "request ended before its image",
                )
                .await;
            });
        }
    }
}

/// Refunds the image charge made under `request_id`, once.
async fn refund_reserved(
    ledger: &crate::billing::Ledger,
    store: &(impl DeliveryStore + ?Sized),
    request_id: &str,
    reason: &str,
) {
    let refunded = match store.delivery_by_request_id(request_id).await {
        Ok(Some(charge)) => ledger.refund_delivery(charge.id, reason).await.map(|_| ()),
        Ok(None) => Err(StoreError::NotFound("delivery")),
        Err(e) => Err(e),
    };
    if let Err(e) = refunded {
        tracing::error!(error = %e, reason, "could not refund a reserved image credit");
    }
}
