//! The payment-provider port: how a person pays for a credit pack on a hosted
//! payment page, and how the provider tells us it was paid (a signed webhook).
//!
//! Two adapters: [`SandboxProvider`] (the default: a test payment page served
//! by this service, completing through the same signed-webhook path) and
//! [`StripeProvider`] (Stripe Checkout and the Stripe customer portal). Both
//! verify webhooks with [`signature`] (Stripe's scheme) and reduce events with
//! one parser, so the ledger sees the same [`WebhookEvent`] from either.
//!
//! No HTTP routes, SQL or store here: the caller owns purchases and credits.
//! One-off payments only (spec: packs, no subscription).

pub mod sandbox;
pub mod signature;
pub mod stripe;

pub use sandbox::{PortalGrant, SandboxProvider};

pub use stripe::StripeProvider;

use serde_json::Value;

/// What the service asks a provider for when a person buys a pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckoutRequest<'a> {
    /// Our id; sent as `client_reference_id` and `metadata[purchase_id]`.
    pub purchase_id: &'a str,
    /// Sent as `metadata[account_id]`.
    pub account_id: &'a str,
    /// Sent as `customer_email` when there is no provider customer yet.
    pub email: &'a str,
    /// The provider's customer id from an earlier purchase.
    pub customer: Option<&'a str>,
    pub credits: i64,
    pub amount_cents: i64,
    pub success_url: &'a str,
    pub cancel_url: &'a str,
}

/// An off-session payment for an auto-reload: a pack bought with the
/// customer's saved payment method, no person present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffSessionRequest<'a> {
    /// Our purchase id: `metadata[purchase_id]`, and the Idempotency-Key.
    pub purchase_id: &'a str,
    pub account_id: &'a str,
    /// The provider's customer, whose saved payment method pays.
    pub customer: &'a str,
    pub credits: i64,
    pub amount_cents: i64,
}

/// A hosted payment page the person is sent to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSession {
    pub session_id: String,
    pub url: String,
}

/// A verified webhook event, in the provider's words reduced to what the
/// ledger needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookEvent {
    /// `checkout.session.completed` (and
    /// `checkout.session.async_payment_succeeded`) with `payment_status`
    /// `"paid"`. Credit once per `session_id` (events are delivered at least
    /// once, and both kinds can arrive for one session).
    CheckoutPaid {
        event_id: String,
        session_id: String,
        purchase_id: Option<String>,
        customer: Option<String>,
        amount_total: i64,
        currency: String,
        /// The session's PaymentIntent (`pi_…`): refunds and disputes name it.
        payment_intent: Option<String>,
    },
    /// `payment_intent.succeeded` for an off-session payment this service
    /// started (an auto-reload: `metadata[purchase_id]` names its purchase).
    /// Credited like a checkout, once per purchase.
    IntentPaid {
        event_id: String,
        payment_intent: String,
        purchase_id: String,
        customer: Option<String>,
        amount: i64,
        currency: String,
    },
    /// `charge.refunded`: the charge of `payment_intent` has now been
    /// refunded `amount_refunded` of `amount` in total (Stripe sends the
    /// cumulative figure; partial refunds send one event each).
    Refunded {
        event_id: String,
        payment_intent: Option<String>,
        purchase_id: Option<String>,
        amount: i64,
        amount_refunded: i64,
    },
    /// `charge.dispute.created`: the customer's bank disputes the payment.
    DisputeOpened {
        event_id: String,
        dispute_id: String,
        payment_intent: Option<String>,
    },
    /// `charge.dispute.closed`: `won` (the money stays with us) or anything
    /// else Stripe reports as final (`lost`).
    DisputeClosed {
        event_id: String,
        dispute_id: String,
        payment_intent: Option<String>,
        won: bool,
    },
    /// Anything else, acknowledged and ignored (includes completed-but-unpaid
    /// sessions, whose money arrives later as `async_payment_succeeded`).
    Ignored { event_id: String, kind: String },
}

/// Why a provider call or a webhook failed. No variant ever carries a secret.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum PaymentError {
    /// The provider could not be reached or answered 5xx/429 after retries:
    /// callers answer 502/503-ish.
    #[error("payment provider unavailable: {0}")]
    Unavailable(String),
    /// The provider refused the request (4xx): its message, never a secret.
    #[error("payment provider refused the request: {0}")]
    Rejected(String),
    /// A webhook whose signature is missing, malformed, forged or outside the
    /// tolerance.
    #[error("bad webhook signature: {0}")]
    BadSignature(&'static str),
    /// A webhook body that is not a provider event.
    #[error("bad webhook event: {0}")]
    BadEvent(String),
}

#[async_trait::async_trait]
pub trait PaymentProvider: Send + Sync + std::fmt::Debug {
    /// `"sandbox"` or `"stripe"`.
    fn name(&self) -> &'static str;
    async fn create_checkout(
        &self,
        req: &CheckoutRequest<'_>,
    ) -> Result<CheckoutSession, PaymentError>;
    /// Starts an off-session payment (auto-reload) and answers the
    /// provider's payment id (`pi_…`). The credits land later, through the
    /// webhook (`payment_intent.succeeded`), like every other purchase.
    async fn charge_saved_method(
        &self,
        req: &OffSessionRequest<'_>,
    ) -> Result<String, PaymentError>;
    /// A hosted customer-portal URL for `customer`, returning to `return_url`.
    async fn create_portal(&self, customer: &str, return_url: &str)
    -> Result<String, PaymentError>;
    /// Verifies the `Stripe-Signature` header over the raw body at unix time
    /// `now` and parses the event.
    fn verify_webhook(
        &self,
        signature: Option<&str>,
        body: &[u8],
        now: i64,
    ) -> Result<WebhookEvent, PaymentError>;
}

/// Installs rustls's ring provider for the process, once (reqwest is
/// built without a default provider; an error only means one is already
/// installed). Every reqwest client of the workspace, tests' included,
/// needs this before it is built: Cargo unifies reqwest's features.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The currency every pack is priced in.
pub const CURRENCY: &str = "usd";

/// The line-item name on the payment page: `5,000 credits`.
pub fn pack_name(credits: i64) -> String {
    let digits = credits.unsigned_abs().to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if credits < 0 { "-" } else { "" };
    format!("{sign}{grouped} credits")
}

/// The webhook path both adapters share: signature first (nothing in an
/// unauthenticated body is looked at), then the event.
fn verify_event(
    secret: &[u8],
    header: Option<&str>,
    body: &[u8],
    now: i64,
    tolerance_secs: i64,
) -> Result<WebhookEvent, PaymentError> {
    signature::verify(secret, header, body, now, tolerance_secs)?;
    parse_event(body)
}

/// Event types that mean "a Checkout Session may now be paid".
const PAID_KINDS: [&str; 2] = [
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
];

/// Reduces a Stripe event (`{"id","type","data":{"object":{…}}}`) to a
/// [`WebhookEvent`]. Unknown kinds are `Ignored`, so new event types Stripe
/// starts sending never fail the endpoint (which would make Stripe retry them
/// for days).
fn parse_event(body: &[u8]) -> Result<WebhookEvent, PaymentError> {
    let event: Value = serde_json::from_slice(body)
        .map_err(|e| PaymentError::BadEvent(format!("not JSON: {e}")))?;
    let event_id = str_field(&event, "id")
        .ok_or_else(|| PaymentError::BadEvent("no event id".into()))?
        .to_owned();
    let kind = str_field(&event, "type")
        .ok_or_else(|| PaymentError::BadEvent("no event type".into()))?
        .to_owned();
    let known = PAID_KINDS.contains(&kind.as_str()) || AFTER_SALE_KINDS.contains(&kind.as_str());
    if !known {
        return Ok(WebhookEvent::Ignored { event_id, kind });
    }
    let session = event
        .get("data")
        .and_then(|d| d.get("object"))
        .filter(|o| o.is_object())
        .ok_or_else(|| PaymentError::BadEvent(format!("{kind} without data.object")))?;
    if AFTER_SALE_KINDS.contains(&kind.as_str()) {
        return parse_after_sale(event_id, kind, session);
    }
    // `unpaid` (a delayed method such as a bank debit: money not there yet)
    // and `no_payment_required` credit nothing.
    if str_field(session, "payment_status") != Some("paid") {
        return Ok(WebhookEvent::Ignored { event_id, kind });
    }
    let session_id = str_field(session, "id")
        .ok_or_else(|| PaymentError::BadEvent("checkout session without id".into()))?
        .to_owned();
    let amount_total = session
        .get("amount_total")
        .and_then(Value::as_i64)
        .ok_or_else(|| PaymentError::BadEvent("paid session without amount_total".into()))?;
    let currency = str_field(session, "currency")
        .ok_or_else(|| PaymentError::BadEvent("paid session without currency".into()))?
        .to_owned();
    let purchase_id = str_field(session, "client_reference_id")
        .or_else(|| {
            session
                .get("metadata")
                .and_then(|m| str_field(m, "purchase_id"))
        })
        .map(str::to_owned);
    // A string id, or an expanded Customer object when someone expands it.
    let customer = id_field(session, "customer");
    Ok(WebhookEvent::CheckoutPaid {
        event_id,
        session_id,
        purchase_id,
        customer,
        amount_total,
        currency,
        payment_intent: id_field(session, "payment_intent"),
    })
}

/// Event types after the sale: refunds, disputes, and the off-session
/// payments of auto-reload.
const AFTER_SALE_KINDS: [&str; 4] = [
    "charge.refunded",
    "charge.dispute.created",
    "charge.dispute.closed",
    "payment_intent.succeeded",
];

/// A field that is an id, or an expanded object with an `id`.
fn id_field(v: &Value, name: &str) -> Option<String> {
    match v.get(name) {
        Some(Value::String(id)) if !id.is_empty() => Some(id.clone()),
        Some(obj @ Value::Object(_)) => str_field(obj, "id").map(str::to_owned),
        _ => None,
    }
}

fn int_field(v: &Value, name: &str, what: &str) -> Result<i64, PaymentError> {
    v.get(name)
        .and_then(Value::as_i64)
        .ok_or_else(|| PaymentError::BadEvent(format!("{what} without {name}")))
}

/// `charge.refunded` (data.object: a Charge), `charge.dispute.*` (a
/// Dispute) and `payment_intent.succeeded` (a PaymentIntent).
fn parse_after_sale(
    event_id: String,
    kind: String,
    object: &Value,
) -> Result<WebhookEvent, PaymentError> {
    let purchase_id = object
        .get("metadata")
        .and_then(|m| str_field(m, "purchase_id"))
        .map(str::to_owned);
    match kind.as_str() {
        "charge.refunded" => Ok(WebhookEvent::Refunded {
            event_id,
            payment_intent: id_field(object, "payment_intent"),
            purchase_id,
            amount: int_field(object, "amount", "refunded charge")?,
            amount_refunded: int_field(object, "amount_refunded", "refunded charge")?,
        }),
        "charge.dispute.created" | "charge.dispute.closed" => {
            let dispute_id = str_field(object, "id")
                .ok_or_else(|| PaymentError::BadEvent("dispute without id".into()))?
                .to_owned();
            let payment_intent = id_field(object, "payment_intent");
            if kind == "charge.dispute.created" {
                return Ok(WebhookEvent::DisputeOpened {
                    event_id,
                    dispute_id,
                    payment_intent,
                });
            }
            let status = str_field(object, "status")
                .ok_or_else(|| PaymentError::BadEvent("closed dispute without status".into()))?;
            // Stripe's final statuses: `won`, `lost`, and `warning_closed`
            // (an inquiry that closed without becoming a chargeback: the
            // money stays with us, so it unfreezes like a win).
            Ok(WebhookEvent::DisputeClosed {
                event_id,
                dispute_id,
                payment_intent,
                won: status != "lost",
            })
        }
        _ => {
            // payment_intent.succeeded: only ours (an auto-reload names its
            // purchase); a Checkout's own intent succeeds too, and its
            // session event is what credits it.
            let Some(purchase_id) = purchase_id.filter(|_| {
                object.get("metadata").and_then(|m| str_field(m, "kind")) == Some("auto_reload")
            }) else {
                return Ok(WebhookEvent::Ignored { event_id, kind });
            };
            Ok(WebhookEvent::IntentPaid {
                event_id,
                payment_intent: str_field(object, "id")
                    .ok_or_else(|| PaymentError::BadEvent("payment intent without id".into()))?
                    .to_owned(),
                purchase_id,
                customer: id_field(object, "customer"),
                amount: int_field(object, "amount_received", "payment intent")?,
                currency: str_field(object, "currency")
                    .ok_or_else(|| {
                        PaymentError::BadEvent("payment intent without currency".into())
                    })?
                    .to_owned(),
            })
        }
    }
}

/// A non-empty string field.
fn str_field<'v>(v: &'v Value, name: &str) -> Option<&'v str> {
    v.get(name)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// Unix seconds now (for calls whose trait signature has no `now`).
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_names_group_thousands() {
        assert_eq!(pack_name(5_000), "5,000 credits");
        assert_eq!(pack_name(10_000), "10,000 credits");
        assert_eq!(pack_name(25_000), "25,000 credits");
        assert_eq!(pack_name(100_000), "100,000 credits");
        assert_eq!(pack_name(999), "999 credits");
        assert_eq!(pack_name(1_000_000), "1,000,000 credits");
    }

    #[test]
    fn purchase_id_falls_back_to_metadata() {
        let body = br#"{"id":"evt_1","type":"checkout.session.completed","data":{"object":{
            "id":"cs_1","client_reference_id":null,"customer":null,"amount_total":500,
            "currency":"usd","payment_status":"paid","metadata":{"purchase_id":"pur_9"}}}}"#;
        let WebhookEvent::CheckoutPaid {
            purchase_id,
            customer,
            ..
        } = parse_event(body).unwrap()
        else {
            panic!("not paid")
        };
        assert_eq!(purchase_id.as_deref(), Some("pur_9"));
        assert_eq!(customer, None);
    }

    #[test]
    fn async_success_is_paid_and_unknown_kinds_are_ignored() {
        let paid =
            br#"{"id":"evt_2","type":"checkout.session.async_payment_succeeded","data":{"object":{
            "id":"cs_2","client_reference_id":"pur_2","customer":{"id":"cus_2","object":"customer"},
            "amount_total":2500,"currency":"usd","payment_status":"paid"}}}"#;
        assert!(matches!(
            parse_event(paid).unwrap(),
            WebhookEvent::CheckoutPaid { customer: Some(c), amount_total: 2500, .. } if c == "cus_2"
        ));
        let other = br#"{"id":"evt_3","type":"customer.created","data":{"object":{}}}"#;
        assert_eq!(
            parse_event(other).unwrap(),
            WebhookEvent::Ignored {
                event_id: "evt_3".into(),
                kind: "customer.created".into()
            }
        );
    }

    #[test]
    fn events_without_id_or_type_or_amount_are_bad() {
        for body in [
            &br#"{"type":"checkout.session.completed"}"#[..],
            br#"{"id":"evt_4"}"#,
            br#"[1,2]"#,
            br#"{"id":"evt_5","type":"checkout.session.completed","data":{"object":{"id":"cs","payment_status":"paid","currency":"usd"}}}"#,
        ] {
            assert!(
                matches!(parse_event(body), Err(PaymentError::BadEvent(_))),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
