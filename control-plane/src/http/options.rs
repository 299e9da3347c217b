//! GET /api/v1/images/options (spec §2 Options document; public, free,
//! cacheable for one hour). The document is built once at start-up.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;
use vis_protocol::{Angle, Color, Format, SOURCE_PX, SizePreset, View};

use super::context;
use crate::billing::{CREDITS_PER_DOLLAR, CREDITS_PER_IMAGE, FREE_CREDITS, PACKS, Pack};
use crate::delivery::signed::TtlBounds;
use crate::http::state::HttpState;
use crate::limits;

/// What the options document says about the loaded catalog.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogSummary {
    pub makes: usize,
    pub models: usize,
    pub years: YearRange,
    pub sources: Vec<CatalogSource>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct YearRange {
    pub from: u16,
    pub to: u16,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CatalogSource {
    pub id: String,
    pub name: String,
    pub region: String,
    pub license: String,
}

/// GET /api/v1/images/options (spec §2 Options document).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OptionsResponse {
    #[schema(value_type = OptionsDocument)]
    pub data: Arc<OptionsDocument>,
    pub request_id: String,
}

/// The options document: every enumeration, size, price and limit.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OptionsDocument {
    /// The six studio views of `view` (the spec's View enumeration).
    pub views: Vec<ViewOption>,
    /// Views beyond the six that `view` also takes: `top`.
    pub extra_views: Vec<ViewOption>,
    /// Turntable angles (`angle`), in place of a named view.
    pub angles: AngleOptions,
    pub colors: Vec<ColorOption>,
    /// Any other colour: `color=#RRGGBB` with a finish.
    pub custom_colors: CustomColors,
    /// Manufacturers' paint codes (`paint=CODE`), by make slug.
    pub paints: BTreeMap<String, Vec<PaintOption>>,
    pub sizes: Sizes,
    pub formats: Vec<FormatOption>,
    pub format_auto: FormatAuto,
    /// `background`, `fit`, `trim` and `padding` (docs/framing.md).
    pub framing: FramingOptions,
    pub pricing: OptionsPricing,
    pub catalog: CatalogSummary,
    pub limits: OptionsLimits,
    /// Where to go next: docs, errors, openapi, pricing, the endpoints.
    pub links: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ViewOption {
    pub id: View,
    pub label: String,
    pub yaw_degrees: u16,
    pub description: String,
    pub aliases: Vec<String>,
}

/// `angle=N`: degrees around the vehicle from the nose (90 the left side),
/// on a grid; responses name an angle's view `angle-N`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AngleOptions {
    pub min: u16,
    pub max: u16,
    pub step: u16,
    /// The 24 angles share one scale, so a vehicle keeps its size through
    /// a turn; the named views share another, so `angle=90` and
    /// `view=side` are separate images a few per cent apart in size.
    pub framing: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ColorOption {
    pub name: Color,
    /// The swatch, `#rrggbb`.
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub hex: String,
}

/// How `color` takes any colour.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CustomColors {
    /// What `color` accepts besides a preset: `#RRGGBB` or `RRGGBB`, any
    /// case (send `#` as `%23` in a URL).
    pub pattern: String,
    /// The finishes a `#RRGGBB` colour may have (`finish`); default solid.
    pub finishes: Vec<String>,
    pub default_finish: String,
}

/// One paint code of a make (models/paints.csv).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PaintOption {
    /// The code as `paint` takes it (case, spaces and dashes ignored).
    pub code: String,
    pub name: String,
    /// The sRGB painted, `#rrggbb`: an approximation (see `source`).
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub hex: String,
    #[schema(value_type = String, pattern = "^(solid|metallic|pearl)$")]
    pub finish: vis_protocol::Finish,
    /// Model years the paint was offered in, first and last.
    pub years: [u16; 2],
    /// Where the sRGB value comes from.
    pub source: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Sizes {
    /// Preset name to width in pixels.
    pub presets: BTreeMap<String, u32>,
    pub max: u32,
    pub source: u32,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FormatOption {
    pub id: Format,
    pub mime: String,
    pub transparent: bool,
}

/// `format=auto`: the format is chosen per request from its `Accept`
/// header, and the answer carries `Vary: Accept`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FormatAuto {
    /// The formats tried in order when the `Accept` header names them
    /// (by their own type, q above 0; a higher q wins, a tie keeps this
    /// order). A wildcard names neither.
    #[schema(example = json!(["avif", "webp"]))]
    pub preference: Vec<Format>,
    /// The format when `Accept` names none of them, for a transparent
    /// background (the default).
    #[schema(example = "png")]
    pub fallback: Format,
    /// The format when `Accept` names none of them behind an opaque
    /// `background`.
    #[schema(example = "jpg")]
    pub fallback_opaque: Format,
}

/// How an output frames its render. Framing is free: the same credit as
/// the plain image, from the same render.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FramingOptions {
    /// `background`: transparent (default), white, studio, or `#RRGGBB`.
    #[schema(example = json!(["transparent", "white", "studio", "#RRGGBB"]))]
    pub backgrounds: Vec<String>,
    /// `fit`: the output is exactly the box (both sides needed).
    #[schema(example = json!(["contain", "cover"]))]
    pub fits: Vec<String>,
    /// `trim=true`: crop to the vehicle, then contain it in the box.
    pub trim: bool,
    /// `padding`: pixels of margin, 0 to this (with trim or fit=contain).
    #[schema(example = 256)]
    pub padding_max: u32,
    /// `shadow`: with the contact shadow (default) or without; each a
    /// render of its own.
    #[schema(example = json!([true, false]))]
    pub shadow: Vec<bool>,
    /// `scale`: fill (default) or relative (one metres-per-pixel per size
    /// class); each a render of its own.
    #[schema(example = json!(["fill", "relative"]))]
    pub scales: Vec<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OptionsPricing {
    pub credits_per_image: i64,
    /// `GET /api/v1/images/spin`: one credit per frame, 24 frames.
    pub credits_per_spin: i64,
    pub credits_per_dollar: i64,
    pub free_credits: i64,
    pub packs: Vec<Pack>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OptionsLimits {
    pub rate_limit_per_minute_default: i64,
    pub max_batch_urls: usize,
    pub delivery_ttl: DeliveryTtl,
}

/// Delivery-URL lifetimes of this deployment, seconds.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryTtl {
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

/// The options document, built once at start-up. `ttl` is the deployment's
/// delivery-URL lifetime bounds.
pub fn document(base_url: &str, catalog: &CatalogSummary, ttl: &TtlBounds) -> OptionsDocument {
    let link = |path: &str| format!("{base_url}{path}");
    OptionsDocument {
        views: View::ALL.iter().map(view_option).collect(),
        extra_views: View::NAMED[View::ALL.len()..]
            .iter()
            .map(view_option)
            .collect(),
        angles: AngleOptions {
            min: 0,
            max: Angle::MAX,
            step: Angle::STEP,
            framing: "The 24 angles share one scale through the turn, so a vehicle keeps its size \
                      from frame to frame; the named views share another, tuned for fill."
                .into(),
        },
        colors: Color::ALL
            .iter()
            .map(|c| ColorOption {
                name: *c,
                hex: c.hex(),
            })
            .collect(),
        custom_colors: CustomColors {
            pattern: "^#?[0-9A-Fa-f]{6}$".into(),
            finishes: vis_protocol::Finish::ALL
                .iter()
                .map(|f| f.id().to_owned())
                .collect(),
            default_finish: vis_protocol::Finish::default().id().to_owned(),
        },
        paints: paints(),
        sizes: Sizes {
            presets: SizePreset::ALL
                .iter()
                .map(|s| (s.id().to_owned(), s.px()))
                .collect(),
            max: SOURCE_PX,
            source: SOURCE_PX,
        },
        formats: Format::ALL
            .iter()
            .map(|f| FormatOption {
                id: *f,
                mime: f.mime().to_owned(),
                transparent: f.transparent(),
            })
            .collect(),
        format_auto: FormatAuto {
            preference: vec![Format::Avif, Format::Webp],
            fallback: Format::negotiate(|_| 0.0, true),
            fallback_opaque: Format::negotiate(|_| 0.0, false),
        },
        framing: FramingOptions {
            backgrounds: ["transparent", "white", "studio", "#RRGGBB"]
                .map(String::from)
                .to_vec(),
            fits: ["contain", "cover"].map(String::from).to_vec(),
            trim: true,
            padding_max: vis_protocol::PADDING_MAX,
            shadow: vec![true, false],
            scales: vis_protocol::Scale::ALL
                .iter()
                .map(|s| s.id().to_owned())
                .collect(),
        },
        pricing: OptionsPricing {
            credits_per_image: CREDITS_PER_IMAGE,
            credits_per_spin: crate::delivery::spin::CREDITS_PER_SPIN,
            credits_per_dollar: CREDITS_PER_DOLLAR,
            free_credits: FREE_CREDITS,
            packs: PACKS.to_vec(),
        },
        catalog: catalog.clone(),
        limits: OptionsLimits {
            rate_limit_per_minute_default: limits::DEFAULT_RATE_LIMIT_PER_MINUTE,
            max_batch_urls: limits::MAX_BATCH_URLS,
            delivery_ttl: DeliveryTtl {
                default: ttl.default_secs,
                min: ttl.min_secs,
                max: ttl.max_secs,
            },
        },
        links: [
            ("docs", "/docs"),
            ("errors", "/docs/errors"),
            ("openapi", "/api/v1/openapi.json"),
            ("image", "/api/v1/images/car"),
            ("spin", "/api/v1/images/spin"),
            ("vehicles", "/api/v1/vehicles"),
            ("resolve", "/api/v1/images/resolve"),
            ("image_urls", "/api/v1/image-urls"),
            ("account", "/api/v1/account"),
            ("pricing", "/pricing"),
        ]
        .into_iter()
        .map(|(name, path)| (name.to_owned(), link(path)))
        .collect(),
    }
}

fn view_option(v: &View) -> ViewOption {
    ViewOption {
        id: *v,
        label: v.label().to_owned(),
        yaw_degrees: v.yaw_degrees(),
        description: v.description().to_owned(),
        aliases: v.aliases().iter().map(|a| (*a).to_owned()).collect(),
    }
}

/// Every make's paint codes, in the table's order.
fn paints() -> BTreeMap<String, Vec<PaintOption>> {
    let mut by_make: BTreeMap<String, Vec<PaintOption>> = BTreeMap::new();
    for p in vis_protocol::paints::paint_codes() {
        by_make
            .entry(p.make.clone())
            .or_default()
            .push(PaintOption {
                code: p.code.clone(),
                name: p.name.clone(),
                hex: p.hex(),
                finish: p.finish,
                years: [p.years.0, p.years.1],
                source: p.source.clone(),
            });
    }
    by_make
}

pub async fn get(State(state): State<HttpState>) -> Response {
    let body = OptionsResponse {
        data: Arc::clone(&state.options),
        request_id: context::current().request_id,
    };
    let mut response = axum::Json(body).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

/// What the options document says about the embedded catalog.
pub fn catalog_summary() -> CatalogSummary {
    let catalog = vis_catalog::Catalog::embedded();
    let stats = catalog.stats();
    CatalogSummary {
        makes: stats.makes,
        models: stats.models,
        years: YearRange {
            from: stats.years.from,
            to: stats.years.to,
        },
        sources: catalog
            .sources()
            .iter()
            .map(|s| CatalogSource {
                id: s.id.clone(),
                name: s.name.clone(),
                region: s.region.clone(),
                license: s.license.clone(),
            })
            .collect(),
    }
}
