//! The payment providers against a stub Stripe on a real socket (answering
//! with the recorded shapes in `fixtures/stripe/`), signed webhooks, and the
//! sandbox provider's capabilities.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use control_plane::config::Secret;
use control_plane::payments::sandbox::{PORTAL_TOKEN_TTL_SECS, SandboxPayment};
use control_plane::payments::signature::{self, DEFAULT_TOLERANCE_SECS};
use control_plane::payments::stripe::STRIPE_VERSION;
use control_plane::payments::{
    CheckoutRequest, PaymentError, PaymentProvider, PortalGrant, SandboxProvider, StripeProvider,
    WebhookEvent,
};

const API_KEY: &str = "sk_test_51QbYxeDq8sVx3kLwSeCrEtKeYdoNotLeak0123456789";
const WEBHOOK_SECRET: &str = "whsec_9f8e7d6c5b4a39281706f5e4d3c2b1a0";

const CHECKOUT_SESSION: &str = include_str!("fixtures/stripe/checkout_session.json");
const PORTAL_SESSION: &str = include_str!("fixtures/stripe/portal_session.json");
const ERROR_INVALID_REQUEST: &str = include_str!("fixtures/stripe/error_invalid_request.json");
const ERROR_API: &str = include_str!("fixtures/stripe/error_api.json");
const EVENT_COMPLETED: &str = include_str!("fixtures/stripe/event_checkout_session_completed.json");
const EVENT_CUSTOMER_CREATED: &str = include_str!("fixtures/stripe/event_customer_created.json");

/// One request as the stub Stripe saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    headers: HeaderMap,
    form: Vec<(String, String)>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    fn form_map(&self) -> BTreeMap<String, String> {
        let map: BTreeMap<_, _> = self.form.iter().cloned().collect();
        assert_eq!(map.len(), self.form.len(), "a form field was repeated");
        map
    }
}

/// A stub Stripe: answers each request with the next scripted
/// `(status, body)` and records what it was sent.
struct StubStripe {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl StubStripe {
    async fn start(script: Vec<(u16, &'static str)>) -> StubStripe {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let recorder = seen.clone();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let seen = recorder.clone();
                let script = script.clone();
                async move {
                    let form = form_urlencoded::parse(&body).into_owned().collect();
                    seen.lock().unwrap().push(Seen {
                        method,
                        path: uri.path().to_owned(),
                        headers,
                        form,
                    });
                    let (status, body) = script
                        .lock()
                        .unwrap()
                        .pop_front()
                        .unwrap_or((599, r#"{"error":{"message":"stub script exhausted"}}"#));
                    (
                        StatusCode::from_u16(status).unwrap(),
                        [
                            ("content-type", "application/json"),
                            ("request-id", "req_stub"),
                        ],
                        body,
                    )
                        .into_response()
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        StubStripe { base, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn provider(&self) -> StripeProvider {
        stripe_at(&self.base)
    }
}

fn stripe_at(base: &str) -> StripeProvider {
    StripeProvider::new(
        Secret::new(API_KEY.to_owned()),
        Secret::new(WEBHOOK_SECRET.to_owned()),
        format!("{base}/"),
    )
    .unwrap()
    .with_retry_backoff(Duration::from_millis(10))
}

fn new_customer_request() -> CheckoutRequest<'static> {
    CheckoutRequest {
        purchase_id: "pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8",
        account_id: "acc_01J9Z6PZK1M2N3P4Q5R6S7T8V9",
        email: "ada@example.com",
        customer: None,
        credits: 5_000,
        amount_cents: 500,
        success_url: "https://vis.example/account/billing?checkout=success",
        cancel_url: "https://vis.example/account/billing?checkout=cancelled",
    }
}

fn fixture_field(fixture: &str, name: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(fixture).unwrap();
    v[name].as_str().unwrap().to_owned()
}

/// The headers every Stripe call must carry.
fn assert_stripe_headers(seen: &Seen) {
    assert_eq!(seen.method, Method::POST);
    assert_eq!(
        seen.header("authorization"),
        Some(format!("Bearer {API_KEY}").as_str())
    );
    assert_eq!(seen.header("stripe-version"), Some(STRIPE_VERSION));
    assert_eq!(
        seen.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
}

// ---- Stripe API calls -------------------------------------------------------

#[tokio::test]
async fn checkout_for_a_new_customer_sends_the_documented_form() {
    let stub = StubStripe::start(vec![(200, CHECKOUT_SESSION)]).await;
    let session = stub
        .provider()
        .create_checkout(&new_customer_request())
        .await
        .unwrap();
    assert_eq!(session.session_id, fixture_field(CHECKOUT_SESSION, "id"));
    assert_eq!(session.url, fixture_field(CHECKOUT_SESSION, "url"));
    assert!(
        session
            .url
            .starts_with("https://checkout.stripe.com/c/pay/cs_test_")
    );

    let seen = stub.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/checkout/sessions");
    assert_stripe_headers(&seen[0]);
    assert_eq!(
        seen[0].header("idempotency-key"),
        Some("checkout-pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8")
    );
    let want: BTreeMap<String, String> = [
        ("mode", "payment"),
        ("line_items[0][quantity]", "1"),
        ("line_items[0][price_data][currency]", "usd"),
        ("line_items[0][price_data][unit_amount]", "500"),
        (
            "line_items[0][price_data][product_data][name]",
            "5,000 credits",
        ),
        ("client_reference_id", "pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8"),
        ("metadata[purchase_id]", "pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8"),
        ("metadata[account_id]", "acc_01J9Z6PZK1M2N3P4Q5R6S7T8V9"),
        ("metadata[credits]", "5000"),
        (
            "payment_intent_data[metadata][purchase_id]",
            "pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8",
        ),
        ("payment_intent_data[setup_future_usage]", "off_session"),
        (
            "success_url",
            "https://vis.example/account/billing?checkout=success",
        ),
        (
            "cancel_url",
            "https://vis.example/account/billing?checkout=cancelled",
        ),
        ("customer_email", "ada@example.com"),
        ("customer_creation", "always"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(seen[0].form_map(), want);
}

#[tokio::test]
async fn checkout_for_a_known_customer_names_it_instead_of_an_email() {
    let stub = StubStripe::start(vec![(200, CHECKOUT_SESSION)]).await;
    let req = CheckoutRequest {
        customer: Some("cus_RUlt3TqzZ8wN5v"),
        credits: 25_000,
        amount_cents: 2_500,
        ..new_customer_request()
    };
    stub.provider().create_checkout(&req).await.unwrap();
    let form = stub.seen()[0].form_map();
    assert_eq!(form["customer"], "cus_RUlt3TqzZ8wN5v");
    assert!(!form.contains_key("customer_email"), "{form:?}");
    assert!(!form.contains_key("customer_creation"), "{form:?}");
    assert_eq!(form["line_items[0][price_data][unit_amount]"], "2500");
    assert_eq!(
        form["line_items[0][price_data][product_data][name]"],
        "25,000 credits"
    );
    assert_eq!(form["metadata[credits]"], "25000");
}

#[tokio::test]
async fn portal_session_posts_customer_and_return_url() {
    let stub = StubStripe::start(vec![(200, PORTAL_SESSION)]).await;
    let url = stub
        .provider()
        .create_portal("cus_RUlt3TqzZ8wN5v", "https://vis.example/account/billing")
        .await
        .unwrap();
    assert_eq!(url, fixture_field(PORTAL_SESSION, "url"));
    let seen = stub.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1/billing_portal/sessions");
    assert_stripe_headers(&seen[0]);
    let want: BTreeMap<String, String> = [
        ("customer", "cus_RUlt3TqzZ8wN5v"),
        ("return_url", "https://vis.example/account/billing"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(seen[0].form_map(), want);
}

#[tokio::test]
async fn a_400_is_rejected_with_stripes_message_and_not_retried() {
    let stub = StubStripe::start(vec![(400, ERROR_INVALID_REQUEST)]).await;
    let req = CheckoutRequest {
        customer: Some("cus_DoesNotExist"),
        ..new_customer_request()
    };
    let err = stub.provider().create_checkout(&req).await.unwrap_err();
    assert_eq!(
        err,
        PaymentError::Rejected("No such customer: 'cus_DoesNotExist'".into())
    );
    assert_eq!(stub.seen().len(), 1, "a 4xx is final");
}

#[tokio::test]
async fn a_500_then_200_is_retried_once_with_the_same_idempotency_key() {
    let stub = StubStripe::start(vec![(500, ERROR_API), (200, CHECKOUT_SESSION)]).await;
    let session = stub
        .provider()
        .create_checkout(&new_customer_request())
        .await
        .unwrap();
    assert_eq!(session.session_id, fixture_field(CHECKOUT_SESSION, "id"));
    let seen = stub.seen();
    assert_eq!(seen.len(), 2);
    for s in &seen {
        assert_eq!(
            s.header("idempotency-key"),
            Some("checkout-pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8")
        );
        assert_stripe_headers(s);
    }
    assert_eq!(seen[0].form, seen[1].form, "a retry resends the same form");
}

#[tokio::test]
async fn a_429_is_retried() {
    let rate_limited = r#"{"error":{"message":"Too many requests hit the API too quickly.","type":"invalid_request_error","code":"rate_limit"}}"#;
    let stub = StubStripe::start(vec![(429, rate_limited), (200, PORTAL_SESSION)]).await;
    let url = stub
        .provider()
        .create_portal("cus_RUlt3TqzZ8wN5v", "https://vis.example/account/billing")
        .await
        .unwrap();
    assert_eq!(url, fixture_field(PORTAL_SESSION, "url"));
    assert_eq!(stub.seen().len(), 2);
}

#[tokio::test]
async fn a_persistent_503_is_unavailable_after_two_retries() {
    let unavailable =
        r#"{"error":{"message":"Stripe is temporarily unavailable.","type":"api_error"}}"#;
    let stub = StubStripe::start(vec![
        (503, unavailable),
        (503, unavailable),
        (503, unavailable),
        (200, CHECKOUT_SESSION),
    ])
    .await;
    let err = stub
        .provider()
        .create_checkout(&new_customer_request())
        .await
        .unwrap_err();
    let PaymentError::Unavailable(text) = &err else {
        panic!("{err:?}")
    };
    assert!(text.contains("503"), "{text}");
    assert_eq!(stub.seen().len(), 3, "one try and two retries, no more");
}

#[tokio::test]
async fn an_unreachable_stripe_is_unavailable() {
    // A port that was free a moment ago: connection refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let err = stripe_at(&base)
        .create_portal("cus_1", "https://vis.example/")
        .await
        .unwrap_err();
    assert!(matches!(err, PaymentError::Unavailable(_)), "{err:?}");
    assert!(!err.to_string().contains(API_KEY));
}

#[tokio::test]
async fn a_2xx_without_a_url_is_unavailable_not_a_panic() {
    let stub = StubStripe::start(vec![(
        200,
        r#"{"id":"cs_test_x","object":"checkout.session","url":null}"#,
    )])
    .await;
    let err = stub
        .provider()
        .create_checkout(&new_customer_request())
        .await
        .unwrap_err();
    assert!(matches!(err, PaymentError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn no_error_text_or_debug_output_contains_a_secret() {
    // Stripe masks keys itself; a stub that echoes the whole key checks that
    // we never pass one through regardless.
    let echo_401 = Box::leak(
        format!(
            r#"{{"error":{{"message":"Invalid API Key provided: {API_KEY}","type":"invalid_request_error"}}}}"#
        )
        .into_boxed_str(),
    );
    let echo_503 = Box::leak(
        format!(r#"{{"error":{{"message":"down for {API_KEY}","type":"api_error"}}}}"#)
            .into_boxed_str(),
    );
    let stub = StubStripe::start(vec![
        (401, echo_401),
        (503, echo_503),
        (503, echo_503),
        (503, echo_503),
    ])
    .await;
    let provider = stub.provider();
    let rejected = provider
        .create_checkout(&new_customer_request())
        .await
        .unwrap_err();
    let unavailable = provider
        .create_portal("cus_1", "https://vis.example/")
        .await
        .unwrap_err();
    assert!(
        matches!(rejected, PaymentError::Rejected(_)),
        "{rejected:?}"
    );
    assert!(
        matches!(unavailable, PaymentError::Unavailable(_)),
        "{unavailable:?}"
    );
    for text in [
        rejected.to_string(),
        format!("{rejected:?}"),
        unavailable.to_string(),
        format!("{unavailable:?}"),
        format!("{provider:?}"),
    ] {
        assert!(!text.contains(API_KEY), "{text}");
        assert!(!text.contains(WEBHOOK_SECRET), "{text}");
    }
    assert!(rejected.to_string().contains("Invalid API Key provided"));
}

// ---- Signed webhooks --------------------------------------------------------

const NOW: i64 = 1_767_225_900;

fn webhook_provider() -> StripeProvider {
    // No request is made: any base will do.
    stripe_at("http://127.0.0.1:9")
}

fn sign(body: &[u8], t: i64) -> String {
    signature::sign(WEBHOOK_SECRET.as_bytes(), body, t)
}

fn expect_bad_signature(result: Result<WebhookEvent, PaymentError>) {
    assert!(
        matches!(result, Err(PaymentError::BadSignature(_))),
        "{result:?}"
    );
}

#[test]
fn a_valid_completed_event_is_checkout_paid() {
    let body = EVENT_COMPLETED.as_bytes();
    let event = webhook_provider()
        .verify_webhook(Some(&sign(body, NOW)), body, NOW)
        .unwrap();
    assert_eq!(
        event,
        WebhookEvent::CheckoutPaid {
            event_id: "evt_1QbZ6sDq8sVx3kLwTf2Gh4Jk".into(),
            session_id: "cs_test_a1qV8hXq0NRrEsNSd4bX0yPfGxIvWk3qY2RrW7kBcH5tDn2cJ9mLzQ4u".into(),
            purchase_id: Some("pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8".into()),
            customer: Some("cus_RUlt3TqzZ8wN5v".into()),
            amount_total: 500,
            currency: "usd".into(),
            payment_intent: Some("pi_3QbZ6qDq8sVx3kLw0x9Yz8Wv".into()),
        }
    );
}

#[test]
fn a_replayed_event_outside_the_tolerance_is_refused() {
    let body = EVENT_COMPLETED.as_bytes();
    let provider = webhook_provider();
    let at_edge = sign(body, NOW - DEFAULT_TOLERANCE_SECS);
    assert!(provider.verify_webhook(Some(&at_edge), body, NOW).is_ok());
    let stale = sign(body, NOW - DEFAULT_TOLERANCE_SECS - 1);
    expect_bad_signature(provider.verify_webhook(Some(&stale), body, NOW));
    let future = sign(body, NOW + DEFAULT_TOLERANCE_SECS + 1);
    expect_bad_signature(provider.verify_webhook(Some(&future), body, NOW));
}

#[test]
fn forged_events_are_refused() {
    let body = EVENT_COMPLETED.as_bytes();
    let provider = webhook_provider();
    let wrong_secret = signature::sign(b"whsec_someone_else", body, NOW);
    expect_bad_signature(provider.verify_webhook(Some(&wrong_secret), body, NOW));
    // Right signature, body changed afterwards (100x the amount).
    let header = sign(body, NOW);
    let tampered = EVENT_COMPLETED.replace(r#""amount_total": 500"#, r#""amount_total": 50000"#);
    assert_ne!(tampered, EVENT_COMPLETED);
    expect_bad_signature(provider.verify_webhook(Some(&header), tampered.as_bytes(), NOW));
    // Right signature, timestamp changed afterwards (to dodge the tolerance).
    let old = sign(body, NOW - 3600);
    let moved = old.replace(&format!("t={}", NOW - 3600), &format!("t={NOW}"));
    expect_bad_signature(provider.verify_webhook(Some(&moved), body, NOW));
}

#[test]
fn any_matching_v1_is_accepted_during_secret_rotation() {
    let body = EVENT_COMPLETED.as_bytes();
    let old_secret = signature::sign(b"whsec_old_secret", body, NOW);
    let old_v1 = old_secret.split_once(",v1=").unwrap().1;
    let right_v1 = sign(body, NOW).split_once(",v1=").unwrap().1.to_owned();
    let header = format!("t={NOW},v1={old_v1},v1={right_v1},v0={old_v1}");
    let event = webhook_provider()
        .verify_webhook(Some(&header), body, NOW)
        .unwrap();
    assert!(
        matches!(event, WebhookEvent::CheckoutPaid { .. }),
        "{event:?}"
    );
    // The same header without the right one is refused.
    let only_old = format!("t={NOW},v1={old_v1},v0={right_v1}");
    expect_bad_signature(webhook_provider().verify_webhook(Some(&only_old), body, NOW));
}

#[test]
fn malformed_headers_are_refused() {
    let body = EVENT_COMPLETED.as_bytes();
    let provider = webhook_provider();
    let good = sign(body, NOW);
    let v1 = good.split_once(",v1=").unwrap().1;
    let malformed = [
        String::new(),
        "garbage".into(),
        format!("v1={v1}"),
        format!("t={NOW}"),
        format!("t={NOW},v0={v1}"),
        format!("t=soon,v1={v1}"),
        format!("t={NOW},v1={}", &v1[1..]),
        format!("t={NOW},v1={}zz", &v1[2..]),
        format!("t={NOW};v1={v1}"),
        format!("t={NOW},t={NOW},v1={v1}"),
    ];
    expect_bad_signature(provider.verify_webhook(None, body, NOW));
    for header in &malformed {
        let result = provider.verify_webhook(Some(header), body, NOW);
        assert!(
            matches!(result, Err(PaymentError::BadSignature(_))),
            "{header:?}: {result:?}"
        );
    }
    assert!(provider.verify_webhook(Some(&good), body, NOW).is_ok());
}

#[test]
fn a_non_payment_event_is_ignored() {
    let body = EVENT_CUSTOMER_CREATED.as_bytes();
    let event = webhook_provider()
        .verify_webhook(Some(&sign(body, NOW)), body, NOW)
        .unwrap();
    assert_eq!(
        event,
        WebhookEvent::Ignored {
            event_id: "evt_1QbZ6rDq8sVx3kLwPq7Rs5Tu".into(),
            kind: "customer.created".into()
        }
    );
}

#[test]
fn a_completed_but_unpaid_session_is_ignored() {
    let mut event: serde_json::Value = serde_json::from_str(EVENT_COMPLETED).unwrap();
    event["data"]["object"]["payment_status"] = "unpaid".into();
    let body = serde_json::to_vec(&event).unwrap();
    let parsed = webhook_provider()
        .verify_webhook(Some(&sign(&body, NOW)), &body, NOW)
        .unwrap();
    assert_eq!(
        parsed,
        WebhookEvent::Ignored {
            event_id: "evt_1QbZ6sDq8sVx3kLwTf2Gh4Jk".into(),
            kind: "checkout.session.completed".into()
        }
    );
}

#[test]
fn a_signed_body_that_is_not_an_event_is_a_bad_event() {
    let provider = webhook_provider();
    for body in [&b"<html>not json</html>"[..], b"{\"hello\":1}"] {
        let result = provider.verify_webhook(Some(&sign(body, NOW)), body, NOW);
        assert!(
            matches!(result, Err(PaymentError::BadEvent(_))),
            "{result:?}"
        );
    }
}

// ---- Sandbox ----------------------------------------------------------------

const SANDBOX_BASE: &str = "http://127.0.0.1:8080";

fn sandbox() -> SandboxProvider {
    SandboxProvider::new(
        format!("{SANDBOX_BASE}/"),
        Secret::new(WEBHOOK_SECRET.to_owned()),
        Secret::new(b"portal secret, 32 bytes or more!".to_vec()),
    )
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test]
async fn sandbox_checkout_urls_point_at_the_services_own_page() {
    let provider: Box<dyn PaymentProvider> = Box::new(sandbox());
    assert_eq!(provider.name(), "sandbox");
    let a = provider
        .create_checkout(&new_customer_request())
        .await
        .unwrap();
    let b = provider
        .create_checkout(&new_customer_request())
        .await
        .unwrap();
    let random = a.session_id.strip_prefix("cs_sandbox_").unwrap();
    assert_eq!(random.len(), 32);
    assert!(
        random.bytes().all(|c| c.is_ascii_alphanumeric()),
        "{random}"
    );
    assert!(SandboxProvider::is_session_id(&a.session_id));
    assert_eq!(
        a.url,
        format!("{SANDBOX_BASE}/billing/sandbox/checkout/{}", a.session_id)
    );
    assert_ne!(a.session_id, b.session_id);
}

fn token_of(url: &str) -> &str {
    url.strip_prefix(&format!("{SANDBOX_BASE}/billing/sandbox/portal/"))
        .unwrap_or_else(|| panic!("not a sandbox portal URL: {url}"))
}

#[tokio::test]
async fn sandbox_portal_tokens_round_trip_and_expire() {
    let provider = sandbox();
    let customer = SandboxProvider::customer_for("acc_01J9Z6PZK1M2N3P4Q5R6S7T8V9");
    let before = unix_now();
    let url = provider
        .create_portal(&customer, "http://127.0.0.1:8080/account?tab=billing|x")
        .await
        .unwrap();
    let token = token_of(&url);
    let want = PortalGrant {
        customer: customer.clone(),
        return_url: "http://127.0.0.1:8080/account?tab=billing|x".into(),
    };
    assert_eq!(provider.open_portal_token(token, before), Some(want));
    assert!(
        provider
            .open_portal_token(token, before + PORTAL_TOKEN_TTL_SECS - 5)
            .is_some()
    );
    assert_eq!(
        provider.open_portal_token(token, unix_now() + PORTAL_TOKEN_TTL_SECS + 1),
        None
    );
}

#[test]
fn sandbox_portal_tokens_resist_tampering() {
    let provider = sandbox();
    let url = provider
        .portal_url_at("cus_sandbox_aaaa", "http://127.0.0.1:8080/account", NOW)
        .unwrap();
    let token = token_of(&url);
    assert!(provider.open_portal_token(token, NOW).is_some());

    // Someone else's customer, same tag.
    let mut raw = URL_SAFE_NO_PAD.decode(token).unwrap();
    raw[12] = b'b';
    let other_customer = URL_SAFE_NO_PAD.encode(&raw);
    assert_eq!(provider.open_portal_token(&other_customer, NOW), None);
    // A later expiry, same tag.
    let raw = URL_SAFE_NO_PAD.decode(token).unwrap();
    let text = String::from_utf8_lossy(&raw[..raw.len() - 32]).into_owned();
    let later = text.replace(&(NOW + 3600).to_string(), &(NOW + 999_999).to_string());
    assert_ne!(later, text);
    let mut forged = later.into_bytes();
    forged.extend_from_slice(&raw[raw.len() - 32..]);
    assert_eq!(
        provider.open_portal_token(&URL_SAFE_NO_PAD.encode(&forged), NOW + 7200),
        None
    );
    // Truncated, flipped tag bit, junk.
    assert_eq!(
        provider.open_portal_token(&token[..token.len() - 4], NOW),
        None
    );
    let mut raw = URL_SAFE_NO_PAD.decode(token).unwrap();
    *raw.last_mut().unwrap() ^= 1;
    assert_eq!(
        provider.open_portal_token(&URL_SAFE_NO_PAD.encode(&raw), NOW),
        None
    );
    assert_eq!(provider.open_portal_token("not base64 !", NOW), None);
    assert_eq!(provider.open_portal_token("", NOW), None);
}

#[test]
fn sandbox_completed_events_verify_like_stripes() {
    let provider = sandbox();
    let customer = SandboxProvider::customer_for("acc_1");
    let payment = SandboxPayment {
        session_id: "cs_sandbox_0123456789abcdefABCDEF0123456789",
        purchase_id: "pur_1",
        account_id: "acc_1",
        customer: &customer,
        amount_cents: 10_000,
        credits: 100_000,
    };
    let (body, header) = provider.completed_event(&payment, NOW);
    let event = provider
        .verify_webhook(Some(&header), &body, NOW + 2)
        .unwrap();
    let WebhookEvent::CheckoutPaid {
        event_id,
        session_id,
        purchase_id,
        customer: paid_by,
        amount_total,
        currency,
        payment_intent,
    } = event
    else {
        panic!("{event:?}")
    };
    assert_eq!(
        payment_intent.as_deref(),
        Some(SandboxProvider::payment_intent_for("pur_1").as_str())
    );
    assert!(event_id.starts_with("evt_sandbox_"), "{event_id}");
    assert_eq!(session_id, payment.session_id);
    assert_eq!(purchase_id.as_deref(), Some("pur_1"));
    assert_eq!(paid_by.as_deref(), Some(customer.as_str()));
    assert_eq!(amount_total, 10_000);
    assert_eq!(currency, "usd");

    // The same shape as Stripe's event: the Stripe adapter with the same
    // secret reads it identically.
    let via_stripe = webhook_provider()
        .verify_webhook(Some(&header), &body, NOW)
        .unwrap();
    assert!(matches!(
        via_stripe,
        WebhookEvent::CheckoutPaid {
            amount_total: 10_000,
            ..
        }
    ));
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(json["type"], "checkout.session.completed");
    assert_eq!(json["data"]["object"]["object"], "checkout.session");
    assert_eq!(json["data"]["object"]["metadata"]["account_id"], "acc_1");
    assert_eq!(json["data"]["object"]["metadata"]["credits"], "100000");

    // Each event has its own id; stale ones are refused.
    let (again, _) = provider.completed_event(&payment, NOW);
    assert_ne!(
        serde_json::from_slice::<serde_json::Value>(&again).unwrap()["id"],
        json["id"]
    );
    expect_bad_signature(provider.verify_webhook(
        Some(&header),
        &body,
        NOW + DEFAULT_TOLERANCE_SECS + 1,
    ));
    assert!(!format!("{provider:?}").contains(WEBHOOK_SECRET));
}

// ---- After the sale: refunds, disputes, auto-reload -------------------------

const EVENT_REFUNDED_PARTIAL: &str =
    include_str!("fixtures/stripe/event_charge_refunded_partial.json");
const EVENT_REFUNDED_REST: &str = include_str!("fixtures/stripe/event_charge_refunded_rest.json");
const EVENT_DISPUTE_CREATED: &str =
    include_str!("fixtures/stripe/event_charge_dispute_created.json");
const EVENT_DISPUTE_LOST: &str =
    include_str!("fixtures/stripe/event_charge_dispute_closed_lost.json");
const EVENT_DISPUTE_WON: &str =
    include_str!("fixtures/stripe/event_charge_dispute_closed_won.json");
const EVENT_INTENT_SUCCEEDED: &str =
    include_str!("fixtures/stripe/event_payment_intent_succeeded.json");
const PAYMENT_INTENT: &str = include_str!("fixtures/stripe/payment_intent.json");
const PAYMENT_METHODS: &str = include_str!("fixtures/stripe/customer_payment_methods.json");

fn verified(fixture: &str) -> WebhookEvent {
    let body = fixture.as_bytes();
    webhook_provider()
        .verify_webhook(Some(&sign(body, NOW)), body, NOW)
        .unwrap()
}

#[test]
fn refund_events_carry_the_cumulative_amount_and_the_purchase() {
    assert_eq!(
        verified(EVENT_REFUNDED_PARTIAL),
        WebhookEvent::Refunded {
            event_id: "evt_3QbZ9aDq8sVx3kLw1Rf4Nd2P".into(),
            payment_intent: Some("pi_3QbZ6qDq8sVx3kLw0x9Yz8Wv".into()),
            purchase_id: Some("pur_01J9Z6Q4W5X8Y2B3C4D5E6F7G8".into()),
            amount: 500,
            amount_refunded: 200,
        }
    );
    assert!(matches!(
        verified(EVENT_REFUNDED_REST),
        WebhookEvent::Refunded {
            amount: 500,
            amount_refunded: 500,
            ..
        }
    ));
    // A forged refund (tampered amount) is refused like any other event.
    let body = EVENT_REFUNDED_PARTIAL.as_bytes();
    let header = sign(body, NOW);
    let tampered =
        EVENT_REFUNDED_PARTIAL.replace("\"amount_refunded\": 200", "\"amount_refunded\": 5");
    assert_ne!(tampered, EVENT_REFUNDED_PARTIAL);
    expect_bad_signature(webhook_provider().verify_webhook(
        Some(&header),
        tampered.as_bytes(),
        NOW,
    ));
    // Replayed outside the tolerance: refused.
    expect_bad_signature(webhook_provider().verify_webhook(
        Some(&header),
        body,
        NOW + DEFAULT_TOLERANCE_SECS + 1,
    ));
}

#[test]
fn dispute_events_open_and_close_won_or_lost() {
    assert_eq!(
        verified(EVENT_DISPUTE_CREATED),
        WebhookEvent::DisputeOpened {
            event_id: "evt_1QbZCcDq8sVx3kLw3Th6Pf4R".into(),
            dispute_id: "du_1QbZCbDq8sVx3kLwUu7Qg5Ss".into(),
            payment_intent: Some("pi_3QbZ6qDq8sVx3kLw0x9Yz8Wv".into()),
        }
    );
    assert!(matches!(
        verified(EVENT_DISPUTE_LOST),
        WebhookEvent::DisputeClosed { won: false, ref dispute_id, .. } if dispute_id == "du_1QbZCbDq8sVx3kLwUu7Qg5Ss"
    ));
    assert!(matches!(
        verified(EVENT_DISPUTE_WON),
        WebhookEvent::DisputeClosed { won: true, .. }
    ));
}

#[test]
fn an_auto_reload_payment_is_paid_and_other_intents_are_ignored() {
    assert_eq!(
        verified(EVENT_INTENT_SUCCEEDED),
        WebhookEvent::IntentPaid {
            event_id: "evt_3QbZFgDq8sVx3kLw6Wk9Si7U".into(),
            payment_intent: "pi_3QbZFfDq8sVx3kLw1a2B3c4D".into(),
            purchase_id: "pur_01J9ZA0B1C2D3E4F5G6H7J8K9M".into(),
            customer: Some("cus_RUlt3TqzZ8wN5v".into()),
            amount: 1000,
            currency: "usd".into(),
        }
    );
    // A Checkout's own PaymentIntent succeeds too; its session event is
    // what credits it, so an intent that is not an auto-reload is ignored.
    let checkout_intent = EVENT_INTENT_SUCCEEDED.replace("\"kind\": \"auto_reload\",", "");
    assert_ne!(checkout_intent, EVENT_INTENT_SUCCEEDED);
    assert!(matches!(
        verified(&checkout_intent),
        WebhookEvent::Ignored { ref kind, .. } if kind == "payment_intent.succeeded"
    ));
}

#[tokio::test]
async fn an_auto_reload_posts_an_off_session_payment_intent() {
    let stub = StubStripe::start(vec![
        (200, PAYMENT_METHODS),
        (500, ERROR_API),
        (200, PAYMENT_INTENT),
    ])
    .await;
    let req = control_plane::payments::OffSessionRequest {
        purchase_id: "pur_01J9ZA0B1C2D3E4F5G6H7J8K9M",
        account_id: "acc_01J9Z6PZK1M2N3P4Q5R6S7T8V9",
        customer: "cus_RUlt3TqzZ8wN5v",
        credits: 10_000,
        amount_cents: 1_000,
    };
    let intent = stub.provider().charge_saved_method(&req).await.unwrap();
    assert_eq!(intent, fixture_field(PAYMENT_INTENT, "id"));
    let seen = stub.seen();
    assert_eq!(seen.len(), 3, "the saved methods, then a 500 retried");
    // The saved method is looked up first: a PaymentIntent does not pick
    // the customer's method by itself.
    assert_eq!(seen[0].method, Method::GET);
    assert_eq!(
        seen[0].path,
        "/v1/customers/cus_RUlt3TqzZ8wN5v/payment_methods"
    );
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {API_KEY}").as_str())
    );
    assert_eq!(seen[0].header("stripe-version"), Some(STRIPE_VERSION));
    for s in &seen[1..] {
        assert_eq!(s.path, "/v1/payment_intents");
        assert_stripe_headers(s);
        assert_eq!(
            s.header("idempotency-key"),
            Some("auto-reload-pur_01J9ZA0B1C2D3E4F5G6H7J8K9M"),
            "the retry is the same payment"
        );
    }
    let want: BTreeMap<String, String> = [
        ("amount", "1000"),
        ("currency", "usd"),
        ("customer", "cus_RUlt3TqzZ8wN5v"),
        ("payment_method", "pm_1QbZ6rDq8sVx3kLwQw2Ek3Lm"),
        ("confirm", "true"),
        ("off_session", "true"),
        ("automatic_payment_methods[enabled]", "true"),
        ("automatic_payment_methods[allow_redirects]", "never"),
        ("description", "Auto-reload: 10,000 credits"),
        ("metadata[purchase_id]", "pur_01J9ZA0B1C2D3E4F5G6H7J8K9M"),
        ("metadata[account_id]", "acc_01J9Z6PZK1M2N3P4Q5R6S7T8V9"),
        ("metadata[credits]", "10000"),
        ("metadata[kind]", "auto_reload"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(seen[2].form_map(), want);
}

#[tokio::test]
async fn an_auto_reload_without_a_saved_method_pays_nothing() {
    let stub = StubStripe::start(vec![(
        200,
        r#"{"object":"list","url":"/v1/customers/cus_RUlt3TqzZ8wN5v/payment_methods","has_more":false,"data":[]}"#,
    )])
    .await;
    let req = control_plane::payments::OffSessionRequest {
        purchase_id: "pur_01J9ZA0B1C2D3E4F5G6H7J8K9M",
        account_id: "acc_01J9Z6PZK1M2N3P4Q5R6S7T8V9",
        customer: "cus_RUlt3TqzZ8wN5v",
        credits: 10_000,
        amount_cents: 1_000,
    };
    let err = stub.provider().charge_saved_method(&req).await.unwrap_err();
    assert!(err.to_string().contains("no saved payment method"), "{err}");
    assert_eq!(stub.seen().len(), 1, "no PaymentIntent is created");
}

#[test]
fn sandbox_refunds_and_disputes_read_like_stripes() {
    let provider = sandbox();
    let intent = SandboxProvider::payment_intent_for("pur_1");
    let (body, header) = provider.refund_event("pur_1", 1_000, 400, NOW);
    // Read by the Stripe adapter with the same secret: the same shape.
    assert_eq!(
        webhook_provider()
            .verify_webhook(Some(&header), &body, NOW)
            .unwrap(),
        WebhookEvent::Refunded {
            event_id: serde_json::from_slice::<serde_json::Value>(&body).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned(),
            payment_intent: Some(intent.clone()),
            purchase_id: Some("pur_1".into()),
            amount: 1_000,
            amount_refunded: 400,
        }
    );
    let (body, header) = provider.dispute_event("pur_1", 1_000, None, NOW);
    assert!(matches!(
        provider.verify_webhook(Some(&header), &body, NOW).unwrap(),
        WebhookEvent::DisputeOpened { payment_intent: Some(ref p), .. } if *p == intent
    ));
    let (body, header) = provider.dispute_event("pur_1", 1_000, Some("lost"), NOW);
    assert!(matches!(
        provider.verify_webhook(Some(&header), &body, NOW).unwrap(),
        WebhookEvent::DisputeClosed { won: false, .. }
    ));
}
