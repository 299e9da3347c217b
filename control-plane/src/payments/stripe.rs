//! Stripe Checkout (hosted payment page, `mode=payment`) and the Stripe
//! customer portal, over Stripe's form-encoded REST API.
//!
//! Two calls only, so plain `reqwest` instead of an SDK. Requests carry a
//! pinned `Stripe-Version` so a dashboard upgrade cannot change the shapes
//! under us, and checkout creation an `Idempotency-Key` derived from our
//! purchase id, which makes the bounded retry (and a person double-clicking)
//! safe: Stripe answers a repeat with the first session.

use std::time::Duration;

use serde_json::Value;

use super::{
    CURRENCY, CheckoutRequest, CheckoutSession, OffSessionRequest, PaymentError, PaymentProvider,
    WebhookEvent, pack_name, signature, verify_event,
};
use crate::config::Secret;

/// Where the real API lives.
pub const API_BASE: &str = "https://api.stripe.com";
/// The API version every request is pinned to. Webhook payloads follow the
/// version set on the webhook endpoint in the Stripe dashboard instead; the
/// fields parsed here are the same in every recent version.
pub const STRIPE_VERSION: &str = "2026-02-25.clover";
/// Retries after the first attempt, for network errors, 429 and 5xx.
const MAX_RETRIES: u32 = 2;
/// First backoff; doubled for the second retry.
const DEFAULT_BACKOFF: Duration = Duration::from_millis(300);
/// Whole-request limit: a person is waiting on the redirect.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The Stripe adapter. `Debug` shows no secret (both are [`Secret`]s).
#[derive(Debug)]
pub struct StripeProvider {
    http: reqwest::Client,
    api_key: Secret<String>,
    webhook_secret: Secret<String>,
    api_base: String,
    tolerance_secs: i64,
    backoff: Duration,
}

impl StripeProvider {
    /// `api_base` is [`API_BASE`] in production (a trailing `/` is dropped);
    /// tests point it at a local server. Fails only if the HTTPS client
    /// cannot be built (no usable TLS roots).
    pub fn new(
        api_key: Secret<String>,
        webhook_secret: Secret<String>,
        api_base: String,
    ) -> Result<StripeProvider, PaymentError> {
        // reqwest is built without a default crypto provider (aws-lc-rs needs
        // cmake and a C toolchain dance); ring is installed process-wide once.
        // An error only means some provider is already installed: fine.
        super::install_tls_provider();
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("vis-control-plane/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                PaymentError::Unavailable(format!("cannot build the HTTPS client: {}", chain(&e)))
            })?;
        Ok(StripeProvider {
            http,
            api_key,
            webhook_secret,
            api_base: api_base.trim_end_matches('/').to_owned(),
            tolerance_secs: signature::DEFAULT_TOLERANCE_SECS,
            backoff: DEFAULT_BACKOFF,
        })
    }

    /// Webhook timestamp tolerance in seconds (default 300).
    pub fn with_tolerance(mut self, secs: i64) -> StripeProvider {
        self.tolerance_secs = secs;
        self
    }

    /// The first retry's backoff (doubled for the second); tests shorten it.
    pub fn with_retry_backoff(mut self, backoff: Duration) -> StripeProvider {
        self.backoff = backoff;
        self
    }

    /// POSTs `form` to `path`, retrying network errors, 429 and 5xx
    /// [`MAX_RETRIES`] times; answers the JSON object of a 2xx.
    async fn post_form(
        &self,
        path: &str,
        form: &[(&str, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, PaymentError> {
        self.send(reqwest::Method::POST, path, form, idempotency_key)
            .await
    }

    /// GETs `path` (with its query string), retried like [`Self::post_form`].
    async fn get_json(&self, path: &str) -> Result<Value, PaymentError> {
        self.send(reqwest::Method::GET, path, &[], None).await
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        params: &[(&str, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, PaymentError> {
        let url = format!("{}{path}", self.api_base);
        let mut last_failure = String::new();
        for attempt in 0..=MAX_RETRIES {
            if attempt > 0 {
                tokio::time::sleep(self.backoff * 2u32.pow(attempt - 1)).await;
            }
            let mut request = self
                .http
                .request(method.clone(), &url)
                .bearer_auth(self.api_key.expose())
                .header("Stripe-Version", STRIPE_VERSION);
            if method != reqwest::Method::GET {
                request = request.form(params);
            }
            if let Some(key) = idempotency_key {
                request = request.header("Idempotency-Key", key);
            }
            let response = match request.send().await {
                Ok(r) => r,
                Err(e) => {
                    last_failure = format!("cannot reach Stripe: {}", chain(&e));
                    tracing::warn!(path, attempt, error = %self.scrub(&last_failure), "stripe request failed");
                    continue;
                }
            };
            let status = response.status();
            let request_id = response
                .headers()
                .get("request-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            let body = match response.bytes().await {
                Ok(b) => b,
                Err(e) => {
                    last_failure = format!("Stripe answer cut short: {}", chain(&e));
                    continue;
                }
            };
            if status.is_success() {
                return serde_json::from_slice::<Value>(&body)
                    .ok()
                    .filter(Value::is_object)
                    .ok_or_else(|| {
                        PaymentError::Unavailable(format!(
                            "Stripe answered {status} with a body that is not an object"
                        ))
                    });
            }
            let error = StripeError::from_body(&body);
            tracing::warn!(
                path,
                attempt,
                status = status.as_u16(),
                request_id,
                error_type = error.kind,
                code = error.code,
                param = error.param,
                "stripe refused a request"
            );
            if status.as_u16() == 429 || status.is_server_error() {
                last_failure = match error.message {
                    Some(m) => format!("Stripe answered {status}: {m}"),
                    None => format!("Stripe answered {status}"),
                };
                continue;
            }
            let message = error
                .message
                .unwrap_or_else(|| format!("Stripe answered {status}"));
            return Err(PaymentError::Rejected(self.scrub(&message)));
        }
        Err(PaymentError::Unavailable(self.scrub(&last_failure)))
    }

    /// Defence in depth: Stripe masks keys in its messages, and no text here
    /// is built from the key, but nothing leaving this type may contain it.
    fn scrub(&self, text: &str) -> String {
        let key = self.api_key.expose();
        if key.is_empty() {
            text.to_owned()
        } else {
            text.replace(key.as_str(), "[redacted]")
        }
    }
}

/// The form Stripe's bracket syntax wants for one pack, priced inline (no
/// Price objects to keep in sync with the dashboard).
fn checkout_form(req: &CheckoutRequest<'_>) -> Vec<(&'static str, String)> {
    let mut form = vec![
        ("mode", "payment".to_owned()),
        ("line_items[0][quantity]", "1".to_owned()),
        ("line_items[0][price_data][currency]", CURRENCY.to_owned()),
        (
            "line_items[0][price_data][unit_amount]",
            req.amount_cents.to_string(),
        ),
        (
            "line_items[0][price_data][product_data][name]",
            pack_name(req.credits),
        ),
        ("client_reference_id", req.purchase_id.to_owned()),
        ("metadata[purchase_id]", req.purchase_id.to_owned()),
        ("metadata[account_id]", req.account_id.to_owned()),
        ("metadata[credits]", req.credits.to_string()),
        // The Charge and PaymentIntent carry the purchase too, so refunds and
        // disputes (whose events hold a Charge or a Dispute) find it; the
        // card is saved for auto-reload (off-session payments).
        (
            "payment_intent_data[metadata][purchase_id]",
            req.purchase_id.to_owned(),
        ),
        (
            "payment_intent_data[setup_future_usage]",
            "off_session".to_owned(),
        ),
        ("success_url", req.success_url.to_owned()),
        ("cancel_url", req.cancel_url.to_owned()),
    ];
    match req.customer.filter(|c| !c.is_empty()) {
        Some(customer) => form.push(("customer", customer.to_owned())),
        None => {
            form.push(("customer_email", req.email.to_owned()));
            // Payment mode creates no Customer by default; one is needed for
            // the portal (receipts, invoices) and to reuse on the next pack.
            form.push(("customer_creation", "always".to_owned()));
        }
    }
    form
}

/// The off-session PaymentIntent of an auto-reload: confirmed at once with
/// the customer's saved card, no person present (`off_session=true`; a card
/// that needs authentication fails instead of waiting).
fn off_session_form(
    req: &OffSessionRequest<'_>,
    payment_method: &str,
) -> Vec<(&'static str, String)> {
    vec![
        ("amount", req.amount_cents.to_string()),
        ("currency", CURRENCY.to_owned()),
        ("customer", req.customer.to_owned()),
        // The method the Checkout saved (`setup_future_usage=off_session`):
        // a PaymentIntent does not pick a customer's method by itself.
        ("payment_method", payment_method.to_owned()),
        ("confirm", "true".to_owned()),
        ("off_session", "true".to_owned()),
        ("automatic_payment_methods[enabled]", "true".to_owned()),
        (
            "automatic_payment_methods[allow_redirects]",
            "never".to_owned(),
        ),
        (
            "description",
            format!("Auto-reload: {}", pack_name(req.credits)),
        ),
        ("metadata[purchase_id]", req.purchase_id.to_owned()),
        ("metadata[account_id]", req.account_id.to_owned()),
        ("metadata[credits]", req.credits.to_string()),
        ("metadata[kind]", "auto_reload".to_owned()),
    ]
}

/// The fields of Stripe's error body `{"error":{"type","code","message","param"}}`.
#[derive(Default)]
struct StripeError {
    kind: Option<String>,
    code: Option<String>,
    param: Option<String>,
    message: Option<String>,
}

impl StripeError {
    fn from_body(body: &[u8]) -> StripeError {
        let Ok(v) = serde_json::from_slice::<Value>(body) else {
            return StripeError::default();
        };
        let field = |name: &str| {
            v.get("error")
                .and_then(|e| e.get(name))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        StripeError {
            kind: field("type"),
            code: field("code"),
            param: field("param"),
            message: field("message"),
        }
    }
}

/// A string field of a Stripe object, or Unavailable (Stripe answered 2xx
/// with something we cannot use: not the caller's fault).
fn required(object: &Value, name: &str, what: &str) -> Result<String, PaymentError> {
    object
        .get(name)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| PaymentError::Unavailable(format!("Stripe's {what} has no {name}")))
}

/// An error with its causes ("error sending request: connection refused"),
/// which is where reqwest keeps the useful part.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[async_trait::async_trait]
impl PaymentProvider for StripeProvider {
    fn name(&self) -> &'static str {
        "stripe"
    }

    async fn create_checkout(
        &self,
        req: &CheckoutRequest<'_>,
    ) -> Result<CheckoutSession, PaymentError> {
        let idempotency_key = format!("checkout-{}", req.purchase_id);
        let session = self
            .post_form(
                "/v1/checkout/sessions",
                &checkout_form(req),
                Some(&idempotency_key),
            )
            .await?;
        Ok(CheckoutSession {
            session_id: required(&session, "id", "Checkout Session")?,
            url: required(&session, "url", "Checkout Session")?,
        })
    }

    async fn charge_saved_method(
        &self,
        req: &OffSessionRequest<'_>,
    ) -> Result<String, PaymentError> {
        // The customer's saved methods, newest first; the newest pays.
        let mut path = String::from("/v1/customers/");
        path.extend(form_urlencoded::byte_serialize(req.customer.as_bytes()));
        path.push_str("/payment_methods?limit=1");
        let methods = self.get_json(&path).await?;
        let Some(payment_method) = methods
            .get("data")
            .and_then(Value::as_array)
            .and_then(|d| d.first())
            .and_then(|m| m.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(PaymentError::Rejected(
                "the customer has no saved payment method".into(),
            ));
        };
        let idempotency_key = format!("auto-reload-{}", req.purchase_id);
        let intent = self
            .post_form(
                "/v1/payment_intents",
                &off_session_form(req, &payment_method),
                Some(&idempotency_key),
            )
            .await?;
        required(&intent, "id", "PaymentIntent")
    }

    async fn create_portal(
        &self,
        customer: &str,
        return_url: &str,
    ) -> Result<String, PaymentError> {
        let form = [
            ("customer", customer.to_owned()),
            ("return_url", return_url.to_owned()),
        ];
        let session = self
            .post_form("/v1/billing_portal/sessions", &form, None)
            .await?;
        required(&session, "url", "portal session")
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
