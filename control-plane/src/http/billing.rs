//! Buying credit packs (spec §4, docs/billing.md):
//!
//! - `POST /api/v1/billing/checkout` and `/portal` (scope billing:write):
//!   a hosted payment page for one pack, or the customer portal;
//! - `POST /api/v1/billing/webhook`: the provider's signed events, the one
//!   way credits land (once per purchase, by event id and purchase state);
//! - the sandbox provider's pages, `/billing/sandbox/checkout/{session}`
//!   (a test payment a person submits, which completes through the same
//!   webhook code) and `/billing/sandbox/portal/{token}`.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use minijinja::context;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Auth, BillingWrite, Principal};
use super::extract::ApiJson;
use super::{context as request_context, rate, web};
use crate::billing::{Pack, pack};
use crate::http::error::ApiError;
use crate::http::state::HttpState;
use crate::limits;
use crate::payments::sandbox::{SandboxPayment, SandboxProvider};
use crate::payments::{CheckoutRequest, PaymentError, WebhookEvent};
use crate::store::{Account, PaidCheckout, PaymentOutcome, Purchase};

/// The body of POST /api/v1/billing/checkout (additional properties rejected).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckoutBody {
    #[serde(default, deserialize_with = "super::extract::de_int")]
    pub credits: Option<i64>,
}

impl super::extract::Described for CheckoutBody {
    const SHAPE: &'static str =
        "a JSON object with credits (required): one of 5000, 10000, 25000, 100000";
    const RULES: &'static [(&'static str, &'static str)] =
        &[("credits", "one of 5000, 10000, 25000, 100000")];
}

/// 201 of POST /api/v1/billing/checkout (spec CheckoutResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CheckoutResponse {
    pub data: CheckoutData,
    pub request_id: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CheckoutData {
    /// The hosted payment page; a person opens it and pays.
    #[schema(format = "uri")]
    pub url: String,
    pub credits: i64,
    pub amount_cents: i64,
}

/// 201 of POST /api/v1/billing/portal (spec PortalResponse).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PortalResponse {
    pub data: PortalData,
    pub request_id: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PortalData {
    #[schema(format = "uri")]
    pub url: String,
}

/// A provider failure as the API states it: nothing was charged, and the
/// cause (never a secret) goes to the log.
fn provider_error(e: PaymentError) -> ApiError {
    tracing::error!(error = %e, "payment provider call failed");
    ApiError::internal(e)
}

/// Opens a purchase of `pack` and asks the provider for its payment page;
/// nothing is charged or credited here.
pub async fn start_checkout(
    state: &HttpState,
    account: &Account,
    pack: Pack,
) -> Result<(Purchase, String), ApiError> {
    let purchase = state
        .store
        .open_purchase(&account.id, state.payments.name(), pack.credits, pack.cents)
        .await?;
    let customer = state.store.payment_customer(&account.id).await?;
    let success_url = format!("{}/dashboard/credits?purchase=done", state.base_url);
    let cancel_url = format!("{}/dashboard/credits?purchase=cancelled", state.base_url);
    let session = state
        .payments
        .create_checkout(&CheckoutRequest {
            purchase_id: &purchase.id,
            account_id: &account.id,
            email: &account.email,
            customer: customer.as_deref(),
            credits: pack.credits,
            amount_cents: pack.cents,
            success_url: &success_url,
            cancel_url: &cancel_url,
        })
        .await
        .map_err(provider_error)?;
    state
        .store
        .attach_checkout(&purchase.id, &session.session_id)
        .await?;
    Ok((purchase, session.url))
}

/// The customer portal of an account that has bought before.
pub async fn open_portal(state: &HttpState, account: &Account) -> Result<String, ApiError> {
    let Some(customer) = state.store.payment_customer(&account.id).await? else {
        return Err(ApiError::bad_request(
            "account",
            "has made no purchase yet; the portal opens after the first one (POST /api/v1/billing/checkout)",
        ));
    };
    let return_url = format!("{}/dashboard/credits", state.base_url);
    state
        .payments
        .create_portal(&customer, &return_url)
        .await
        .map_err(provider_error)
}

async fn account_of(state: &HttpState, principal: &Principal) -> Result<Account, ApiError> {
    state
        .store
        .account_by_id(&principal.key.account_id)
        .await?
        .ok_or_else(|| ApiError::Unauthorized("The key's account no longer exists.".into()))
}

/// `POST /api/v1/billing/checkout`.
pub async fn checkout(
    State(state): State<HttpState>,
    Auth(principal, ..): Auth<BillingWrite>,
    body: Result<ApiJson<CheckoutBody, { limits::BODY_CHECKOUT }>, ApiError>,
) -> Response {
    let (decision, admitted) = rate::check_key(&state, &principal).await;
    let result = match (admitted, body) {
        (Err(refused), _) | (Ok(()), Err(refused)) => Err(refused),
        (Ok(()), Ok(ApiJson(body))) => create_checkout(&state, &principal, body).await,
    };
    rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    )
}

async fn create_checkout(
    state: &HttpState,
    principal: &Principal,
    body: CheckoutBody,
) -> Result<Response, ApiError> {
    let pack = match body.credits {
        None => {
            return Err(ApiError::bad_request(
                "credits",
                "is required: one of 5000, 10000, 25000, 100000",
            ));
        }
        Some(c) => pack(c).ok_or_else(|| {
            ApiError::bad_request("credits", "must be one of 5000, 10000, 25000, 100000")
        })?,
    };
    let account = account_of(state, principal).await?;
    let (_, url) = start_checkout(state, &account, pack).await?;
    let body = CheckoutResponse {
        data: CheckoutData {
            url,
            credits: pack.credits,
            amount_cents: pack.cents,
        },
        request_id: request_context::current().request_id,
    };
    Ok((StatusCode::CREATED, axum::Json(body)).into_response())
}

/// `POST /api/v1/billing/portal`.
pub async fn portal(
    State(state): State<HttpState>,
    Auth(principal, ..): Auth<BillingWrite>,
) -> Response {
    let (decision, admitted) = rate::check_key(&state, &principal).await;
    let result = match admitted {
        Err(refused) => Err(refused),
        Ok(()) => {
            async {
                let account = account_of(&state, &principal).await?;
                let url = open_portal(&state, &account).await?;
                let body = PortalResponse {
                    data: PortalData { url },
                    request_id: request_context::current().request_id,
                };
                Ok::<_, ApiError>((StatusCode::CREATED, axum::Json(body)).into_response())
            }
            .await
        }
    };
    rate::with_headers(
        result.unwrap_or_else(IntoResponse::into_response),
        &decision,
    )
}

/// What the webhook answers the provider (2xx: handled, never resend).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookReceipt {
    pub received: bool,
    /// credited, duplicate, already_paid, unknown_purchase, amount_mismatch or ignored.
    pub outcome: String,
}

/// Verifies and applies one provider event: the one code path by which
/// credits are bought, for Stripe and the sandbox alike.
pub async fn apply_event(
    state: &HttpState,
    signature: Option<&str>,
    body: &[u8],
) -> Result<PaymentOutcome, ApiError> {
    let now = crate::ratelimit::now_secs() as i64;
    let event = state.payments.verify_webhook(signature, body, now).map_err(|e| match e {
        PaymentError::BadSignature(why) => ApiError::bad_request(
            "Stripe-Signature",
            format!("does not verify ({why}); events must be signed with this endpoint's secret within 5 minutes"),
        ),
        PaymentError::BadEvent(why) => ApiError::bad_request("body", format!("is not a payment event: {why}")),
        other => ApiError::internal(other),
    })?;
    let provider = state.payments.name();
    let outcome = match &event {
        WebhookEvent::CheckoutPaid {
            event_id,
            session_id,
            purchase_id,
            customer,
            amount_total,
            currency,
        } => {
            // Packs are priced in dollars; any other currency is not the pack's price.
            let amount_cents = if currency.eq_ignore_ascii_case("usd") {
                *amount_total
            } else {
                -1
            };
            state
                .deliverer
                .ledger
                .credit_purchase(&PaidCheckout {
                    event_id,
                    provider,
                    session_id,
                    purchase_id: purchase_id.as_deref(),
                    customer: customer.as_deref(),
                    amount_cents,
                })
                .await?
        }
        WebhookEvent::Ignored { event_id, kind } => {
            state
                .store
                .record_other_event(event_id, provider, kind)
                .await?
        }
    };
    state.metrics.payment_event(outcome.as_str());
    match &outcome {
        PaymentOutcome::Credited { purchase, balance } => tracing::info!(
            purchase.id = %purchase.id, account.id = %purchase.account_id,
            credits = purchase.credits, balance, "credit pack paid"
        ),
        PaymentOutcome::Unknown | PaymentOutcome::AmountMismatch => {
            tracing::warn!(
                outcome = outcome.as_str(),
                provider,
                "payment event not credited"
            )
        }
        _ => {}
    }
    Ok(outcome)
}

/// `POST /api/v1/billing/webhook`: the provider's events, signed.
pub async fn webhook(State(state): State<HttpState>, headers: HeaderMap, body: Bytes) -> Response {
    if body.len() > limits::BODY_WEBHOOK {
        return ApiError::PayloadTooLarge {
            limit_bytes: limits::BODY_WEBHOOK,
        }
        .into_response();
    }
    let signature = headers
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok());
    match apply_event(&state, signature, &body).await {
        Ok(outcome) => axum::Json(WebhookReceipt {
            received: true,
            outcome: outcome.as_str().to_owned(),
        })
        .into_response(),
        Err(e) => e.into_response(),
    }
}

fn sandbox(state: &HttpState) -> Option<&SandboxProvider> {
    state.sandbox.as_deref()
}

fn no_such_payment(state: &HttpState, headers: &HeaderMap) -> Response {
    web::notice(
        state,
        headers,
        StatusCode::NOT_FOUND,
        "No such payment",
        "This payment page does not exist. Start a purchase again from the credits page.",
    )
}

/// The open sandbox purchase of `session`, with its account.
async fn sandbox_purchase(
    state: &HttpState,
    session: &str,
) -> Result<Option<(Purchase, Account)>, ApiError> {
    if sandbox(state).is_none() || !SandboxProvider::is_session_id(session) {
        return Ok(None);
    }
    let Some(purchase) = state.store.purchase_by_session(session).await? else {
        return Ok(None);
    };
    let account = state.store.account_by_id(&purchase.account_id).await?;
    Ok(account.map(|a| (purchase, a)))
}

/// `GET /billing/sandbox/checkout/{session}`: the sandbox's payment page.
pub async fn sandbox_checkout_page(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Path(session): Path<String>,
) -> Response {
    let (purchase, account) = match sandbox_purchase(&state, &session).await {
        Ok(Some(x)) => x,
        Ok(None) => return no_such_payment(&state, &headers),
        Err(e) => return e.into_response(),
    };
    let ctx = context! {
        session => session,
        credits => purchase.credits,
        usd => format!("{:.2}", purchase.amount_cents as f64 / 100.0),
        email => account.email,
        paid => purchase.status == "paid",
    };
    web::render(
        &state,
        &headers,
        StatusCode::OK,
        "sandbox_checkout.html",
        "account",
        None,
        ctx,
    )
}

/// `POST /billing/sandbox/checkout/{session}`: "pays" — the sandbox signs a
/// `checkout.session.completed` event and hands it to the webhook code —
/// then returns the browser to the credits page.
pub async fn sandbox_pay(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Path(session): Path<String>,
    body: Bytes,
) -> Response {
    if let Err(why) = web::read_form(&state, &headers, &body) {
        return web::refusal(&state, &headers, why);
    }
    let (purchase, account) = match sandbox_purchase(&state, &session).await {
        Ok(Some(x)) => x,
        Ok(None) => return no_such_payment(&state, &headers),
        Err(e) => return e.into_response(),
    };
    let Some(sandbox) = sandbox(&state) else {
        return no_such_payment(&state, &headers);
    };
    let customer = match state.store.payment_customer(&account.id).await {
        Ok(c) => c.unwrap_or_else(|| SandboxProvider::customer_for(&account.id)),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let (event, signature) = sandbox.completed_event(
        &SandboxPayment {
            session_id: &session,
            purchase_id: &purchase.id,
            account_id: &account.id,
            customer: &customer,
            amount_cents: purchase.amount_cents,
            credits: purchase.credits,
        },
        crate::ratelimit::now_secs() as i64,
    );
    match apply_event(&state, Some(&signature), &event).await {
        Ok(_) => web::see_other("/dashboard/credits?purchase=done"),
        Err(e) => e.into_response(),
    }
}

/// `GET /billing/sandbox/portal/{token}`: the sandbox's customer portal,
/// a signed link valid for an hour: the account's purchases.
pub async fn sandbox_portal(
    State(state): State<HttpState>,
    headers: HeaderMap,
    Path(token): Path<String>,
) -> Response {
    let grant = sandbox(&state)
        .and_then(|s| s.open_portal_token(&token, crate::ratelimit::now_secs() as i64));
    let Some(grant) = grant else {
        return web::notice(
            &state,
            &headers,
            StatusCode::NOT_FOUND,
            "This portal link no longer works",
            "Portal links work for an hour. Open the portal again from the credits page.",
        );
    };
    let account = match state.store.account_of_customer(&grant.customer).await {
        Ok(Some(a)) => a,
        Ok(None) => return no_such_payment(&state, &headers),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let purchases = match state.store.purchases_of(&account.id, 100).await {
        Ok(p) => p,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let rows: Vec<_> = purchases
        .iter()
        .filter(|p| p.status == "paid")
        .map(|p| {
            context! {
                credits => p.credits,
                usd => format!("{:.2}", p.amount_cents as f64 / 100.0),
                paid => super::dashboard::when(p.paid_at.unwrap_or(p.created_at)),
                reference => p.id,
            }
        })
        .collect();
    let ctx = context! {
        email => account.email,
        customer => grant.customer,
        purchases => rows,
        return_url => grant.return_url,
    };
    web::render(
        &state,
        &headers,
        StatusCode::OK,
        "sandbox_portal.html",
        "account",
        None,
        ctx,
    )
}
