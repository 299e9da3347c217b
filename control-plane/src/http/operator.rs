//! The operator page of the dashboard (docs/render-nodes.md, "Operator
//! view"): the render farm at a glance for people with the operator role
//! (migration 15, `control-plane accounts operator --email E`). The same
//! numbers as `control-plane status`, from the same computation
//! (`renders::farm`), rendered on the server so the page reads without
//! JavaScript; `/static/operator.js` refreshes them every 5 s from
//! `GET /dashboard/operator.json`.
//!
//! The gate is the dashboard's session: signed out, the page redirects to
//! sign-in like every dashboard page (the JSON answers 401). Signed in
//! without the role, both answer **403**, not 404: the route is no secret
//! (it is in the docs), and a 403 tells an operator who forgot to grant
//! themselves the role what is wrong.
//!
//! These routes are for the deployment's operators, like the render nodes'
//! API: they are not in the route table the public OpenAPI document is
//! checked against.

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use minijinja::{Value, context};
use serde::Serialize;

use super::web;
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::renders::farm::{self, FarmStatus};
use crate::store::{Account, Millis};

pub const PAGE: &str = "/dashboard/operator";
pub const JSON: &str = "/dashboard/operator.json";

/// The operator page and its JSON.
pub fn router() -> Router<crate::http::state::HttpState> {
    Router::new().route(PAGE, get(page)).route(JSON, get(json))
}

/// Whether `account` has the operator role (false when the database cannot
/// say: the link is hidden, the page itself answers the error).
pub async fn is_operator(state: &HttpState, account: &Account) -> bool {
    match state.store.is_operator(&account.id).await {
        Ok(yes) => yes,
        Err(e) => {
            tracing::warn!(error = %e, "operator role lookup failed");
            false
        }
    }
}

/// The farm's numbers with this deployment's settings (the operator page
/// and `/metrics`).
pub(crate) async fn farm_status(state: &crate::app::AppState) -> Result<FarmStatus, ApiError> {
    let config = state.deliverer.dispatcher.config();
    Ok(farm::gather(
        state.store.as_ref(),
        config.default_daily_budget,
        config.node_lease,
    )
    .await?)
}

/// `GET /dashboard/operator`.
pub async fn page(State(state): State<HttpState>, headers: HeaderMap) -> Response {
    let account = match web::require_signed_in(&state, &headers, PAGE).await {
        Ok(a) => a,
        Err(redirect) => return redirect,
    };
    match state.store.is_operator(&account.id).await {
        Ok(true) => {}
        Ok(false) => {
            let ctx = context! {
                title => "Operators only",
                message => "This page shows the render farm to the people who run this service. \
                            Your account does not have the operator role.",
            };
            return web::render(
                &state,
                &headers,
                StatusCode::FORBIDDEN,
                "notice.html",
                "account",
                Some(&account),
                ctx,
            );
        }
        Err(e) => return ApiError::from(e).into_response(),
    }
    let farm = match farm_status(&state).await {
        Ok(f) => f,
        Err(e) => return e.into_response(),
    };
    web::render(
        &state,
        &headers,
        StatusCode::OK,
        "operator.html",
        "account",
        Some(&account),
        view(&farm),
    )
}

/// `GET /dashboard/operator.json`: the [`FarmStatus`], for the page's
/// script (and for anyone's, with an operator's session).
pub async fn json(State(state): State<HttpState>, headers: HeaderMap) -> Response {
    let Some(account) = web::signed_in(&state, &headers).await else {
        return crate::http::error::problem_response(
            StatusCode::UNAUTHORIZED,
            "Sign in at /signin with an operator's account.",
            Default::default(),
        );
    };
    match state.store.is_operator(&account.id).await {
        Ok(true) => {}
        Ok(false) => {
            return ApiError::Forbidden("This account does not have the operator role.".into())
                .into_response();
        }
        Err(e) => return ApiError::from(e).into_response(),
    }
    match farm_status(&state).await {
        Ok(farm) => {
            let mut r = axum::Json(farm).into_response();
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            r
        }
        Err(e) => e.into_response(),
    }
}

#[derive(Serialize)]
struct NodeRow {
    name: String,
    state: String,
    up: bool,
    slots: i64,
    in_flight: i64,
    seen: String,
    renders_today: i64,
    failures_total: i64,
    adapter: String,
}

#[derive(Serialize)]
struct TimesRow {
    node: String,
    renders: usize,
    failures: i64,
    p50: String,
    p95: String,
    /// The p50 and p95 bars' lengths, in percent of the slowest p95.
    p50_pct: f64,
    p95_pct: f64,
}

/// `part` of `whole` in percent, 0 to 100, one decimal.
fn pct(part: i64, whole: i64) -> f64 {
    if whole <= 0 {
        return 0.0;
    }
    ((part as f64 / whole as f64 * 100.0).clamp(0.0, 100.0) * 10.0).round() / 10.0
}

/// `1.2 s`, `850 ms`: a render time. (operator.js writes the same.)
pub fn duration(ms: Option<i64>) -> String {
    // Tenths rounded half up in integers, as the script rounds them.
    let tenths = |ms: i64, unit: i64| {
        let t = (ms + unit / 20) / (unit / 10);
        format!("{}.{}", t / 10, t % 10)
    };
    match ms {
        None => "–".into(),
        Some(ms) if ms < 1000 => format!("{} ms", ms.max(0)),
        Some(ms) if ms < 59_950 => format!("{} s", tenths(ms, 1000)),
        Some(ms) => format!("{} min", tenths(ms, 60_000)),
    }
}

/// `12 s ago`, `3 min ago`, `never`: a last heartbeat. (operator.js too.)
pub fn ago(now: Millis, then: Option<Millis>) -> String {
    let Some(then) = then else {
        return "never".into();
    };
    let secs = ((now - then) / 1000).max(0);
    match secs {
        s if s < 60 => format!("{s} s ago"),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        s => format!("{} d ago", s / 86_400),
    }
}

/// What the template shows: the status itself and the strings and
/// lengths derived from it.
fn view(farm: &FarmStatus) -> Value {
    let slowest = farm
        .render_times_today
        .iter()
        .filter_map(|t| t.p95_ms)
        .max()
        .unwrap_or(0);
    let times: Vec<TimesRow> = farm
        .render_times_today
        .iter()
        .map(|t| TimesRow {
            node: t.node.clone(),
            renders: t.renders,
            failures: t.failures,
            p50: duration(t.p50_ms),
            p95: duration(t.p95_ms),
            p50_pct: pct(t.p50_ms.unwrap_or(0), slowest),
            p95_pct: pct(t.p95_ms.unwrap_or(0), slowest),
        })
        .collect();
    let nodes: Vec<NodeRow> = farm
        .nodes
        .iter()
        .map(|n| NodeRow {
            name: n.node.name.clone(),
            state: n.node.state.clone(),
            up: n.up,
            slots: n.node.slots,
            in_flight: n.in_flight,
            seen: ago(farm.generated_at, n.node.last_heartbeat),
            renders_today: n.node.renders_today,
            failures_total: n.node.failures_total,
            adapter: n.node.adapter.clone().unwrap_or_else(|| "–".into()),
        })
        .collect();
    let c = &farm.capacity;
    context! {
        farm => Value::from_serialize(farm),
        as_of => super::dashboard::when(farm.generated_at),
        budget_pct => pct(farm.budget.used, farm.budget.daily),
        slots_pct => pct(c.node_slots_busy, c.node_slots),
        renders_today => farm.render_times_today.iter().map(|t| t.renders).sum::<usize>(),
        failures_today => farm.failures_today_by_cause.values().sum::<i64>(),
        times, nodes,
        causes => farm.failures_today_by_cause.iter().map(|(cause, n)| context! { cause, n }).collect::<Vec<_>>(),
        operator => true,
        dash_tab => "operator",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_heartbeats_read_well() {
        assert_eq!(duration(None), "–");
        assert_eq!(duration(Some(850)), "850 ms");
        assert_eq!(duration(Some(1250)), "1.3 s");
        assert_eq!(duration(Some(59_949)), "59.9 s");
        assert_eq!(duration(Some(59_950)), "1.0 min");
        assert_eq!(duration(Some(90_000)), "1.5 min");
        assert_eq!(ago(100_000, None), "never");
        assert_eq!(ago(100_000, Some(88_000)), "12 s ago");
        assert_eq!(ago(1_000_000, Some(820_000)), "3 min ago");
        assert_eq!(ago(0, Some(5_000)), "0 s ago", "a clock ahead of ours");
    }

    #[test]
    fn bars_are_percent_of_the_whole() {
        assert_eq!(pct(17, 250), 6.8);
        assert_eq!(pct(5, 0), 0.0);
        assert_eq!(pct(300, 250), 100.0);
    }
}
