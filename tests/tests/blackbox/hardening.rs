//! Hostile clients (issue "Hardening"): slow connections are cut off, the
//! connection cap holds, hyper's own errors are problem documents, HEAD is
//! free, text parameters are strict, and errors speak the API's words.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use vis_tests::{TestApp, problem};

/// A server whose connection clocks are short enough to test.
async fn spawn_strict(tweak: impl FnOnce(&mut control_plane::Config)) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = control_plane::Config::for_tests(dir.path());
    config.http.header_read_timeout_secs = 1;
    config.http.idle_timeout_secs = 1;
    config.http.body_read_timeout_secs = 1;
    tweak(&mut config);
    TestApp::spawn_with(config, dir).await
}

/// Reads until the server closes the connection (or `limit` passes);
/// returns what it sent and whether it closed.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (String, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return (String::from_utf8_lossy(&got).into_owned(), false),
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&got).into_owned(), true),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

fn split_response(raw: &str) -> (u16, String, serde_json::Value) {
    let (head, body) = raw.split_once("\r\n\r\n").expect("a whole response");
    let status = head[9..12].parse().expect("status");
    let body = serde_json::from_str(body).unwrap_or(serde_json::Value::Null);
    (status, head.to_ascii_lowercase(), body)
}

#[tokio::test]
async fn half_sent_headers_are_cut_off_by_the_header_read_timeout() {
    let app = spawn_strict(|_| {}).await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream
        .write_all(b"GET /api/v1/images/options HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let (_, closed) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(
        closed,
        "a connection that never finishes its head must be closed"
    );
    // A connection that sends nothing at all is closed too.
    let mut silent = TcpStream::connect(app.addr).await.unwrap();
    let (_, closed) = read_until_closed(&mut silent, Duration::from_secs(5)).await;
    assert!(closed);
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_gets_408_and_is_cut_off() {
    let app = spawn_strict(|_| {}).await;
    let key = app.key_for("slow@example.com", 10, &[]).await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    let head = format!(
        "POST /api/v1/image-urls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"make\":"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (raw, closed) = read_until_closed(&mut stream, Duration::from_secs(6)).await;
    assert!(closed, "the stalled request's connection must close");
    let (status, head, body) = split_response(&raw);
    assert_eq!(status, 408, "{raw}");
    assert!(head.contains("content-type: application/problem+json"));
    assert_eq!(body["status"], 408);
    assert!(body["request_id"].as_str().is_some());
    // Nothing was charged.
    let account = app.account_json("slow@example.com").await;
    assert_eq!(account["credits"], 10, "{account}");
}

#[tokio::test]
async fn a_body_trickling_a_byte_at_a_time_is_cut_off_by_the_total_body_clock() {
    // Never a pause of a second (the pause clock), but the whole body would
    // take 20 s: the total clock (2 s) answers 408 long before.
    let app = spawn_strict(|c| c.http.body_total_timeout_secs = 2).await;
    let key = app.key_for("trickle@example.com", 10, &[]).await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    let head = format!(
        "POST /api/v1/image-urls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = std::time::Instant::now();
    let (reader, mut writer) = stream.into_split();
    let trickler = tokio::spawn(async move {
        for _ in 0..50 {
            if writer.write_all(b" ").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
    });
    let mut stream = reader;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(8), stream.read(&mut buf)).await {
            Err(_) => break false,
            Ok(Ok(0)) | Ok(Err(_)) => break true,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    };
    trickler.abort();
    let raw = String::from_utf8_lossy(&got).into_owned();
    assert!(!raw.is_empty(), "no answer within 8 s of a trickling body");
    let (status, head, body) = split_response(&raw);
    assert_eq!(status, 408, "{raw}");
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert!(head.contains("content-type: application/problem+json"));
    assert!(head.contains("connection: close"), "{head}");
    assert_eq!(body["status"], 408);
    assert!(closed, "the trickling connection must close");
    let account = app.account_json("trickle@example.com").await;
    assert_eq!(account["credits"], 10, "nothing is charged: {account}");
}

#[tokio::test]
async fn a_web_form_body_that_stalls_is_a_408_too() {
    let app = spawn_strict(|_| {}).await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream
        .write_all(b"POST /signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nemail=")
        .await
        .unwrap();
    let (raw, closed) = read_until_closed(&mut stream, Duration::from_secs(6)).await;
    assert!(closed);
    let (status, head, body) = split_response(&raw);
    assert_eq!(status, 408, "{raw}");
    assert!(
        head.contains("content-type: application/problem+json"),
        "{head}"
    );
    assert_eq!(body["status"], 408);
}

/// A connection to `app` from the local address `from` (127.0.0.2 and
/// so on: loopback, but not the uncapped 127.0.0.1).
async fn connect_from(app: &TestApp, from: &str) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(app.addr).await.unwrap()
}

#[tokio::test]
async fn past_the_per_address_cap_a_new_connection_from_that_address_gets_a_503() {
    let app = spawn_strict(|c| {
        c.http.max_connections_per_address = 4;
        c.http.header_read_timeout_secs = 30;
        c.http.idle_timeout_secs = 30;
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(connect_from(&app, "127.0.0.2").await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut fifth = connect_from(&app, "127.0.0.2").await;
    let _ = fifth
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let (raw, closed) = read_until_closed(&mut fifth, Duration::from_secs(5)).await;
    assert!(closed);
    let (status, head, body) = split_response(&raw);
    assert_eq!(status, 503, "{raw}");
    assert!(head.contains("retry-after: 1"), "{head}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or("")
            .contains("your address"),
        "{body}"
    );
    // Another address, and the uncapped 127.0.0.1 (a proxy on this host),
    // are served while 127.0.0.2 is at its cap.
    for mut other in [
        connect_from(&app, "127.0.0.3").await,
        TcpStream::connect(app.addr).await.unwrap(),
    ] {
        other
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let (raw, _) = read_until_closed(&mut other, Duration::from_secs(5)).await;
        assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    }
    // Closing one frees a slot for that address.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = connect_from(&app, "127.0.0.2").await;
    again
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (raw, _) = read_until_closed(&mut again, Duration::from_secs(5)).await;
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
}

#[tokio::test]
async fn http_1_0_is_served_and_any_other_version_is_a_400_problem() {
    let app = TestApp::spawn().await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.0\r\n\r\n")
        .await
        .unwrap();
    let (raw, closed) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(
        raw.starts_with("HTTP/1.0 200") || raw.starts_with("HTTP/1.1 200"),
        "{raw}"
    );
    assert!(
        closed,
        "an HTTP/1.0 request without keep-alive ends its connection"
    );
    for version in ["HTTP/2.0", "HTTP/1.2", "HTTP/x"] {
        let request = format!("GET /healthz {version}\r\nHost: x\r\n\r\n");
        let (status, head, body) = raw_exchange(&app, request.as_bytes()).await;
        assert_eq!(status, 400, "{version}");
        assert!(
            head.contains("content-type: application/problem+json"),
            "{head}"
        );
        assert_eq!(body["status"], 400);
    }
}

#[tokio::test]
async fn idle_keep_alive_connections_are_closed_after_the_idle_timeout() {
    let app = spawn_strict(|c| c.http.header_read_timeout_secs = 30).await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let (raw, closed) = read_until_closed(&mut stream, Duration::from_secs(8)).await;
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(closed, "an idle kept-alive connection must be closed");
    // By the idle clock (1 s), not the header clock (30 s).
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn past_the_connection_cap_a_new_connection_gets_a_503_problem() {
    let app = spawn_strict(|c| {
        c.http.max_connections = 3;
        c.http.header_read_timeout_secs = 30;
        c.http.idle_timeout_secs = 30;
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(app.addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut extra = TcpStream::connect(app.addr).await.unwrap();
    let _ = extra
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let (raw, closed) = read_until_closed(&mut extra, Duration::from_secs(5)).await;
    assert!(closed);
    let (status, head, body) = split_response(&raw);
    assert_eq!(status, 503);
    assert!(head.contains("retry-after: 1"), "{head}");
    assert_eq!(body["status"], 503);
    // Closing one frees a slot.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(app.get("/healthz").await.status(), 200);
}

async fn raw_exchange(app: &TestApp, request: &[u8]) -> (u16, String, serde_json::Value) {
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    // The server may answer and close before the whole request is sent.
    let _ = stream.write_all(request).await;
    let (raw, _) = read_until_closed(&mut stream, Duration::from_secs(10)).await;
    split_response(&raw)
}

#[tokio::test]
async fn hyper_own_errors_414_and_431_are_problem_documents() {
    let app = TestApp::spawn().await;
    let long_url = format!(
        "GET /api/v1/vehicles?q={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(100 * 1024)
    );
    let many_headers = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\n{}\r\n",
        (0..200)
            .map(|i| format!("X-H{i}: v\r\n"))
            .collect::<String>()
    );
    let huge_header = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(2 * 1024 * 1024)
    );
    for (request, expected) in [
        (long_url, 414),
        (many_headers, 431),
        (huge_header, 431),
        ("BREW /x HTCPCP/1.0\r\n\r\n".to_owned(), 400),
    ] {
        let (status, head, body) = raw_exchange(&app, request.as_bytes()).await;
        assert_eq!(status, expected);
        assert!(
            head.contains("content-type: application/problem+json"),
            "{expected}: {head}"
        );
        assert_eq!(body["status"], expected, "{body}");
        assert_eq!(
            body["type"],
            format!("{}/docs/errors#{expected}", app.base_url)
        );
        let id = body["request_id"].as_str().expect("request_id");
        assert!(head.contains(&format!("x-request-id: {}", id.to_ascii_lowercase())));
    }
}

#[tokio::test]
async fn head_on_the_image_endpoint_is_free_and_mints_nothing() {
    let app = TestApp::spawn_rendering(vis_tests::real_renderer(), |_| {}).await;
    let key = app.key_for("head@example.com", 5, &[]).await;
    let path = "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&size=thumb";
    let get = app.get_with_key(path, &key).await;
    assert_eq!(get.status(), 200);
    let get_headers = get.headers().clone();
    assert_eq!(get_headers["x-credits-remaining"], "4");
    for form in ["", "&format=webp", "&response=url"] {
        let r = app
            .client
            .head(app.url(&format!("{path}{form}")))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{form}");
        assert_eq!(r.headers()["x-credits-charged"], "0", "{form}");
        assert_eq!(r.headers()["x-credits-remaining"], "4", "{form}");
        assert!(r.headers().contains_key("ratelimit-remaining"));
        if form.is_empty() {
            for name in [
                "etag",
                "content-type",
                "content-location",
                "cache-control",
                "x-image-width",
                "x-image-height",
                "vary",
            ] {
                assert_eq!(r.headers()[name], get_headers[name], "{name}");
            }
            assert_eq!(r.headers()["x-image-source"], "cache");
        } else if form == "&response=url" {
            assert_eq!(r.headers()["content-type"], "application/json");
        }
    }
    // A HEAD validates like the GET: bad parameters, unknown vehicles and no key.
    let head = |p: &str| app.client.head(app.url(p)).bearer_auth(&key).send();
    assert_eq!(
        head("/api/v1/images/car?make=toyota")
            .await
            .unwrap()
            .status(),
        400
    );
    assert_eq!(
        head("/api/v1/images/car?make=nope&model=nope&year=2019")
            .await
            .unwrap()
            .status(),
        404
    );
    let r = app.client.head(app.url(path)).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let account = app.account_json("head@example.com").await;
    assert_eq!(account["credits"], 4, "{account}");
}

#[tokio::test]
async fn every_get_route_answers_head_without_charging() {
    let app = TestApp::spawn().await;
    let key = app.key_for("routes@example.com", 3, &[]).await;
    for (path, _, _) in control_plane::http::route_table() {
        if path.contains('{') {
            continue;
        }
        let r = app
            .client
            .head(app.url(path))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        assert_ne!(r.status().as_u16(), 500, "{path}");
    }
    assert_eq!(app.account_json("routes@example.com").await["credits"], 3);
}

#[tokio::test]
async fn invisible_and_control_characters_in_text_parameters_are_400s_naming_them() {
    let app = TestApp::spawn().await;
    let key = app.key_for("strict@example.com", 5, &[]).await;
    for (query, param) in [
        ("make=toyota%00&model=camry&year=2019", "make"),
        ("make=toy%E2%80%8Bota&model=camry&year=2019", "make"),
        ("make=toyota&model=cam%CC%81ry&year=2019", "model"),
        ("make=toyota&model=camry&year=%2B2020", "year"),
        ("make=toyota&model=camry&year=02020", "year"),
        ("make=toyota&model=camry&year=2019&w=0512", "w"),
    ] {
        let r = app
            .get_with_key(&format!("/api/v1/images/car?{query}"), &key)
            .await;
        let body = problem(r, 400).await;
        assert_eq!(body["param"], param, "{query}: {body}");
    }
    let body = problem(app.get("/api/v1/vehicles?q=cam%E2%80%8Bry").await, 400).await;
    assert_eq!(body["param"], "q");
    let body = problem(app.get("/api/v1/vehicles?year=+2020").await, 400).await;
    assert_eq!(body["param"], "year");
    assert_eq!(app.account_json("strict@example.com").await["credits"], 5);
}

#[tokio::test]
async fn body_errors_name_the_json_path_and_the_rule_never_a_rust_type() {
    let app = TestApp::spawn().await;
    let key = app
        .key_for(
            "words@example.com",
            5,
            &["--scopes", "images:read,account:read"],
        )
        .await;
    let post = |path: &'static str, body: &'static str| {
        app.client
            .post(app.url(path))
            .bearer_auth(&key)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    for (path, body, param, words) in [
        (
            "/api/v1/images/resolve",
            r#"{"query":"camry","year":-2020}"#,
            "year",
            "must be an integer from 1990 to 2027",
        ),
        (
            "/api/v1/images/resolve",
            "[]",
            "body",
            "must be a JSON object",
        ),
        ("/api/v1/image-urls", "[]", "body", "must be a JSON object"),
        (
            "/api/v1/image-urls",
            r#"{"images":[{"make":"toyota","model":"camry","year":2019},{"make":"toyota","model":"camry","year":"2019x"}]}"#,
            "images[1].year",
            "must be an integer from 1990 to 2027",
        ),
        (
            "/api/v1/image-urls",
            r#"{"images":[{"make":"toyota","model":"camry","year":2019,"color":"red\u200b"}]}"#,
            "images[0].color",
            "must not contain",
        ),
        (
            "/api/v1/image-urls",
            r#"{"images":"all of them"}"#,
            "images",
            "must be an array",
        ),
    ] {
        let problem_body = problem(post(path, body).await.unwrap(), 400).await;
        assert_eq!(problem_body["param"], param, "{body}: {problem_body}");
        let detail = problem_body["detail"].as_str().unwrap();
        assert!(detail.contains(words), "{body}: {detail}");
        for rust in ["u16", "i64", "u32", "struct ", "sequence", "expected "] {
            assert!(!detail.contains(rust), "{body}: {detail}");
        }
    }
}

#[tokio::test]
async fn metrics_can_be_served_on_a_separate_listener_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = control_plane::Config::for_tests(dir.path());
    config.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
    let app = control_plane::App::build(config).await.unwrap();
    let public = app.local_addr();
    let metrics = app.metrics_addr().expect("a metrics listener");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = stopped.await;
    }));
    let client = vis_tests::http_client().build().unwrap();
    let r = client
        .get(format!("http://{metrics}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("# TYPE"));
    let r = client
        .get(format!("http://{public}/metrics"))
        .send()
        .await
        .unwrap();
    problem(r, 404).await;
    let r = client
        .get(format!("http://{metrics}/api/v1/images/options"))
        .send()
        .await
        .unwrap();
    problem(r, 404).await;
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_client_request_id_that_breaks_the_rule_is_a_400_naming_it() {
    let app = TestApp::spawn().await;
    let key = app.key_for("rid@example.com", 5, &[]).await;
    let r = app
        .client
        .get(app.url("/api/v1/images/car?make=toyota&model=camry&year=2019"))
        .bearer_auth(&key)
        .header("x-request-id", "has spaces")
        .send()
        .await
        .unwrap();
    let body = problem(r, 400).await;
    assert_eq!(body["param"], "X-Request-Id");
    assert_ne!(body["request_id"], "has spaces");
    assert_eq!(app.account_json("rid@example.com").await["credits"], 5);
}

#[tokio::test]
async fn the_image_answer_varies_on_accept() {
    let app = TestApp::spawn().await;
    let key = app.key_for("vary@example.com", 5, &[]).await;
    let r = app
        .get_with_key(
            "/api/v1/images/car?make=toyota&model=camry&year=2019&response=url",
            &key,
        )
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["vary"], "Accept");
}
