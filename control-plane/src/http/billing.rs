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
use crate::payments::{CheckoutRequest, OffSessionRequest, PaymentError, WebhookEvent};
use crate::store::{Account, DisputeNotice, PaidCheckout, PaymentOutcome, Purchase, RefundNotice};

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
    /// credited, duplicate, already_paid, unknown_purchase, amount_mismatch,
    /// reversed (a refund), frozen (a dispute opened), dispute_won,
    /// dispute_lost or ignored.
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
    let outcome = apply_verified(
        &state.deliverer.ledger,
        &*state.store,
        state.payments.name(),
        &event,
    )
    .await?;
    if let PaymentOutcome::Frozen { account_id } = &outcome {
        // Drop what this replica cached now; others follow the feed.
        state.keys.forget_where(|p| p.key.account_id == *account_id);
    }
    state.metrics.payment_event(outcome.as_str());
    log_outcome(&outcome, state.payments.name());
    Ok(outcome)
}

/// Applies a verified provider event: every credit it moves goes through
/// the ledger, once per event id. Shared by the webhook and the operator's
/// sandbox commands (`control-plane payments …`).
pub async fn apply_verified(
    ledger: &crate::billing::Ledger,
    store: &dyn crate::store::Store,
    provider: &str,
    event: &WebhookEvent,
) -> Result<PaymentOutcome, crate::store::StoreError> {
    let outcome = match event {
        WebhookEvent::CheckoutPaid {
            event_id,
            session_id,
            purchase_id,
            customer,
            amount_total,
            currency,
            payment_intent,
        } => {
            ledger
                .credit_purchase(&PaidCheckout {
                    event_id,
                    provider,
                    session_id,
                    purchase_id: purchase_id.as_deref(),
                    customer: customer.as_deref(),
                    amount_cents: in_usd(*amount_total, currency),
                    payment_intent: payment_intent.as_deref(),
                })
                .await?
        }
        // An auto-reload's off-session payment: its purchase's session is
        // the PaymentIntent, so it lands exactly like a checkout.
        WebhookEvent::IntentPaid {
            event_id,
            payment_intent,
            purchase_id,
            customer,
            amount,
            currency,
        } => {
            ledger
                .credit_purchase(&PaidCheckout {
                    event_id,
                    provider,
                    session_id: payment_intent,
                    purchase_id: Some(purchase_id),
                    customer: customer.as_deref(),
                    amount_cents: in_usd(*amount, currency),
                    payment_intent: Some(payment_intent),
                })
                .await?
        }
        WebhookEvent::Refunded {
            event_id,
            payment_intent,
            purchase_id,
            amount,
            amount_refunded,
        } => {
            ledger
                .reverse_refund(&RefundNotice {
                    event_id,
                    provider,
                    payment_intent: payment_intent.as_deref(),
                    purchase_id: purchase_id.as_deref(),
                    amount_cents: *amount,
                    refunded_cents: *amount_refunded,
                })
                .await?
        }
        WebhookEvent::DisputeOpened {
            event_id,
            dispute_id,
            payment_intent,
        } => {
            ledger
                .dispute(&DisputeNotice {
                    event_id,
                    provider,
                    dispute_id,
                    payment_intent: payment_intent.as_deref(),
                    won: None,
                })
                .await?
        }
        WebhookEvent::DisputeClosed {
            event_id,
            dispute_id,
            payment_intent,
            won,
        } => {
            ledger
                .dispute(&DisputeNotice {
                    event_id,
                    provider,
                    dispute_id,
                    payment_intent: payment_intent.as_deref(),
                    won: Some(*won),
                })
                .await?
        }
        WebhookEvent::Ignored { event_id, kind } => {
            store.record_other_event(event_id, provider, kind).await?
        }
    };
    Ok(outcome)
}

fn log_outcome(outcome: &PaymentOutcome, provider: &str) {
    match outcome {
        PaymentOutcome::Credited { purchase, balance } => tracing::info!(
            purchase.id = %purchase.id, account.id = %purchase.account_id,
            credits = purchase.credits, balance, "credit pack paid"
        ),
        PaymentOutcome::Reversed {
            account_id,
            taken,
            owed,
        } => tracing::warn!(
            account.id = %account_id, taken, owed, "payment refunded: credits taken back"
        ),
        PaymentOutcome::Frozen { account_id } => {
            tracing::warn!(account.id = %account_id, "payment disputed: keys frozen")
        }
        PaymentOutcome::DisputeClosed {
            account_id,
            won,
            taken,
            owed,
            still_frozen,
        } => tracing::warn!(
            account.id = %account_id, won, taken, owed, still_frozen, "payment dispute closed"
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
}

/// Packs are priced in dollars; any other currency is not the pack's price.
fn in_usd(amount: i64, currency: &str) -> i64 {
    if currency.eq_ignore_ascii_case("usd") {
        amount
    } else {
        -1
    }
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

/// How often each replica looks for accounts whose auto-reload is due.
pub const AUTO_RELOAD_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Buys the auto-reload pack of every account that is due (docs/billing.md,
/// "Auto-reload"): the claim in the database decides, once per threshold
/// crossing across replicas; the provider is asked for an off-session
/// payment with the saved payment method; the credits land through the
/// webhook code like any purchase (the sandbox signs its event and applies
/// it here; Stripe sends `payment_intent.succeeded`). Returns how many
/// payments were started.
pub async fn run_auto_reloads(state: &HttpState) -> Result<usize, ApiError> {
    let provider = state.payments.name();
    let mut started = 0;
    for account_id in state.store.auto_reloads_due(100).await? {
        let Some(purchase) = state
            .deliverer
            .ledger
            .claim_auto_reload(&account_id, provider)
            .await?
        else {
            continue;
        };
        let Some(customer) = state.store.payment_customer(&account_id).await? else {
            continue;
        };
        let request = OffSessionRequest {
            purchase_id: &purchase.id,
            account_id: &account_id,
            customer: &customer,
            credits: purchase.credits,
            amount_cents: purchase.amount_cents,
        };
        let intent = match state.payments.charge_saved_method(&request).await {
            Ok(intent) => intent,
            Err(e) => {
                // Declined or unreachable: no credits, and no second try
                // until the balance is back at the threshold (a purchase).
                tracing::warn!(account.id = %account_id, purchase.id = %purchase.id, error = %e, "auto-reload payment failed");
                continue;
            }
        };
        // Already paid when its event came first (the purchase was found by
        // its id then): nothing to attach.
        match state.store.attach_checkout(&purchase.id, &intent).await {
            Ok(()) | Err(crate::store::StoreError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
        started += 1;
        tracing::info!(account.id = %account_id, purchase.id = %purchase.id, credits = purchase.credits, "auto-reload started");
        if let Some(sandbox) = sandbox(state) {
            let (body, signature) =
                sandbox.intent_succeeded_event(&request, crate::ratelimit::now_secs() as i64);
            apply_event(state, Some(&signature), &body).await?;
        }
    }
    Ok(started)
}

/// Runs [`run_auto_reloads`] every [`AUTO_RELOAD_EVERY`] for the life of
/// the runtime.
pub fn spawn_auto_reloads(state: HttpState) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(AUTO_RELOAD_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if let Err(e) = run_auto_reloads(&state).await {
                tracing::warn!(error = %e, "the auto-reload sweep failed; retrying");
            }
        }
    });
}
