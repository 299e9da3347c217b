//! GET /api/v1/vehicles (spec §4; public, free, cacheable for a day).
//!
//! The parameters select one of six `data` variants (spec §2 VehiclesResponse):
//!
//! | Parameters | `data` |
//! |---|---|
//! | none | `{years}` |
//! | year | `{year, makes}` |
//! | year + makeId | `{year, make_id, models}` |
//! | q (+ year, limit) | `{query, year?, results}` |
//! | make (+ year) | `{make, year?, models}` |
//! | make + model | `{make, model, years}` |
//!
//! Any other combination is a 400 naming the parameter that does not fit.

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use vis_catalog::{Catalog, LookupError, Make, Model, SearchHit};

use super::context;

use crate::app::AppState;
use crate::http::error::ApiError;

/// Parameters this endpoint knows; anything else is a 400 naming it.
const KNOWN: [&str; 6] = ["year", "makeId", "q", "limit", "make", "model"];

/// Longest `q` (spec §8 Catalog search).
pub const Q_MAX_CHARS: usize = 200;
/// Search result count bounds (spec §8).
pub const LIMIT_MAX: usize = 25;
pub const LIMIT_DEFAULT: usize = 10;
/// Largest make id: ids are exact in JSON (2^53 - 1).
pub const MAKE_ID_MAX: u64 = (1 << 53) - 1;
/// Longest make or model slug accepted.
pub const SLUG_MAX_CHARS: usize = 100;

pub const CACHE_CONTROL: &str = "public, max-age=86400";

/// The variant a query selects, with its validated parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VehiclesQuery {
    Years,
    Makes {
        year: u16,
    },
    ModelsForMakeId {
        year: u16,
        make_id: u64,
    },
    Search {
        q: String,
        year: Option<u16>,
        limit: usize,
    },
    ModelsForMake {
        make: String,
        year: Option<u16>,
    },
    YearsForModel {
        make: String,
        model: String,
    },
}

/// Parses and validates the query string; errors name the parameter.
pub fn parse_query(raw: Option<&str>) -> Result<VehiclesQuery, ApiError> {
    let query = super::extract::QueryParams::parse(raw, &KNOWN)?;
    let get = |name: &str| query.get(name);

    let year = get("year")
        .map(|v| super::images::year_param(super::extract::plain_int(v)))
        .transpose()?;
    let make_id = get("makeId")
        .map(|v| {
            super::extract::plain_int(v)
                .and_then(|n| u64::try_from(n).ok())
                .filter(|n| *n <= MAKE_ID_MAX)
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "makeId",
                        "must be an integer from 0 to 9007199254740991 (a make's id)",
                    )
                })
        })
        .transpose()?;
    let limit = get("limit")
        .map(|v| {
            super::extract::plain_int(v)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=LIMIT_MAX).contains(n))
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "limit",
                        format!("must be an integer from 1 to {LIMIT_MAX}"),
                    )
                })
        })
        .transpose()?;
    let q = get("q")
        .map(|v| {
            if v.trim().is_empty() {
                Err(ApiError::bad_request("q", "must not be empty"))
            } else if v.chars().count() > Q_MAX_CHARS {
                Err(ApiError::bad_request(
                    "q",
                    format!("must be at most {Q_MAX_CHARS} characters"),
                ))
            } else {
                Ok(v.trim().to_owned())
            }
        })
        .transpose()?;
    let slug = |name: &'static str| -> Result<Option<String>, ApiError> {
        get(name)
            .map(|v| {
                let v = v.trim();
                if v.is_empty() {
                    Err(ApiError::bad_request(name, "must not be empty"))
                } else if v.chars().count() > SLUG_MAX_CHARS {
                    Err(ApiError::bad_request(
                        name,
                        format!("must be at most {SLUG_MAX_CHARS} characters"),
                    ))
                } else {
                    Ok(v.to_owned())
                }
            })
            .transpose()
    };
    let make = slug("make")?;
    let model = slug("model")?;

    let not_with = |param: &str, other: &str| {
        ApiError::bad_request(
            param,
            format!("cannot be combined with {other}; see the parameter table in the API docs"),
        )
    };
    if model.is_some() && make.is_none() {
        return Err(ApiError::bad_request(
            "model",
            "is only used together with make (make=<slug>&model=<slug>)",
        ));
    }
    if limit.is_some() && q.is_none() {
        return Err(ApiError::bad_request(
            "limit",
            "is only used together with q (search)",
        ));
    }
    if let Some(q) = q {
        if make.is_some() {
            return Err(not_with("make", "q"));
        }
        if make_id.is_some() {
            return Err(not_with("makeId", "q"));
        }
        return Ok(VehiclesQuery::Search {
            q,
            year,
            limit: limit.unwrap_or(LIMIT_DEFAULT),
        });
    }
    if let Some(make) = make {
        if make_id.is_some() {
            return Err(not_with("makeId", "make"));
        }
        return Ok(match model {
            Some(model) => {
                if year.is_some() {
                    return Err(ApiError::bad_request(
                        "year",
                        "cannot be combined with make and model: that query lists the model's years",
                    ));
                }
                VehiclesQuery::YearsForModel { make, model }
            }
            None => VehiclesQuery::ModelsForMake { make, year },
        });
    }
    Ok(match (year, make_id) {
        (None, None) => VehiclesQuery::Years,
        (Some(year), None) => VehiclesQuery::Makes { year },
        (Some(year), Some(make_id)) => VehiclesQuery::ModelsForMakeId { year, make_id },
        (None, Some(_)) => {
            return Err(ApiError::bad_request(
                "makeId",
                "requires year (year=<year>&makeId=<id>)",
            ));
        }
    })
}

/// GET /api/v1/vehicles (spec §2 VehiclesResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VehiclesResponse {
    pub data: VehiclesData,
    pub request_id: String,
}

/// One of six shapes, selected by the parameters (see the module docs).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum VehiclesData {
    /// No parameters: the model years the catalog covers.
    #[schema(title = "Years")]
    Years { years: Vec<u16> },
    /// `year`: the makes with a model in that year.
    #[schema(title = "MakesForYear")]
    Makes {
        year: u16,
        #[schema(value_type = Vec<Make>)]
        makes: Vec<&'static Make>,
    },
    /// `year` + `makeId`: that make's models in that year.
    #[schema(title = "ModelsForMakeId")]
    ModelsForMakeId {
        year: u16,
        make_id: u64,
        #[schema(value_type = Vec<Model>)]
        models: Vec<&'static Model>,
    },
    /// `q` (+ `year`, `limit`): search results, best first.
    #[schema(title = "SearchResults")]
    Search {
        query: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        year: Option<u16>,
        results: Vec<SearchHit>,
    },
    /// `make` (+ `year`): the make's models.
    #[schema(title = "ModelsForMake")]
    ModelsForMake {
        #[schema(value_type = Make)]
        make: &'static Make,
        #[serde(skip_serializing_if = "Option::is_none")]
        year: Option<u16>,
        #[schema(value_type = Vec<Model>)]
        models: Vec<&'static Model>,
    },
    /// `make` + `model`: the model's years.
    #[schema(title = "YearsForModel")]
    YearsForModel {
        #[schema(value_type = Make)]
        make: &'static Make,
        #[schema(value_type = Model)]
        model: &'static Model,
        years: Vec<u16>,
    },
}

/// The `data` member for a validated query.
pub fn data(catalog: &'static Catalog, query: &VehiclesQuery) -> Result<VehiclesData, ApiError> {
    Ok(match query {
        VehiclesQuery::Years => VehiclesData::Years {
            years: catalog.years().to_vec(),
        },
        VehiclesQuery::Makes { year } => VehiclesData::Makes {
            year: *year,
            makes: catalog.makes_for_year(*year),
        },
        VehiclesQuery::ModelsForMakeId { year, make_id } => {
            let models = catalog
                .models_for_make_year(*make_id, *year)
                .ok_or_else(|| {
                    ApiError::NotFound(format!(
                        "No make has id {make_id}. List the makes of a year with /api/v1/vehicles?year={year}."
                    ))
                    .with_field("param", "makeId")
                })?;
            VehiclesData::ModelsForMakeId {
                year: *year,
                make_id: *make_id,
                models,
            }
        }
        VehiclesQuery::Search { q, year, limit } => VehiclesData::Search {
            query: q.clone(),
            year: *year,
            results: catalog.search(q, *year, *limit),
        },
        VehiclesQuery::ModelsForMake { make, year } => {
            let mk = catalog
                .make_by_slug_or_name(make)
                .ok_or_else(|| lookup_error(LookupError::UnknownMake(make.clone())))?;
            VehiclesData::ModelsForMake {
                make: mk,
                year: *year,
                models: catalog.models_of_make(mk, *year),
            }
        }
        VehiclesQuery::YearsForModel { make, model } => {
            let (mk, md) = catalog.model_years(make, model).map_err(lookup_error)?;
            VehiclesData::YearsForModel {
                make: mk,
                model: md,
                years: md.years.clone(),
            }
        }
    })
}

/// 404 naming what was not found (`param`), with the candidates of an
/// ambiguous model prefix.
fn lookup_error(e: LookupError) -> ApiError {
    let param = match &e {
        LookupError::UnknownMake(_) => "make",
        LookupError::UnknownModel { .. } | LookupError::AmbiguousModel { .. } => "model",
        LookupError::YearNotAvailable { .. } => "year",
    };
    let mut err = ApiError::NotFound(format!(
        "{e}. Search with /api/v1/vehicles?q=<text> to find slugs."
    ))
    .with_field("param", param);
    if let LookupError::AmbiguousModel { candidates, .. } = &e {
        err = err.with_field("candidates", candidates.clone());
    }
    err
}

/// Strong validator over the `data` bytes: equal data, equal tag.
pub fn etag(data: &VehiclesData) -> String {
    let bytes = serde_json::to_vec(data).unwrap_or_default();
    let digest = Sha256::digest(&bytes);
    format!("\"v-{}\"", hex::encode(&digest[..16]))
}

pub async fn get(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = parse_query(query.as_deref())?;
    let data = data(state.catalog, &query)?;
    let tag = etag(&data);
    let cache_headers = [
        (
            header::ETAG,
            HeaderValue::from_str(&tag).map_err(ApiError::internal)?,
        ),
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_CONTROL),
        ),
    ];
    let inm = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    if inm.is_some_and(|v| super::extract::if_none_match(v, &tag)) {
        return Ok((StatusCode::NOT_MODIFIED, cache_headers).into_response());
    }
    let body = VehiclesResponse {
        data,
        request_id: context::current().request_id,
    };
    Ok((cache_headers, axum::Json(body)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param_of(q: &str) -> String {
        match parse_query(Some(q)).unwrap_err() {
            ApiError::BadRequest { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parameters_select_the_variant() {
        use VehiclesQuery::*;
        let p = |q: &str| parse_query(Some(q)).unwrap();
        assert_eq!(parse_query(None).unwrap(), Years);
        assert_eq!(p(""), Years);
        assert_eq!(p("year=2019"), Makes { year: 2019 });
        assert_eq!(
            p("year=2019&makeId=448"),
            ModelsForMakeId {
                year: 2019,
                make_id: 448
            }
        );
        assert_eq!(
            p("q=camry"),
            Search {
                q: "camry".into(),
                year: None,
                limit: 10
            }
        );
        assert_eq!(
            p("q=+camry+&year=2019&limit=25"),
            Search {
                q: "camry".into(),
                year: Some(2019),
                limit: 25
            }
        );
        assert_eq!(
            p("make=toyota"),
            ModelsForMake {
                make: "toyota".into(),
                year: None
            }
        );
        assert_eq!(
            p("make=toyota&year=2019"),
            ModelsForMake {
                make: "toyota".into(),
                year: Some(2019)
            }
        );
        assert_eq!(
            p("make=toyota&model=camry"),
            YearsForModel {
                make: "toyota".into(),
                model: "camry".into()
            }
        );
    }

    #[test]
    fn every_bad_parameter_is_named() {
        for (q, param) in [
            ("year=1989", "year"),
            ("year=2028", "year"),
            ("year=abc", "year"),
            ("year=", "year"),
            ("year=2019&makeId=-1", "makeId"),
            ("year=2019&makeId=x", "makeId"),
            ("makeId=448", "makeId"),
            ("q=", "q"),
            ("q=%20%20", "q"),
            ("q=camry&limit=0", "limit"),
            ("q=camry&limit=26", "limit"),
            ("q=camry&limit=ten", "limit"),
            ("limit=5", "limit"),
            ("model=camry", "model"),
            ("q=camry&make=toyota", "make"),
            ("q=camry&makeId=1", "makeId"),
            ("make=toyota&makeId=1", "makeId"),
            ("make=toyota&model=camry&year=2019", "year"),
            ("make=", "make"),
            ("make=toyota&model=", "model"),
            ("colour=red", "colour"),
            ("year=2019&year=2020", "year"),
        ] {
            assert_eq!(param_of(q), param, "{q}");
        }
        assert_eq!(param_of(&format!("q={}", "a".repeat(201))), "q");
        assert!(parse_query(Some(&format!("q={}", "a".repeat(200)))).is_ok());
    }

    #[test]
    fn the_etag_follows_the_data() {
        let years = |y: u16| VehiclesData::Years { years: vec![y] };
        let a = etag(&years(2019));
        assert_eq!(a, etag(&years(2019)));
        assert_ne!(a, etag(&years(2020)));
        assert!(a.starts_with('"') && a.ends_with('"'));
    }
}
