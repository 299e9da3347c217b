//! GET /api/v1/account (spec §2 Account; scope account:read; free).

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use super::auth::{AccountRead, Auth};
use super::context;
use crate::app::AppState;
use crate::billing::{self, CREDITS_PER_DOLLAR, CREDITS_PER_IMAGE, PACKS};
use crate::error::ApiError;
use crate::store::now_millis;

pub async fn get(
    State(state): State<AppState>,
    Auth(principal, ..): Auth<AccountRead>,
) -> Result<Json<Value>, ApiError> {
    // Charges this server holds in its journal go into the ledger first,
    // so the balance and usage below include every image delivered.
    state.deliverer.charges.settle_now().await?;
    let account = state
        .store
        .account_by_id(&principal.key.account_id)
        .await?
        .ok_or_else(|| ApiError::internal("key without account"))?;
    let usage = billing::usage_since(
        state.store.as_ref(),
        &account.id,
        now_millis() - billing::THIRTY_DAYS_MS,
    )
    .await?;
    let base = &state.base_url;
    Ok(Json(json!({
        "data": {
            "credits": account.balance,
            "credits_value_usd": billing::credits_value_usd(account.balance),
            "auto_reload": account.auto_reload,
            "has_payment_method": account.has_payment_method,
            "pricing": {
                "credits_per_image": CREDITS_PER_IMAGE,
                "credits_per_delivery": CREDITS_PER_IMAGE,
                "credits_per_dollar": CREDITS_PER_DOLLAR,
                "packs": PACKS,
            },
            "usage_30d": usage,
            "key": {
                "id": principal.key.id,
                "scopes": principal.scopes.names(),
                "rate_limit_per_minute": principal.key.rate_limit_per_minute,
            },
        },
        "links": {
            "pricing": format!("{base}/pricing"),
            "checkout": format!("{base}/api/v1/billing/checkout"),
            "options": format!("{base}/api/v1/images/options"),
            "docs": format!("{base}/docs"),
        },
        "request_id": context::current().request_id,
    })))
}
