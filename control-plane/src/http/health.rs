//! GET /healthz (the process is alive) and GET /readyz (its dependencies are).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::app::AppState;
use crate::error::ApiError;

pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

pub async fn readyz(State(state): State<AppState>) -> Result<(StatusCode, Json<Value>), ApiError> {
    let database = state.store.ping().await;
    let objects = state.objects.check().await;
    if let Err(e) = &database {
        tracing::warn!(error = %e, "readiness: database check failed");
    }
    if let Err(e) = &objects {
        tracing::warn!(error = %e, "readiness: object store check failed");
    }
    let verdict = |ok: bool| if ok { "ok" } else { "unavailable" };
    if database.is_ok() && objects.is_ok() {
        Ok((
            StatusCode::OK,
            Json(json!({ "status": "ok", "checks": { "database": "ok", "object_store": "ok" } })),
        ))
    } else {
        Err(ApiError::Unavailable {
            message: "Not ready".into(),
            retry_after_secs: Some(5),
        }
        .with_field(
            "checks",
            json!({ "database": verdict(database.is_ok()), "object_store": verdict(objects.is_ok()) }),
        ))
    }
}
