//! Device login (spec §3, §4; RFC 8628) against the real server: a
//! standard OAuth 2.0 device-flow client this project did not write (the
//! `oauth2` crate) logs in while an operator approves its code; every
//! DeviceError, slow_down with Retry-After, one key exactly once, denial,
//! the verification page and the per-address limits.

use std::future::Future;
use std::pin::Pin;

use oauth2::basic::BasicClient;
use oauth2::{
    ClientId, DeviceAuthorizationUrl, StandardDeviceAuthorizationResponse, TokenResponse, TokenUrl,
};
use serde_json::{Value, json};
use vis_tests::{TestApp, problem};

/// The oauth2 crate's HTTP client, over this suite's reqwest (plain HTTP).
struct Http(reqwest::Client);

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct HttpError(String);

impl<'c> oauth2::AsyncHttpClient<'c> for Http {
    type Error = HttpError;
    type Future =
        Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, HttpError>> + Send + Sync + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        let client = self.0.clone();
        let task = tokio::spawn(async move {
            let (parts, body) = request.into_parts();
            let mut builder = client
                .request(parts.method, parts.uri.to_string())
                .body(body);
            for (name, value) in &parts.headers {
                builder = builder.header(name, value);
            }
            let r = builder.send().await.map_err(|e| HttpError(e.to_string()))?;
            let mut response = http::Response::builder().status(r.status());
            for (name, value) in r.headers() {
                response = response.header(name, value);
            }
            let bytes = r.bytes().await.map_err(|e| HttpError(e.to_string()))?;
            response
                .body(bytes.to_vec())
                .map_err(|e| HttpError(e.to_string()))
        });
        Box::pin(async move { task.await.map_err(|e| HttpError(e.to_string()))? })
    }
}

async fn form(app: &TestApp, path: &str, body: &[(&str, &str)]) -> reqwest::Response {
    let encoded = form_body(body);
    app.client
        .post(app.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(encoded)
        .send()
        .await
        .unwrap()
}

fn form_body(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

async fn device_error(r: reqwest::Response, status: u16, error: &str) -> Value {
    assert_eq!(r.status().as_u16(), status);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"], error, "{v}");
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"));
    v
}

#[tokio::test]
async fn a_standard_oauth_client_logs_in_while_an_operator_approves() {
    let app = TestApp::spawn().await;
    app.cli(&[
        "accounts",
        "create",
        "--email",
        "dev@example.com",
        "--credits",
        "7",
    ])
    .await
    .unwrap();
    let client = BasicClient::new(ClientId::new("vis-cli".into()))
        .set_device_authorization_url(
            DeviceAuthorizationUrl::new(app.url("/api/auth/device/code")).unwrap(),
        )
        .set_token_uri(TokenUrl::new(app.url("/api/auth/device/token")).unwrap());
    let http = Http(vis_tests::http_client().build().unwrap());
    // The spec answers the code request with 201; the oauth2 crate's own
    // code request insists on RFC 8628's 200, so the (one) request is ours
    // and its body is read by the crate's standard response type. The
    // polling (interval, slow_down, errors) is all the crate's.
    let r = form(&app, "/api/auth/device/code", &[("client_id", "vis-cli")]).await;
    assert_eq!(r.status(), 201);
    let details: StandardDeviceAuthorizationResponse = r.json().await.unwrap();
    let user_code = details.user_code().secret().clone();
    assert_eq!(user_code.len(), 9);
    assert_eq!(details.expires_in().as_secs(), 600);
    assert_eq!(details.interval().as_secs(), 3);
    assert_eq!(
        details.verification_uri().as_str(),
        app.url("/device").as_str()
    );
    // The person opens the page, sees the code and the client's name.
    let page = app
        .get(&format!("/device?user_code={}", user_code.to_lowercase()))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(&user_code) && page.contains("vis-cli"),
        "the page shows the code and who asks"
    );
    // The operator approves it a moment later, while the client polls.
    let approver = {
        let (dir, url, code) = (
            app.config.data_dir.clone(),
            app.config.database_url.expose().to_owned(),
            user_code.clone(),
        );
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(4)).await;
            vis_tests::operator(
                &dir,
                &url,
                &["device", "approve", &code, "--email", "dev@example.com"],
            )
            .await
            .unwrap()
        })
    };
    let token = client
        .exchange_device_access_token(&details)
        .request_async(&http, tokio::time::sleep, None)
        .await
        .unwrap();
    assert!(approver.await.unwrap().contains("approved"));
    let key = token.access_token().secret();
    assert!(key.starts_with("vis_"));
    let scopes: Vec<String> = token
        .scopes()
        .unwrap()
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(scopes, ["images:read", "account:read", "billing:write"]);
    // The key works, named after the client, on the approving account.
    let account: Value = app
        .get_with_key("/api/v1/account", key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(account["data"]["credits"], 7);
    let keys = app
        .cli(&["--json", "keys", "list", "--email", "dev@example.com"])
        .await
        .unwrap();
    assert!(keys.contains("\"vis-cli\""), "{keys}");
    // The key is returned exactly once.
    let again = form(
        &app,
        "/api/auth/device/token",
        &[
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", details.device_code().secret()),
        ],
    )
    .await;
    device_error(again, 400, "expired_token").await;
    let page = app
        .get(&format!("/device?user_code={user_code}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("approved"));
}

#[tokio::test]
async fn every_device_error_and_slow_down_with_retry_after() {
    let app = TestApp::spawn().await;
    app.cli(&["accounts", "create", "--email", "deny@example.com"])
        .await
        .unwrap();
    // JSON works as well as a form; client_name names the key.
    let r = app
        .client
        .post(app.url("/api/auth/device/code"))
        .json(&json!({ "client_name": "my laptop" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let codes: Value = r.json().await.unwrap();
    let device_code = codes["device_code"].as_str().unwrap().to_owned();
    let user_code = codes["user_code"].as_str().unwrap().to_owned();
    assert_eq!(
        codes["verification_uri_complete"],
        format!("{}/device?user_code={user_code}", app.base_url)
    );
    let poll = || {
        let (client, url, code) = (
            app.client.clone(),
            app.url("/api/auth/device/token"),
            device_code.clone(),
        );
        async move {
            client
                .post(url)
                .json(&json!({ "device_code": code }))
                .send()
                .await
                .unwrap()
        }
    };
    device_error(poll().await, 400, "authorization_pending").await;
    // Sooner than the interval: slow_down, with how long to wait.
    let r = poll().await;
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3).contains(&wait), "{wait}");
    device_error(r, 429, "slow_down").await;
    // Denied by the operator.
    app.cli(&["device", "deny", &user_code]).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    device_error(poll().await, 400, "access_denied").await;
    let refused = app
        .cli(&[
            "device",
            "approve",
            &user_code,
            "--email",
            "deny@example.com",
        ])
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("no pending login"),
        "{refused}"
    );
    // Missing, unknown or malformed codes; a wrong grant type.
    for body in [
        json!({}),
        json!({ "device_code": "vdc_nope" }),
        json!({ "device_code": "x", "grant_type": "password" }),
    ] {
        let r = app
            .client
            .post(app.url("/api/auth/device/token"))
            .json(&body)
            .send()
            .await
            .unwrap();
        device_error(r, 400, "invalid_request").await;
    }
    let r = app
        .client
        .post(app.url("/api/auth/device/token"))
        .body("not json")
        .send()
        .await
        .unwrap();
    device_error(r, 400, "invalid_request").await;
    // A bad client_name is a problem naming it.
    let r = app
        .client
        .post(app.url("/api/auth/device/code"))
        .json(&json!({ "client_name": "x".repeat(81) }))
        .send()
        .await
        .unwrap();
    assert_eq!(problem(r, 400).await["param"], "client_name");
}

#[tokio::test]
async fn device_codes_are_limited_per_address() {
    let app = TestApp::spawn().await;
    let mut statuses = Vec::new();
    for _ in 0..21 {
        statuses.push(
            form(&app, "/api/auth/device/code", &[("client_id", "cli")])
                .await
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 20);
    let r = form(&app, "/api/auth/device/code", &[]).await;
    assert!(
        r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            <= 60
    );
    problem(r, 429).await;
}

/// Behind a load balancer (`[http] trusted_proxies`): the per-address limit
/// counts the client the trusted proxy forwarded for (the rightmost hop that
/// is not a trusted proxy), and a peer that is not trusted cannot choose its
/// address with a header. 127.0.0.2 is the proxy, 127.0.0.3 a client that
/// connects directly.
#[tokio::test]
async fn behind_a_trusted_proxy_device_codes_are_limited_per_forwarded_client() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = control_plane::Config::for_tests(dir.path());
    config.http.trusted_proxies = vec!["127.0.0.2/32".into()];
    let app = TestApp::spawn_with(config, dir).await;
    let from = |ip: &str| {
        reqwest::Client::builder()
            .local_address(ip.parse::<std::net::IpAddr>().unwrap())
            .build()
            .unwrap()
    };
    let (proxy, direct) = (from("127.0.0.2"), from("127.0.0.3"));
    let code = |client: &reqwest::Client, forwarded: &[(&'static str, String)]| {
        let mut request = client
            .post(app.url("/api/auth/device/code"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_body(&[("client_id", "cli")]));
        for (name, value) in forwarded {
            request = request.header(*name, value);
        }
        async move { request.send().await.unwrap().status().as_u16() }
    };
    let xff = |v: &str| vec![("x-forwarded-for", v.to_owned())];
    // Client A through the proxy: its own 20 a minute.
    for i in 0..20 {
        assert_eq!(code(&proxy, &xff("198.51.100.1")).await, 201, "request {i}");
    }
    assert_eq!(code(&proxy, &xff("198.51.100.1")).await, 429);
    // Writing another address before the proxy's hop changes nothing.
    assert_eq!(
        code(&proxy, &xff("203.0.113.99, 198.51.100.1")).await,
        429,
        "the rightmost untrusted hop is the client"
    );
    // Client B through the same proxy is another address (RFC 7239 too).
    assert_eq!(code(&proxy, &xff("198.51.100.2")).await, 201);
    assert_eq!(
        code(
            &proxy,
            &[("forwarded", "for=\"[2001:db8::2]:4711\"".into())]
        )
        .await,
        201
    );
    // A peer that is not trusted is counted by its own address whatever
    // it claims: 20, then 429 even with a fresh header each time.
    for i in 0..20 {
        let claimed = format!("192.0.2.{i}");
        assert_eq!(code(&direct, &xff(&claimed)).await, 201, "request {i}");
    }
    assert_eq!(code(&direct, &xff("192.0.2.200")).await, 429);
    assert_eq!(code(&direct, &[]).await, 429);
    // The proxy's own address is untouched by its clients' counts.
    assert_eq!(code(&proxy, &[]).await, 201);
}
