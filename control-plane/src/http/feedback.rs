//! POST /api/v1/feedback (spec §4; scope account:read; free; body at most
//! 8 KiB; rate limited per key): a report on one render, named by the
//! request id of the request that delivered it or by its vehicle. Enough
//! negative reports from distinct accounts flag the render, and a flagged
//! render is re-rendered under a new revision (docs/feedback.md).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use vis_protocol::{RenderJob, VariantKey};

use super::auth::{AccountRead, Auth, Principal};
use super::extract::ApiJson;
use super::images::{FieldNames, ImageItem, lookup_error, validate as validate_image};
use super::{context, rate};
use crate::app::AppState;
use crate::http::error::ApiError;
use crate::limits;
use crate::store::NewFeedback;

/// Longest `request_id` and `reason` (spec §8 Feedback).
pub const REQUEST_ID_MAX: usize = 128;
pub const REASON_MAX: usize = 500;

/// The request body (spec FeedbackRequest; additional properties rejected).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedbackBody {
    pub request_id: Option<String>,
    pub make: Option<String>,
    pub model: Option<String>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub year: Option<i64>,
    pub view: Option<String>,
    pub color: Option<String>,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub rating: Option<i64>,
    pub verdict: Option<String>,
    pub reason: Option<String>,
}

impl super::extract::Described for FeedbackBody {
    const SHAPE: &'static str = "a JSON object naming the image (request_id, or make, model, year and optionally view, color) with rating (1 to 5) or verdict (good or bad), and optionally reason";
    const RULES: &'static [(&'static str, &'static str)] = &[
        (
            "request_id",
            "the X-Request-Id of the request that delivered the image, at most 128 characters",
        ),
        ("make", "a make's name or slug"),
        ("model", "a model's name or slug"),
        ("year", "an integer from 1990 to 2027"),
        (
            "view",
            "one of front, front-3-4, side, side-right, rear, rear-3-4",
        ),
        ("color", "one of the 15 preset colours"),
        ("rating", "an integer from 1 to 5"),
        ("verdict", "good or bad"),
        ("reason", "a string of at most 500 characters"),
    ];
}

/// 201 of POST /api/v1/feedback (spec FeedbackResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FeedbackResponse {
    pub data: FeedbackData,
    pub request_id: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FeedbackData {
    /// The render reported on: one id per variant and render revision.
    #[schema(format = "uuid")]
    pub asset_id: String,
    /// Always true.
    pub recorded: bool,
    /// True when this report pushed the render into review.
    pub flagged: bool,
}

/// A report, checked: what it says and which render it names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Report {
    rating: Option<i64>,
    verdict: Option<String>,
    reason: Option<String>,
    negative: bool,
}

fn report(body: &FeedbackBody) -> Result<Report, ApiError> {
    let rating = match body.rating {
        None => None,
        Some(r) if (1..=5).contains(&r) => Some(r),
        Some(_) => {
            return Err(ApiError::bad_request(
                "rating",
                "must be an integer from 1 to 5",
            ));
        }
    };
    let verdict = match body.verdict.as_deref().map(str::trim) {
        None => None,
        Some(v @ ("good" | "bad")) => Some(v.to_owned()),
        Some(_) => return Err(ApiError::bad_request("verdict", "must be good or bad")),
    };
    if rating.is_none() && verdict.is_none() {
        return Err(ApiError::bad_request(
            "rating",
            "send rating (1 to 5) or verdict (good or bad)",
        ));
    }
    let reason = body
        .reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty());
    if reason.is_some_and(|r| r.chars().count() > REASON_MAX) {
        return Err(ApiError::bad_request(
            "reason",
            "must be at most 500 characters",
        ));
    }
    // A verdict decides; a rating alone is negative at 1 or 2.
    let negative = match verdict.as_deref() {
        Some(v) => v == "bad",
        None => rating.is_some_and(|r| r <= 2),
    };
    Ok(Report {
        rating,
        verdict,
        reason: reason.map(str::to_owned),
        negative,
    })
}

/// One id per render: a UUID (version 8) from the variant and revision.
pub fn asset_id(variant: &str, revision: i64) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("vis asset v1\0{variant}\0{revision}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Uuid::new_v8(bytes).to_string()
}

pub async fn post(
    State(state): State<AppState>,
    Auth(principal, ..): Auth<AccountRead>,
    body: Result<ApiJson<FeedbackBody, { limits::BODY_FEEDBACK }>, ApiError>,
) -> Response {
    let (decision, admitted) = rate::check_key(&state, &principal).await;
    let result = match admitted {
        Ok(()) => match body {
            Ok(ApiJson(body)) => record(&state, &principal, body).await,
            Err(e) => Err(e),
        },
        Err(refused) => Err(refused),
    };
    rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    )
}

async fn record(
    state: &AppState,
    principal: &Principal,
    body: FeedbackBody,
) -> Result<Response, ApiError> {
    let report = report(&body)?;
    let names_vehicle = body.make.is_some() || body.model.is_some() || body.year.is_some();
    let (variant, revision, request_id) = match body.request_id.as_deref().map(str::trim) {
        Some(_) if names_vehicle => {
            return Err(ApiError::bad_request(
                "request_id",
                "name the image by request_id or by make, model and year, not both",
            ));
        }
        Some(rid) => {
            if rid.is_empty() || rid.chars().count() > REQUEST_ID_MAX {
                return Err(ApiError::bad_request(
                    "request_id",
                    "must be 1 to 128 characters: the X-Request-Id of the request that delivered the image",
                ));
            }
            // Only this account's deliveries: another's request id is unknown here.
            let delivered = state
                .store
                .deliveries_by_request_id(rid)
                .await?
                .into_iter()
                .rfind(|d| d.account_id == principal.key.account_id)
                .ok_or_else(|| {
                    ApiError::NotFound(format!(
                        "No image delivered to this account has request_id {rid:?}. Name the image by make, model and year instead."
                    ))
                    .with_field("param", "request_id")
                })?;
            (delivered.variant, delivered.revision, Some(rid.to_owned()))
        }
        None => {
            let item = ImageItem {
                make: body.make.clone(),
                model: body.model.clone(),
                year: body.year,
                view: body.view.clone(),
                color: body.color.clone(),
                ..ImageItem::default()
            };
            let params = validate_image(item, FieldNames::QUERY)?;
            let resolved = state
                .deliverer
                .resolve(state.catalog, &params)
                .map_err(lookup_error)?;
            (
                resolved.variant.to_string(),
                i64::from(resolved.revision),
                None,
            )
        }
    };
    let outcome = state
        .store
        .record_feedback(
            &NewFeedback {
                account_id: principal.key.account_id.clone(),
                key_id: Some(principal.key.id.clone()),
                variant: variant.clone(),
                revision,
                request_id,
                rating: report.rating,
                verdict: report.verdict,
                negative: report.negative,
                reason: report.reason,
            },
            state.feedback.flag_after,
        )
        .await?;
    if outcome.flagged {
        state.metrics.renders_flagged.inc();
        tracing::info!(variant = %variant, revision, "render flagged by feedback");
        if state.feedback.auto_rerender {
            rerender(state, &variant, revision).await?;
        }
    }
    let body = FeedbackResponse {
        data: FeedbackData {
            asset_id: asset_id(&variant, revision),
            recorded: true,
            flagged: outcome.flagged,
        },
        request_id: context::current().request_id,
    };
    Ok((StatusCode::CREATED, axum::Json(body)).into_response())
}

/// Re-renders a variant under its next revision: the bump is recorded and
/// announced (every replica serves the new revision within a second), and
/// the new render is queued now so the next delivery finds it.
pub async fn rerender(state: &AppState, variant: &str, revision: i64) -> Result<(), ApiError> {
    let bump = state.store.rerender_variant(variant, revision).await?;
    state
        .deliverer
        .revisions
        .set(variant, u32::try_from(bump).unwrap_or(0));
    let Ok(key) = variant.parse::<VariantKey>() else {
        return Ok(());
    };
    let Ok(vehicle) = state
        .catalog
        .lookup(key.make.as_str(), key.model.as_str(), key.year)
    else {
        return Ok(());
    };
    let revision = state.deliverer.revisions.of(&key);
    let job = RenderJob {
        variation: revision.saturating_sub(state.deliverer.revisions.base()),
        revision,
        variant: key,
        shape: vehicle.shape,
    };
    let dispatcher = std::sync::Arc::clone(&state.deliverer.dispatcher);
    tokio::spawn(async move {
        if let Err(e) = dispatcher.source(&job).await {
            tracing::warn!(error = %e, "the re-render of a flagged render did not start");
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(rating: Option<i64>, verdict: Option<&str>) -> FeedbackBody {
        FeedbackBody {
            rating,
            verdict: verdict.map(str::to_owned),
            ..FeedbackBody::default()
        }
    }

    #[test]
    fn a_report_needs_a_rating_or_a_verdict_and_knows_when_it_is_negative() {
        let param = |b: FeedbackBody| match report(&b).unwrap_err() {
            ApiError::BadRequest { param, .. } => param,
            other => panic!("{other:?}"),
        };
        assert_eq!(param(body(None, None)), "rating");
        assert_eq!(param(body(Some(0), None)), "rating");
        assert_eq!(param(body(Some(6), None)), "rating");
        assert_eq!(param(body(None, Some("meh"))), "verdict");
        assert!(report(&body(Some(2), None)).unwrap().negative);
        assert!(!report(&body(Some(3), None)).unwrap().negative);
        assert!(
            report(&body(Some(5), Some("bad"))).unwrap().negative,
            "the verdict decides"
        );
        assert!(!report(&body(Some(1), Some("good"))).unwrap().negative);
        let long = FeedbackBody {
            reason: Some("x".repeat(501)),
            ..body(Some(1), None)
        };
        assert_eq!(param(long), "reason");
    }

    #[test]
    fn asset_ids_are_uuids_per_render() {
        let a = asset_id("toyota/camry/2019/red/side", 1);
        assert_eq!(a, asset_id("toyota/camry/2019/red/side", 1));
        assert_ne!(a, asset_id("toyota/camry/2019/red/side", 2));
        assert!(uuid::Uuid::parse_str(&a).is_ok());
    }
}
