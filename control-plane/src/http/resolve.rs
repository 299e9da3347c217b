//! POST /api/v1/images/resolve (spec §4; scope account:read; free; body at
//! most 4 KiB; rate limited per key like the image endpoint).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use vis_catalog::{ResolveError, ResolveInput, resolve};

use super::auth::{AccountRead, Auth};
use super::extract::ApiJson;

use super::{context, rate};
use crate::app::AppState;
use crate::http::error::ApiError;
use crate::limits;

/// Longest `query` (spec §8 Resolve).
pub const QUERY_MAX_CHARS: usize = 200;
/// Longest `make` and `model` (spec §8 Resolve).
pub const NAME_MAX_CHARS: usize = 60;

/// The request body (spec ResolveRequest; additional properties rejected).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolveBody {
    pub query: String,
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub year: Option<i64>,
    #[serde(default)]
    pub make: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
}

impl super::extract::Described for ResolveBody {
    const SHAPE: &'static str =
        "a JSON object with query (required, 1 to 200 characters) and optionally year, make, model";
    const RULES: &'static [(&'static str, &'static str)] = &[
        (
            "query",
            "a string of 1 to 200 characters describing the vehicle",
        ),
        ("year", "an integer from 1990 to 2027"),
        ("make", "a string of at most 60 characters"),
        ("model", "a string of at most 60 characters"),
    ];
}

/// POST /api/v1/images/resolve (spec §2 ResolveResponse).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct ResolveResponse {
    pub data: ResolveData,
    pub request_id: String,
}

/// The resolution, and alt text for the image its parameters name.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[schema(as = ResolveResult)]
pub struct ResolveData {
    #[serde(flatten)]
    pub resolution: vis_catalog::Resolution,
    /// Alt text for the `<img>` tag of `image_path`: colour, year, make,
    /// model, body style and view.
    #[schema(example = "Red 2019 Toyota Camry saloon, front three-quarter view")]
    pub alt: String,
}

/// Validated input: blank `make`/`model` count as absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validated {
    pub query: String,
    pub year: Option<u16>,
    pub make: Option<String>,
    pub model: Option<String>,
}

/// Checks the lengths and ranges of spec §8; errors name the field.
pub fn validate(body: ResolveBody) -> Result<Validated, ApiError> {
    if body.query.trim().is_empty() {
        return Err(ApiError::bad_request("query", "must not be empty"));
    }
    if body.query.chars().count() > QUERY_MAX_CHARS {
        return Err(ApiError::bad_request(
            "query",
            format!("must be at most {QUERY_MAX_CHARS} characters"),
        ));
    }
    let year = body
        .year
        .map(|y| super::images::year_param(Some(y)))
        .transpose()?;
    let name = |field: &'static str, value: Option<String>| -> Result<Option<String>, ApiError> {
        match value {
            Some(v) if v.chars().count() > NAME_MAX_CHARS => Err(ApiError::bad_request(
                field,
                format!("must be at most {NAME_MAX_CHARS} characters"),
            )),
            Some(v) if !v.trim().is_empty() => Ok(Some(v.trim().to_owned())),
            _ => Ok(None),
        }
    };
    Ok(Validated {
        query: body.query,
        year,
        make: name("make", body.make)?,
        model: name("model", body.model)?,
    })
}

fn not_found(e: ResolveError) -> ApiError {
    let ResolveError::NotFound { makes } = &e;
    let err = ApiError::NotFound(format!(
        "{e}. Rephrase with make, model and year, or browse /api/v1/vehicles."
    ));
    if makes.is_empty() {
        err
    } else {
        err.with_field("makes", serde_json::to_value(makes).unwrap_or_default())
    }
}

pub async fn post(
    State(state): State<AppState>,
    Auth(principal, ..): Auth<AccountRead>,
    body: Result<ApiJson<ResolveBody, { limits::BODY_RESOLVE }>, ApiError>,
) -> Response {
    let (decision, admitted) = rate::check_key(&state, &principal).await;
    if let Err(refused) = admitted {
        return rate::with_headers(refused.into_response(), &decision);
    }
    let result = body.and_then(|ApiJson(body)| {
        let v = validate(body)?;
        let resolution = resolve(
            state.catalog,
            ResolveInput {
                query: &v.query,
                year: v.year,
                make: v.make.as_deref(),
                model: v.model.as_deref(),
            },
        )
        .map_err(not_found)?;
        let p = &resolution.params;
        let alt = crate::delivery::alt::alt_of(
            state.catalog,
            &p.make,
            &p.model,
            p.year,
            p.color.id(),
            p.view,
        );
        Ok(axum::Json(ResolveResponse {
            data: ResolveData { resolution, alt },
            request_id: context::current().request_id,
        })
        .into_response())
    });
    rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(query: &str) -> ResolveBody {
        ResolveBody {
            query: query.into(),
            year: None,
            make: None,
            model: None,
        }
    }

    fn param_of(b: ResolveBody) -> String {
        match validate(b).unwrap_err() {
            ApiError::BadRequest { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lengths_and_ranges_are_checked() {
        assert_eq!(param_of(body("")), "query");
        assert_eq!(param_of(body("   ")), "query");
        assert_eq!(param_of(body(&"a".repeat(201))), "query");
        assert!(validate(body(&"é".repeat(200))).is_ok());
        for (year, ok) in [(1989, false), (1990, true), (2027, true), (2028, false)] {
            let b = ResolveBody {
                year: Some(i64::from(year)),
                ..body("camry")
            };
            assert_eq!(validate(b).is_ok(), ok, "{year}");
        }
        let b = ResolveBody {
            make: Some("x".repeat(61)),
            ..body("camry")
        };
        assert_eq!(param_of(b), "make");
        let b = ResolveBody {
            model: Some("x".repeat(61)),
            ..body("camry")
        };
        assert_eq!(param_of(b), "model");
        let b = ResolveBody {
            make: Some("  ".into()),
            model: Some(" Camry ".into()),
            ..body("camry")
        };
        let v = validate(b).unwrap();
        assert_eq!((v.make, v.model.as_deref()), (None, Some("Camry")));
    }
}
