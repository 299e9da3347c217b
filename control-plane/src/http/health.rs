//! GET /healthz (the process is alive) and GET /readyz (its dependencies are).

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::app::AppState;
use crate::http::error::ApiError;

/// Liveness and readiness.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// Readiness only: each dependency's state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<Checks>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Checks {
    /// `ok` or `unavailable`.
    pub database: &'static str,
    /// `ok` or `unavailable`.
    pub object_store: &'static str,
}

pub async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok",
        checks: None,
    })
}

pub async fn readyz(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    let database = state.store.ping().await;
    let objects = state.objects.check().await;
    if let Err(e) = &database {
        tracing::warn!(error = %e, "readiness: database check failed");
    }
    if let Err(e) = &objects {
        tracing::warn!(error = %e, "readiness: object store check failed");
    }
    let verdict = |ok: bool| if ok { "ok" } else { "unavailable" };
    let checks = Checks {
        database: verdict(database.is_ok()),
        object_store: verdict(objects.is_ok()),
    };
    if database.is_ok() && objects.is_ok() {
        Ok(Json(Health {
            status: "ok",
            checks: Some(checks),
        }))
    } else {
        Err(ApiError::Unavailable {
            message: "Not ready".into(),
            retry_after_secs: Some(5),
        }
        .with_field("checks", serde_json::to_value(&checks).unwrap_or_default()))
    }
}
