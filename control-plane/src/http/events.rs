//! POST /api/v1/events (spec §6): the telemetry sink. Public (CORS), never
//! billed, never tied to an account; 120 batches per minute per IP; body at
//! most 32 KiB; 1 to 20 events. Answers 202 at once; the events are written
//! after the response, in batches (`crate::events`).

use std::collections::BTreeMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::extract::{Described, parse_json, read_body};
use super::{context, rate};
use crate::app::AppState;
use crate::http::error::ApiError;
use crate::limits;
use crate::store::{NewEvent, now_millis};

/// Batches per minute per IP (spec §8).
pub const BATCHES_PER_MINUTE: u64 = 120;
/// Events per batch (spec §6).
pub const MAX_EVENTS: usize = 20;
/// Event names: snake_case, a letter first, at most 64 characters.
pub const NAME_PATTERN: &str = "^[a-z][a-z0-9_]{0,63}$";
/// `source` values (spec §6).
pub const SOURCES: [&str; 6] = ["web", "cli", "mcp", "api", "system", "sdk"];
/// Longest identifier (`anonymous_id`, `session_id`).
pub const ID_MAX_CHARS: usize = 128;
/// Longest `url` or `referrer`.
pub const URL_MAX_CHARS: usize = 2048;
/// Most `utm` members, and the longest value.
pub const UTM_MAX_KEYS: usize = 10;
pub const UTM_VALUE_MAX_CHARS: usize = 256;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsBody {
    pub events: Vec<EventItem>,
}

/// One event as a client sends it (spec §6).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventItem {
    pub event: Option<String>,
    pub source: Option<String>,
    pub anonymous_id: Option<String>,
    pub session_id: Option<String>,
    pub properties: Option<Map<String, Value>>,
    pub url: Option<String>,
    pub referrer: Option<String>,
    pub utm: Option<BTreeMap<String, String>>,
}

impl Described for EventsBody {
    const SHAPE: &'static str = "a JSON object {\"events\": [...]} with 1 to 20 events";
    const RULES: &'static [(&'static str, &'static str)] = &[
        ("events", "an array of 1 to 20 event objects"),
        (
            "event",
            "an event name: snake_case, a letter first, at most 64 characters (page_view, cli_install, cli_login, mcp_session, docs_view, …)",
        ),
        ("source", "one of web, cli, mcp, api, system, sdk"),
        ("anonymous_id", "a string of at most 128 characters"),
        ("session_id", "a string of at most 128 characters"),
        ("properties", "a JSON object"),
        ("url", "a string of at most 2048 characters"),
        ("referrer", "a string of at most 2048 characters"),
        (
            "utm",
            "an object of at most 10 string values of at most 256 characters",
        ),
    ];
}

/// The 202 of POST /api/v1/events.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventsAccepted {
    /// Events accepted; they are written after this answer.
    pub accepted: usize,
    pub request_id: String,
}

/// Checks one batch; errors name the field by its path (`events[3].event`).
pub fn validate(body: EventsBody, received_at: i64) -> Result<Vec<NewEvent>, ApiError> {
    let n = body.events.len();
    if n == 0 || n > MAX_EVENTS {
        return Err(ApiError::bad_request(
            "events",
            format!("must hold 1 to {MAX_EVENTS} events, got {n}"),
        ));
    }
    body.events
        .into_iter()
        .enumerate()
        .map(|(i, item)| validate_item(item, i, received_at).map_err(|e| e.with_field("index", i)))
        .collect()
}

fn validate_item(item: EventItem, i: usize, received_at: i64) -> Result<NewEvent, ApiError> {
    let field = |name: &str| format!("events[{i}].{name}");
    let bounded = |name: &str, value: Option<String>, max: usize| match value {
        Some(v) if v.chars().count() > max => Err(ApiError::bad_request(
            field(name),
            format!("must be at most {max} characters"),
        )),
        other => Ok(other),
    };
    let name = item
        .event
        .ok_or_else(|| ApiError::bad_request(field("event"), "is required: an event name"))?;
    if !valid_name(&name) {
        return Err(ApiError::bad_request(
            field("event"),
            "must be snake_case: a lower-case letter, then lower-case letters, digits or _, at most 64 characters",
        ));
    }
    if let Some(source) = &item.source
        && !SOURCES.contains(&source.as_str())
    {
        return Err(ApiError::bad_request(
            field("source"),
            format!("must be one of {}", SOURCES.join(", ")),
        ));
    }
    if let Some(utm) = &item.utm {
        if utm.len() > UTM_MAX_KEYS {
            return Err(ApiError::bad_request(
                field("utm"),
                format!("must have at most {UTM_MAX_KEYS} members"),
            ));
        }
        if let Some((key, _)) = utm
            .iter()
            .find(|(_, v)| v.chars().count() > UTM_VALUE_MAX_CHARS)
        {
            return Err(ApiError::bad_request(
                format!("{}.{key}", field("utm")),
                format!("must be at most {UTM_VALUE_MAX_CHARS} characters"),
            ));
        }
    }
    let json = |v: Option<String>| v;
    Ok(NewEvent {
        received_at,
        name,
        source: item.source,
        anonymous_id: bounded("anonymous_id", item.anonymous_id, ID_MAX_CHARS)?,
        session_id: bounded("session_id", item.session_id, ID_MAX_CHARS)?,
        url: bounded("url", item.url, URL_MAX_CHARS)?,
        referrer: bounded("referrer", item.referrer, URL_MAX_CHARS)?,
        properties: json(item.properties.map(|p| Value::Object(p).to_string())),
        utm: json(
            item.utm
                .map(|u| serde_json::to_string(&u).unwrap_or_default()),
        ),
    })
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub async fn post(State(state): State<AppState>, req: Request) -> Response {
    let ip = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip().to_string());
    let (decision, admitted) = rate::check_ip(
        &state,
        "events",
        ip.as_deref().unwrap_or("unknown"),
        BATCHES_PER_MINUTE,
    )
    .await;
    let result = match admitted {
        Ok(()) => accept(&state, req).await,
        Err(refused) => Err(refused),
    };
    rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    )
}

async fn accept(state: &AppState, req: Request) -> Result<Response, ApiError> {
    let bytes = read_body::<{ limits::BODY_EVENTS }>(req, true).await?;
    let body: EventsBody = parse_json(&bytes)?;
    let events = validate(body, now_millis())?;
    let accepted = events.len();
    state
        .events
        .offer(events)
        .map_err(|_| ApiError::Unavailable {
            message: "The event queue is full; nothing of this batch was kept. Retry shortly."
                .into(),
            retry_after_secs: Some(1),
        })?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(EventsAccepted {
            accepted,
            request_id: context::current().request_id,
        }),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param_of(json: &str) -> String {
        let body: EventsBody = parse_json(json.as_bytes()).unwrap();
        match validate(body, 0).unwrap_err() {
            ApiError::WithFields { inner, .. } => match *inner {
                ApiError::BadRequest { param, .. } => param,
                other => panic!("{other:?}"),
            },
            ApiError::BadRequest { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_rule_names_its_field() {
        assert_eq!(param_of(r#"{"events":[]}"#), "events");
        let many = format!(
            r#"{{"events":[{}]}}"#,
            vec![r#"{"event":"a"}"#; 21].join(",")
        );
        assert_eq!(param_of(&many), "events");
        assert_eq!(
            param_of(r#"{"events":[{"source":"web"}]}"#),
            "events[0].event"
        );
        assert_eq!(
            param_of(r#"{"events":[{"event":"a"},{"event":"Page View"}]}"#),
            "events[1].event"
        );
        assert_eq!(
            param_of(r#"{"events":[{"event":"a","source":"tv"}]}"#),
            "events[0].source"
        );
        let long = format!(
            r#"{{"events":[{{"event":"a","session_id":"{}"}}]}}"#,
            "s".repeat(129)
        );
        assert_eq!(param_of(&long), "events[0].session_id");
        let utm = format!(
            r#"{{"events":[{{"event":"a","utm":{{"utm_source":"{}"}}}}]}}"#,
            "u".repeat(257)
        );
        assert_eq!(param_of(&utm), "events[0].utm.utm_source");
    }

    #[test]
    fn a_valid_batch_becomes_rows() {
        let body: EventsBody = parse_json(
            br#"{"events":[{"event":"page_view","source":"web","url":"https://x/","properties":{"path":"/"},"utm":{"utm_source":"news"}}]}"#,
        )
        .unwrap();
        let rows = validate(body, 42).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].name, "page_view");
        assert_eq!(rows[0].properties.as_deref(), Some(r#"{"path":"/"}"#));
        assert_eq!(rows[0].utm.as_deref(), Some(r#"{"utm_source":"news"}"#));
        assert_eq!(rows[0].received_at, 42);
    }
}
