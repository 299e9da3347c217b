//! The default provider: a hosted payment page served by this service itself,
//! marked as a test payment, that completes through the same path as Stripe.
//!
//! The page (wired by the HTTP layer at `/billing/sandbox/checkout/{id}`)
//! calls [`SandboxProvider::completed_event`] and POSTs the body and header
//! it returns to the service's own webhook endpoint, so the signature check,
//! event parsing and crediting are exercised exactly as in production. No
//! network, no state: sessions live in the caller's purchases, and portal
//! links are signed capabilities.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::json;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{
    CURRENCY, CheckoutRequest, CheckoutSession, OffSessionRequest, PaymentError, PaymentProvider,
    WebhookEvent, signature, stripe::STRIPE_VERSION, unix_now, verify_event,
};
use crate::config::Secret;

/// Prefix of sandbox Checkout Session ids (`cs_test_…` at Stripe).
pub const SESSION_PREFIX: &str = "cs_sandbox_";
/// Random alphanumerics after [`SESSION_PREFIX`]: ~190 bits, unguessable,
/// since the checkout URL alone lets its holder complete the payment.
const SESSION_RANDOM: usize = 32;
/// How long a portal link works.
pub const PORTAL_TOKEN_TTL_SECS: i64 = 3600;
/// Keeps portal MACs apart from anything else the same secret might sign.
const PORTAL_DOMAIN: &[u8] = b"vis-sandbox-portal-v1\n";
const MAC_BYTES: usize = 32;

/// What an opened portal token grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortalGrant {
    /// The provider customer id the portal is for.
    pub customer: String,
    /// Where the portal's "back" link goes (signed, so not an open redirect).
    pub return_url: String,
}

/// A paid sandbox checkout, as the sandbox page reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxPayment<'a> {
    pub session_id: &'a str,
    pub purchase_id: &'a str,
    pub account_id: &'a str,
    pub customer: &'a str,
    pub amount_cents: i64,
    pub credits: i64,
}

/// The sandbox adapter. `Debug` shows no secret.
#[derive(Debug)]
pub struct SandboxProvider {
    base_url: String,
    webhook_secret: Secret<String>,
    portal_secret: Secret<Vec<u8>>,
    tolerance_secs: i64,
}

impl SandboxProvider {
    /// `base_url`: the service's public base, e.g. `http://127.0.0.1:8080`
    /// (a trailing `/` is dropped). `webhook_secret` signs and verifies the
    /// sandbox's events; `portal_secret` signs portal links.
    pub fn new(
        base_url: String,
        webhook_secret: Secret<String>,
        portal_secret: Secret<Vec<u8>>,
    ) -> SandboxProvider {
        SandboxProvider {
            base_url: base_url.trim_end_matches('/').to_owned(),
            webhook_secret,
            portal_secret,
            tolerance_secs: signature::DEFAULT_TOLERANCE_SECS,
        }
    }

    /// Whether `id` has the shape of a sandbox session id (for routes to
    /// refuse junk before a lookup).
    pub fn is_session_id(id: &str) -> bool {
        id.strip_prefix(SESSION_PREFIX).is_some_and(|rest| {
            rest.len() == SESSION_RANDOM && rest.bytes().all(|b| b.is_ascii_alphanumeric())
        })
    }

    /// The deterministic sandbox customer id of an account:
    /// `cus_sandbox_<first 24 hex of sha256(account_id)>`.
    pub fn customer_for(account_id: &str) -> String {
        let digest = hex::encode(Sha256::digest(account_id.as_bytes()));
        format!("cus_sandbox_{}", &digest[..24])
    }

    /// The portal URL for `customer` at `now`, valid for
    /// [`PORTAL_TOKEN_TTL_SECS`].
    pub fn portal_url_at(
        &self,
        customer: &str,
        return_url: &str,
        now: i64,
    ) -> Result<String, PaymentError> {
        if customer.is_empty() || customer.contains('|') {
            return Err(PaymentError::Rejected("not a customer id".into()));
        }
        let payload = format!(
            "{customer}|{}|{return_url}",
            now.saturating_add(PORTAL_TOKEN_TTL_SECS)
        );
        let mut token = payload.into_bytes();
        let tag = self.portal_tag(&token);
        token.extend_from_slice(&tag);
        Ok(format!(
            "{}/billing/sandbox/portal/{}",
            self.base_url,
            URL_SAFE_NO_PAD.encode(token)
        ))
    }

    /// The customer (and return URL) a portal token was issued for, if it is
    /// ours, untampered (compared in constant time) and not expired at `now`.
    pub fn open_portal_token(&self, token: &str, now: i64) -> Option<PortalGrant> {
        let raw = URL_SAFE_NO_PAD.decode(token).ok()?;
        let split = raw.len().checked_sub(MAC_BYTES)?;
        let (payload, tag) = raw.split_at(split);
        if !bool::from(self.portal_tag(payload).ct_eq(tag)) {
            return None;
        }
        let payload = std::str::from_utf8(payload).ok()?;
        let mut parts = payload.splitn(3, '|');
        let (customer, expiry, return_url) = (parts.next()?, parts.next()?, parts.next()?);
        let expiry: i64 = expiry.parse().ok()?;
        (now < expiry).then(|| PortalGrant {
            customer: customer.to_owned(),
            return_url: return_url.to_owned(),
        })
    }

    fn portal_tag(&self, payload: &[u8]) -> [u8; MAC_BYTES] {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(self.portal_secret.expose())
            .expect("HMAC takes any key");
        mac.update(PORTAL_DOMAIN);
        mac.update(payload);
        mac.finalize().into_bytes().into()
    }

    /// The sandbox's PaymentIntent id of a purchase: deterministic, so the
    /// checkout event, a refund and a dispute of one purchase agree.
    pub fn payment_intent_for(purchase_id: &str) -> String {
        let digest = hex::encode(Sha256::digest(purchase_id.as_bytes()));
        format!("pi_sandbox_{}", &digest[..24])
    }

    /// A Stripe-shaped event of `kind` around `object`, and its
    /// `Stripe-Signature` header at `now`.
    pub fn signed_event(
        &self,
        kind: &str,
        object: serde_json::Value,
        now: i64,
    ) -> (Vec<u8>, String) {
        let event = json!({
            "id": format!("evt_sandbox_{}", crate::auth::random_base62(24)),
            "object": "event",
            "api_version": STRIPE_VERSION,
            "created": now,
            "livemode": false,
            "pending_webhooks": 1,
            "request": { "id": null, "idempotency_key": null },
            "type": kind,
            "data": { "object": object }
        });
        let body = serde_json::to_vec(&event).expect("a JSON value serialises");
        let header = signature::sign(self.webhook_secret.expose().as_bytes(), &body, now);
        (body, header)
    }

    /// `charge.refunded` for the sandbox purchase `purchase_id` of
    /// `amount_cents`, refunded `refunded_cents` in total so far (as Stripe
    /// reports it: cumulative), as the operator's `payments refund` sends it.
    pub fn refund_event(
        &self,
        purchase_id: &str,
        amount_cents: i64,
        refunded_cents: i64,
        now: i64,
    ) -> (Vec<u8>, String) {
        let intent = Self::payment_intent_for(purchase_id);
        let charge = json!({
            "id": format!("ch_sandbox_{}", &intent["pi_sandbox_".len()..]),
            "object": "charge",
            "amount": amount_cents,
            "amount_captured": amount_cents,
            "amount_refunded": refunded_cents,
            "captured": true,
            "currency": CURRENCY,
            "livemode": false,
            "metadata": { "purchase_id": purchase_id },
            "paid": true,
            "payment_intent": intent,
            "refunded": refunded_cents >= amount_cents,
            "status": "succeeded",
        });
        self.signed_event("charge.refunded", charge, now)
    }

    /// `charge.dispute.created` (`status: None`) or `charge.dispute.closed`
    /// (`Some("won")`, `Some("lost")`) for a sandbox purchase.
    pub fn dispute_event(
        &self,
        purchase_id: &str,
        amount_cents: i64,
        status: Option<&str>,
        now: i64,
    ) -> (Vec<u8>, String) {
        let intent = Self::payment_intent_for(purchase_id);
        let dispute = json!({
            "id": format!("du_sandbox_{}", &intent["pi_sandbox_".len()..]),
            "object": "dispute",
            "amount": amount_cents,
            "charge": format!("ch_sandbox_{}", &intent["pi_sandbox_".len()..]),
            "currency": CURRENCY,
            "livemode": false,
            "payment_intent": intent,
            "reason": "fraudulent",
            "status": status.unwrap_or("needs_response"),
        });
        let kind = if status.is_some() {
            "charge.dispute.closed"
        } else {
            "charge.dispute.created"
        };
        self.signed_event(kind, dispute, now)
    }

    /// `payment_intent.succeeded` for an auto-reload's off-session payment.
    pub fn intent_succeeded_event(
        &self,
        req: &OffSessionRequest<'_>,
        now: i64,
    ) -> (Vec<u8>, String) {
        let intent = json!({
            "id": Self::payment_intent_for(req.purchase_id),
            "object": "payment_intent",
            "amount": req.amount_cents,
            "amount_received": req.amount_cents,
            "currency": CURRENCY,
            "customer": req.customer,
            "livemode": false,
            "metadata": {
                "purchase_id": req.purchase_id,
                "account_id": req.account_id,
                "credits": req.credits.to_string(),
                "kind": "auto_reload",
            },
            "off_session": true,
            "status": "succeeded",
        });
        self.signed_event("payment_intent.succeeded", intent, now)
    }

    /// The `checkout.session.completed` event Stripe would send for a paid
    /// session (same JSON shape), and its `Stripe-Signature` header at `now`,
    /// for the sandbox page to POST to the service's own webhook endpoint.
    pub fn completed_event(&self, payment: &SandboxPayment<'_>, now: i64) -> (Vec<u8>, String) {
        let event = json!({
            "id": format!("evt_sandbox_{}", crate::auth::random_base62(24)),
            "object": "event",
            "api_version": STRIPE_VERSION,
            "created": now,
            "livemode": false,
            "pending_webhooks": 1,
            "request": { "id": null, "idempotency_key": null },
            "type": "checkout.session.completed",
            "data": {
                "object": {
                    "id": payment.session_id,
                    "object": "checkout.session",
                    "amount_subtotal": payment.amount_cents,
                    "amount_total": payment.amount_cents,
                    "client_reference_id": payment.purchase_id,
                    "created": now,
                    "currency": CURRENCY,
                    "customer": payment.customer,
                    "customer_creation": "always",
                    "livemode": false,
                    "metadata": {
                        "purchase_id": payment.purchase_id,
                        "account_id": payment.account_id,
                        "credits": payment.credits.to_string(),
                    },
                    "mode": "payment",
                    "payment_intent": Self::payment_intent_for(payment.purchase_id),
                    "payment_status": "paid",
                    "status": "complete",
                    "url": null,
                }
            }
        });
        let body = serde_json::to_vec(&event).expect("a JSON value serialises");
        let header = signature::sign(self.webhook_secret.expose().as_bytes(), &body, now);
        (body, header)
    }
}

#[async_trait::async_trait]
impl PaymentProvider for SandboxProvider {
    fn name(&self) -> &'static str {
        "sandbox"
    }

    async fn create_checkout(
        &self,
        _req: &CheckoutRequest<'_>,
    ) -> Result<CheckoutSession, PaymentError> {
        let session_id = format!(
            "{SESSION_PREFIX}{}",
            crate::auth::random_base62(SESSION_RANDOM)
        );
        let url = format!("{}/billing/sandbox/checkout/{session_id}", self.base_url);
        Ok(CheckoutSession { session_id, url })
    }

    /// The sandbox's saved card always pays: the caller completes the
    /// payment with [`SandboxProvider::intent_succeeded_event`] through the
    /// webhook code, as Stripe's event would.
    async fn charge_saved_method(
        &self,
        req: &OffSessionRequest<'_>,
    ) -> Result<String, PaymentError> {
        Ok(Self::payment_intent_for(req.purchase_id))
    }

    async fn create_portal(
        &self,
        customer: &str,
        return_url: &str,
    ) -> Result<String, PaymentError> {
        self.portal_url_at(customer, return_url, unix_now())
    }

    fn verify_webhook(
        &self,
        signature: Option<&str>,
        body: &[u8],
        now: i64,
    ) -> Result<WebhookEvent, PaymentError> {
        verify_event(
            self.webhook_secret.expose().as_bytes(),
            signature,
            body,
            now,
            self.tolerance_secs,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_recognised() {
        assert!(SandboxProvider::is_session_id(
            "cs_sandbox_0123456789abcdefABCDEF0123456789"
        ));
        assert!(!SandboxProvider::is_session_id(
            "cs_sandbox_0123456789abcdefABCDEF012345678"
        ));
        assert!(!SandboxProvider::is_session_id(
            "cs_sandbox_0123456789abcdefABCDEF012345678/"
        ));
        assert!(!SandboxProvider::is_session_id("cs_test_a1"));
    }

    #[test]
    fn customers_are_deterministic_per_account() {
        let a = SandboxProvider::customer_for("acc_1");
        assert_eq!(a, SandboxProvider::customer_for("acc_1"));
        assert_ne!(a, SandboxProvider::customer_for("acc_2"));
        assert_eq!(a.len(), "cus_sandbox_".len() + 24);
    }

    #[test]
    fn a_token_from_another_secret_does_not_open() {
        let mine = SandboxProvider::new(
            "http://x".into(),
            Secret::new("whsec_a".into()),
            Secret::new(b"one".to_vec()),
        );
        let theirs = SandboxProvider::new(
            "http://x".into(),
            Secret::new("whsec_a".into()),
            Secret::new(b"two".to_vec()),
        );
        let url = theirs
            .portal_url_at("cus_1", "http://x/account", 100)
            .unwrap();
        let token = url.rsplit('/').next().unwrap();
        assert!(theirs.open_portal_token(token, 101).is_some());
        assert_eq!(mine.open_portal_token(token, 101), None);
    }
}
