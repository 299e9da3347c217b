//! GET /api/v1/account (spec §2 Account; scope account:read; free).

use axum::Json;
use axum::extract::State;
use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

use super::auth::{AccountRead, Auth};
use super::context;
use crate::app::AppState;
use crate::billing::{self, CREDITS_PER_DOLLAR, CREDITS_PER_IMAGE, PACKS};
use crate::http::error::ApiError;
use crate::store::now_millis;

/// GET /api/v1/account (spec §2 Account).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountResponse {
    pub data: AccountData,
    /// Where to buy credits and read more.
    pub links: BTreeMap<String, String>,
    pub request_id: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountData {
    pub credits: i64,
    pub credits_value_usd: f64,
    pub auto_reload: bool,
    pub has_payment_method: bool,
    pub pricing: AccountPricing,
    pub usage_30d: billing::Usage,
    pub key: KeyInfo,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountPricing {
    pub credits_per_image: i64,
    /// Deprecated: always equal to credits_per_image.
    #[schema(deprecated)]
    pub credits_per_delivery: i64,
    pub credits_per_dollar: i64,
    pub packs: Vec<billing::Pack>,
}

/// The key that made this request.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct KeyInfo {
    #[schema(format = "uuid")]
    pub id: String,
    #[schema(value_type = Vec<ScopeName>)]
    pub scopes: Vec<&'static str>,
    pub rate_limit_per_minute: i64,
}

/// A key scope (spec §5).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub enum ScopeName {
    #[serde(rename = "images:read")]
    ImagesRead,
    #[serde(rename = "account:read")]
    AccountRead,
    #[serde(rename = "billing:write")]
    BillingWrite,
}

pub async fn get(
    State(state): State<AppState>,
    Auth(principal, ..): Auth<AccountRead>,
) -> Result<Json<AccountResponse>, ApiError> {
    let account = state
        .store
        .account_by_id(&principal.key.account_id)
        .await?
        .ok_or_else(|| ApiError::internal("key without account"))?;
    let balance = state
        .deliverer
        .ledger
        .balance(&account.id)
        .await?
        .ok_or_else(|| ApiError::internal("key without account"))?;
    let usage = billing::usage_since(
        state.store.as_ref(),
        &account.id,
        now_millis() - billing::THIRTY_DAYS_MS,
    )
    .await?;
    let base = &state.base_url;
    Ok(Json(AccountResponse {
        data: AccountData {
            credits: balance,
            credits_value_usd: billing::credits_value_usd(balance),
            auto_reload: account.auto_reload,
            has_payment_method: account.has_payment_method,
            pricing: AccountPricing {
                credits_per_image: CREDITS_PER_IMAGE,
                credits_per_delivery: CREDITS_PER_IMAGE,
                credits_per_dollar: CREDITS_PER_DOLLAR,
                packs: PACKS.to_vec(),
            },
            usage_30d: usage,
            key: KeyInfo {
                id: principal.key.id.to_string(),
                scopes: principal.scopes.names(),
                rate_limit_per_minute: principal.key.rate_limit_per_minute,
            },
        },
        // Every link answers a GET (a test follows them); the billing
        // endpoints are POSTs, found through the options document's docs.
        links: [
            ("pricing", "/pricing"),
            ("options", "/api/v1/images/options"),
            ("docs", "/docs"),
        ]
        .into_iter()
        .map(|(name, path)| (name.to_owned(), format!("{base}{path}")))
        .collect(),
        request_id: context::current().request_id,
    }))
}
