//! GET /api/v1/images/car against the real server and the real renderer:
//! every row of spec §1's Charges table, refunds, headers, 304, rate limits,
//! render sharing, the daily budget and capacity.

use std::sync::Arc;

use control_plane::store::{DeliveryStore, SqlStore};
use vis_tests::{
    Counting, Failing, Gated, TestApp, concurrent_statuses, count, header, problem, real_renderer,
};

const CAMRY: &str =
    "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side&w=256";

async fn balance(app: &TestApp, key: &str) -> i64 {
    let v: serde_json::Value = app
        .get_with_key("/api/v1/account", key)
        .await
        .json()
        .await
        .unwrap();
    v["data"]["credits"].as_i64().unwrap()
}

/// Starts a keyed GET in the background; resolves to its status.
fn spawn_get_status(app: &TestApp, path: &str, key: &str) -> tokio::task::JoinHandle<u16> {
    let (client, url, key) = (app.client.clone(), app.url(path), key.to_owned());
    tokio::spawn(async move {
        client
            .get(url)
            .bearer_auth(key)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    })
}

/// Waits until `/metrics` shows the line `metric value`.
async fn wait_for_metric(app: &TestApp, metric: &str, value: i64) {
    let wanted = format!("{metric} {value}\n");
    for _ in 0..200 {
        if app
            .get("/metrics")
            .await
            .text()
            .await
            .unwrap()
            .contains(&wanted)
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{metric} never reached {value}");
}

#[tokio::test]
async fn a_delivered_image_costs_one_credit_and_carries_every_header() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("a@example.com", "images:read,account:read")
        .await;
    let r = app
        .client
        .get(app.url(CAMRY))
        .bearer_auth(&key)
        .header("x-request-id", "order-17.a")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "image/png");
    assert_eq!(header(&r, "cache-control"), "private, no-store");
    assert_eq!(header(&r, "x-credits-charged"), "1");
    assert_eq!(header(&r, "x-credits-remaining"), "99");
    assert_eq!(header(&r, "x-image-source"), "generated");
    assert_eq!(header(&r, "x-image-width"), "256");
    assert_eq!(header(&r, "x-image-height"), "256");
    assert_eq!(header(&r, "x-request-id"), "order-17.a");
    assert_eq!(header(&r, "ratelimit-limit"), "120");
    assert_eq!(header(&r, "ratelimit-remaining"), "119");
    assert!(header(&r, "ratelimit-reset").parse::<u64>().unwrap() <= 60);
    let etag = header(&r, "etag");
    assert!(
        etag.starts_with('"') && !etag.starts_with("W/"),
        "strong ETag: {etag}"
    );
    assert_eq!(
        header(&r, "content-location"),
        format!(
            "{}/api/v1/images/car?make=toyota&model=camry&year=2019&view=side&color=red&w=256&format=png",
            app.base_url
        )
    );
    let bytes = r.bytes().await.unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(balance(&app, &key).await, 99);

    // The same image again: from cache, same ETag, one more credit.
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(header(&r, "x-image-source"), "cache");
    assert_eq!(header(&r, "etag"), etag);
    assert_eq!(header(&r, "x-credits-remaining"), "98");

    // The delivery was recorded under the client's request id.
    let store = SqlStore::connect(app.config.database_url.expose())
        .await
        .unwrap();
    let d = store
        .delivery_by_request_id("order-17.a")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(d.variant, "toyota/camry/2019/red/side");

    // usage_30d counts it.
    let v: serde_json::Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    let u = &v["data"]["usage_30d"];
    assert_eq!(
        (
            u["requests"].as_i64(),
            u["images"].as_i64(),
            u["credits_spent"].as_i64()
        ),
        (Some(2), Some(2), Some(2))
    );
    assert_eq!(u["cache_hit_rate"], 0.5);
}

#[tokio::test]
async fn formats_sizes_and_aliases() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("f@example.com", "images:read,account:read")
        .await;
    let base = "/api/v1/images/car?brand=Toyota&model=Camry&year=2019&view=hero&color=blue";
    let r = app
        .get_with_key(&format!("{base}&format=jpeg&size=thumb"), &key)
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "image/jpeg");
    assert_eq!(
        (header(&r, "x-image-width"), header(&r, "x-image-height")),
        ("256".into(), "256".into())
    );
    // Content-Location uses `make` spelling and canonical values.
    assert!(
        header(&r, "content-location").contains(
            "make=toyota&model=camry&year=2019&view=front-3-4&color=blue&w=256&format=jpg"
        )
    );
    assert_eq!(&r.bytes().await.unwrap()[..2], b"\xff\xd8");
    let r = app
        .get_with_key(&format!("{base}&format=webp&w=300&h=200"), &key)
        .await;
    assert_eq!(header(&r, "content-type"), "image/webp");
    assert_eq!(
        (header(&r, "x-image-width"), header(&r, "x-image-height")),
        ("200".into(), "200".into())
    );
    assert_eq!(
        header(&r, "x-image-source"),
        "cache",
        "the source render is shared across sizes and formats"
    );
    let body = r.bytes().await.unwrap();
    assert_eq!((&body[..4], &body[8..12]), (&b"RIFF"[..], &b"WEBP"[..]));
    assert_eq!(balance(&app, &key).await, 98);
}

#[tokio::test]
async fn if_none_match_is_a_free_304_compared_weakly() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("e@example.com", "images:read,account:read")
        .await;
    let etag = header(&app.get_with_key(CAMRY, &key).await, "etag");
    for candidate in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"other\", {etag}"),
    ] {
        let r = app
            .client
            .get(app.url(CAMRY))
            .bearer_auth(&key)
            .header("if-none-match", &candidate)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 304, "{candidate}");
        assert_eq!(header(&r, "etag"), etag);
        assert_eq!(header(&r, "x-credits-charged"), "0");
        assert!(r.headers().contains_key("x-request-id"));
        assert!(r.headers().contains_key("ratelimit-remaining"));
        assert!(r.bytes().await.unwrap().is_empty());
    }
    assert_eq!(balance(&app, &key).await, 99, "304s cost nothing");
    // A different size has a different validator.
    let r = app
        .client
        .get(app.url(&CAMRY.replace("w=256", "w=128")))
        .bearer_auth(&key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn bad_parameters_are_400s_and_unknown_vehicles_404s_and_cost_nothing() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, key) = app
        .account_with_key("b@example.com", "images:read,account:read")
        .await;
    for (query, param) in [
        ("make=toyota&model=camry&year=2019&colour=red", "colour"),
        ("make=toyota&brand=toyota&model=camry&year=2019", "brand"),
        ("make=toyota&model=camry&year=1989", "year"),
        ("make=toyota&model=camry&year=2019&w=2000", "w"),
        ("make=toyota&model=camry&year=2019&view=bottom", "view"),
        ("make=toyota&model=camry", "year"),
    ] {
        let r = app
            .get_with_key(&format!("/api/v1/images/car?{query}"), &key)
            .await;
        assert!(r.headers().contains_key("ratelimit-limit"), "{query}");
        let body = problem(r, 400).await;
        assert_eq!(body["param"], param, "{query}");
        assert!(body["detail"].as_str().unwrap().contains(param));
    }
    for (query, param) in [
        ("make=nosuchmake&model=camry&year=2019", "make"),
        ("make=toyota&model=nosuchmodel&year=2019", "model"),
        ("make=tesla&model=model-3&year=1995", "year"),
    ] {
        let body = problem(
            app.get_with_key(&format!("/api/v1/images/car?{query}"), &key)
                .await,
            404,
        )
        .await;
        assert_eq!(body["param"], param, "{query}");
    }
    assert_eq!(balance(&app, &key).await, 100);
}

#[tokio::test]
async fn an_empty_balance_is_a_402_with_balance_and_a_payment_link() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("p@example.com", 0, &[]).await;
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(header(&r, "link"), "</pricing>; rel=payment");
    let body = problem(r, 402).await;
    assert_eq!(
        (body["balance"].as_i64(), body["required_credits"].as_i64()),
        (Some(0), Some(1))
    );
    assert!(body["links"]["billing"].as_str().is_some());
}

#[tokio::test]
async fn rate_limited_requests_are_429_and_never_billed() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app
        .key_for("r@example.com", 100, &["--rate-limit", "2"])
        .await;
    assert_eq!(app.get_with_key(CAMRY, &key).await.status(), 200);
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(
        (r.status().as_u16(), header(&r, "ratelimit-remaining")),
        (200, "0".into())
    );
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(header(&r, "ratelimit-limit"), "2");
    assert_eq!(header(&r, "ratelimit-remaining"), "0");
    let retry: u64 = header(&r, "retry-after").parse().unwrap();
    assert!((1..=60).contains(&retry));
    problem(r, 429).await;
    // Even a conditional request is rate limited.
    let r = app
        .client
        .get(app.url(CAMRY))
        .bearer_auth(&key)
        .header("if-none-match", "*")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    assert_eq!(app.account_json("r@example.com").await["credits"], 98);
}

#[tokio::test]
async fn concurrent_requests_against_a_small_balance_deliver_exactly_the_balance() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app.key_for("c@example.com", 5, &[]).await;
    // Warm the cache so the race is on the ledger, not the renderer.
    app.cli(&[
        "credits",
        "adjust",
        "--email",
        "c@example.com",
        "--delta",
        "1",
        "--reason",
        "warm",
    ])
    .await
    .unwrap();
    assert_eq!(app.get_with_key(CAMRY, &key).await.status(), 200);
    let statuses =
        concurrent_statuses(30, || app.client.get(app.url(CAMRY)).bearer_auth(&key)).await;
    assert_eq!(count(&statuses, 200), 5, "{statuses:?}");
    assert_eq!(count(&statuses, 402), 25, "{statuses:?}");
    let v = app.account_json("c@example.com").await;
    assert_eq!(v["credits"], 0);
    let ledger = v["ledger"].as_array().unwrap();
    assert_eq!(ledger.iter().filter(|e| e["kind"] == "charge").count(), 6);
    assert_eq!(ledger[0]["balance_after"], 0);
}

#[tokio::test]
async fn a_hundred_concurrent_requests_for_a_new_variant_share_one_render() {
    let counting = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(counting.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("h@example.com", "images:read,account:read")
        .await;
    let url =
        app.url("/api/v1/images/car?make=ford&model=f-150&year=2020&color=green&view=front&w=128");
    let mut tasks = Vec::new();
    for _ in 0..100 {
        let (client, url, key) = (app.client.clone(), url.clone(), key.clone());
        tasks.push(tokio::spawn(async move {
            let r = client.get(url).bearer_auth(key).send().await.unwrap();
            let status = r.status().as_u16();
            if status != 200 {
                panic!("status {status}: {}", r.text().await.unwrap());
            }
            (
                r.status().as_u16(),
                r.headers()["etag"].to_str().unwrap().to_owned(),
            )
        }));
    }
    let mut etags = Vec::new();
    for t in tasks {
        let (status, etag) = t.await.unwrap();
        assert_eq!(status, 200);
        etags.push(etag);
    }
    etags.dedup();
    assert_eq!(etags.len(), 1);
    assert_eq!(
        counting.renders(),
        1,
        "exactly one render for 100 concurrent requests"
    );
    assert_eq!(
        balance(&app, &key).await,
        0,
        "each delivered image still costs one credit"
    );
}

/// Credits are reserved before a cold render: of many concurrent requests
/// for distinct new variants on a small balance, only those the balance
/// pays for start a render; the rest are 402 without one.
#[tokio::test]
async fn concurrent_cold_requests_on_a_small_balance_render_only_what_is_paid_for() {
    let counting = Counting::new(real_renderer());
    let app = TestApp::spawn_rendering(counting.clone(), |_| {}).await;
    let key = app.key_for("cold@example.com", 4, &[]).await;
    let colors = ["red", "blue", "black", "white", "silver", "green"];
    let views = ["side", "front"];
    let urls: Vec<String> = colors
        .iter()
        .flat_map(|c| views.iter().map(move |v| (c, v)))
        .map(|(c, v)| {
            app.url(&format!(
                "/api/v1/images/car?make=toyota&model=camry&year=2019&color={c}&view={v}&w=64"
            ))
        })
        .collect();
    assert_eq!(urls.len(), 12);
    let tasks: Vec<_> = urls
        .iter()
        .map(|url| {
            let sent = app.client.get(url).bearer_auth(&key).send();
            tokio::spawn(async move { sent.await.unwrap().status().as_u16() })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    assert_eq!(count(&statuses, 200), 4, "{statuses:?}");
    assert_eq!(count(&statuses, 402), 8, "{statuses:?}");
    assert!(
        counting.renders() <= 4,
        "{} renders started for 4 credits",
        counting.renders()
    );
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("vis_images_delivered_generated_total 4"),
        "{metrics}"
    );
    // The ledger: four charges, nothing refunded, the balance their sum.
    let v = app.account_json("cold@example.com").await;
    assert_eq!(v["credits"], 0);
    let ledger = v["ledger"].as_array().unwrap();
    let kinds = |k: &str| ledger.iter().filter(|e| e["kind"] == k).count();
    assert_eq!((kinds("charge"), kinds("refund")), (4, 0), "{ledger:?}");
    let sum: i64 = ledger.iter().map(|e| e["delta"].as_i64().unwrap()).sum();
    assert_eq!(sum, 0);
    assert!(
        ledger
            .iter()
            .all(|e| e["balance_after"].as_i64().unwrap() >= 0)
    );
}

#[tokio::test]
async fn a_failed_render_is_a_502_that_charges_nothing() {
    let app = TestApp::spawn_rendering(Arc::new(Failing), |_| {}).await;
    let (_, key) = app
        .account_with_key("x@example.com", "images:read,account:read")
        .await;
    let body = problem(app.get_with_key(CAMRY, &key).await, 502).await;
    assert!(
        !body.to_string().contains("GPU lost"),
        "the cause is logged, not shown"
    );
    assert_eq!(balance(&app, &key).await, 100);
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(metrics.contains("vis_renders_failed_total 1"), "{metrics}");
    assert!(metrics.contains("vis_render_jobs_failed 1"), "{metrics}");
}

#[tokio::test]
async fn a_spent_daily_budget_refuses_cold_renders_but_serves_the_cache() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| c.render.daily_budget = 1).await;
    let (_, key) = app
        .account_with_key("g@example.com", "images:read,account:read")
        .await;
    assert_eq!(app.get_with_key(CAMRY, &key).await.status(), 200);
    let cold = CAMRY.replace("color=red", "color=gold");
    let r = app.get_with_key(&cold, &key).await;
    let retry: u64 = header(&r, "retry-after").parse().unwrap();
    assert!((1..=86_400).contains(&retry));
    let body = problem(r, 503).await;
    assert!(body["detail"].as_str().unwrap().contains("budget"));
    // The cached variant, and any size of it, is still served.
    assert_eq!(app.get_with_key(CAMRY, &key).await.status(), 200);
    assert_eq!(
        app.get_with_key(&CAMRY.replace("w=256", "w=64"), &key)
            .await
            .status(),
        200
    );
    assert_eq!(balance(&app, &key).await, 97);
    // The operator raises the budget; the cold variant renders.
    let out = app.cli(&["budget", "set", "--daily", "5"]).await.unwrap();
    assert!(out.contains('5'));
    assert_eq!(app.get_with_key(&cold, &key).await.status(), 200);
    let show = app.cli(&["--json", "budget", "show"]).await.unwrap();
    let v: serde_json::Value = serde_json::from_str(&show).unwrap();
    assert_eq!(
        (v["daily"].as_i64(), v["used"].as_i64(), v["left"].as_i64()),
        (Some(5), Some(2), Some(3))
    );
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(metrics.contains("vis_renders_today 2"), "{metrics}");
    assert!(metrics.contains("vis_render_budget_left 3"), "{metrics}");
    assert!(metrics.contains("vis_budget_refusals_total 1"), "{metrics}");
}

#[tokio::test]
async fn a_full_queue_answers_503_instead_of_hanging() {
    let gated = Gated::new(real_renderer());
    let app = TestApp::spawn_rendering(gated.clone(), |c| {
        c.render.workers = 1;
        c.render.max_queue_depth = 1;
    })
    .await;
    let (_, key) = app
        .account_with_key("q@example.com", "images:read,account:read")
        .await;
    let first = spawn_get_status(&app, CAMRY, &key);
    wait_for_metric(&app, "vis_render_queue_depth", 1).await;
    let r = app
        .get_with_key(&CAMRY.replace("color=red", "color=white"), &key)
        .await;
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    problem(r, 503).await;
    gated.release(10);
    assert_eq!(first.await.unwrap(), 200);
    assert_eq!(
        balance(&app, &key).await,
        99,
        "only the delivered image was billed"
    );
}

/// A request whose render job is withdrawn while it waits (what cancelling
/// a prewarm does to its queued jobs, here as the request joined one) gets a
/// normal cold render, not a 502.
#[tokio::test]
async fn a_request_whose_job_is_withdrawn_gets_a_normal_cold_render() {
    let gated = Gated::new(real_renderer());
    let app = TestApp::spawn_rendering(gated.clone(), |c| c.render.workers = 1).await;
    let (_, key) = app
        .account_with_key("w@example.com", "images:read,account:read")
        .await;
    // The one worker is held by a first render; the second request's job
    // waits in the queue.
    let first = spawn_get_status(&app, CAMRY, &key);
    wait_for_metric(&app, "vis_render_queue_depth", 1).await;
    let second = spawn_get_status(&app, &CAMRY.replace("color=red", "color=blue"), &key);
    wait_for_metric(&app, "vis_render_queue_depth", 2).await;
    let store = SqlStore::connect(app.config.database_url.expose())
        .await
        .unwrap();
    control_plane::store::execute_raw(&store, "DELETE FROM render_jobs WHERE status = 'queued'")
        .await
        .unwrap();
    gated.release(10);
    assert_eq!(first.await.unwrap(), 200);
    assert_eq!(second.await.unwrap(), 200, "a cold render of its own");
    assert_eq!(balance(&app, &key).await, 98);
}

#[tokio::test]
async fn a_key_revoked_while_cached_is_refused_at_once_and_never_billed() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (key_id, key) = app
        .account_with_key("k@example.com", "images:read,account:read")
        .await;
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(r.status(), 200);
    let etag = header(&r, "etag");
    app.cli(&["keys", "revoke", &key_id]).await.unwrap();
    // The billed path: refused by the charge transaction itself.
    let r = app.get_with_key(CAMRY, &key).await;
    assert_eq!(header(&r, "www-authenticate"), "Bearer");
    problem(r, 401).await;
    // An unbilled answer (304) confirms the key first.
    let r = app
        .client
        .get(app.url(CAMRY))
        .bearer_auth(&key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    problem(r, 401).await;
    assert_eq!(app.account_json("k@example.com").await["credits"], 99);
}

#[tokio::test]
async fn a_second_replica_joins_the_render_in_progress_instead_of_rendering_or_refusing() {
    // Replica A renders (held by a gate); replica B shares its database and
    // object store, has no render node and a queue limit of one job.
    let counting = Counting::new(real_renderer());
    let gated = Gated::new(counting.clone());
    let a = TestApp::spawn_rendering(gated.clone(), |c| c.render.max_queue_depth = 1).await;
    let mut config_b = control_plane::Config::for_tests(&a.config.data_dir);
    config_b.render.max_queue_depth = 1;
    let b = TestApp::spawn_with(config_b, tempfile::tempdir().unwrap()).await;
    let (_, key) = a
        .account_with_key("two@example.com", "images:read,account:read")
        .await;

    let on_a = spawn_get_status(&a, CAMRY, &key);
    wait_for_metric(&a, "vis_render_queue_depth", 1).await;
    let on_b = {
        let (client, url, key) = (b.client.clone(), b.url(CAMRY), key.clone());
        tokio::spawn(async move {
            let r = client.get(url).bearer_auth(key).send().await.unwrap();
            (
                r.status().as_u16(),
                r.headers()["x-image-source"].to_str().unwrap().to_owned(),
            )
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    gated.release(10);
    assert_eq!(on_a.await.unwrap(), 200);
    assert_eq!(on_b.await.unwrap(), (200, "generated".to_owned()));
    assert_eq!(counting.renders(), 1, "one render for both replicas");
    // B's charge reaches the shared ledger when B settles (every 20 ms).
    assert_eq!(balance(&a, &key).await, 98);
}

#[tokio::test]
async fn shutdown_finishes_a_render_in_progress_and_stops_the_workers() {
    let gated = Gated::new(real_renderer());
    let app = TestApp::spawn_rendering(gated.clone(), |_| {}).await;
    let (_, key) = app
        .account_with_key("s@example.com", "images:read,account:read")
        .await;
    // The client gives up; the job it started keeps a worker busy.
    let client = spawn_get_status(&app, CAMRY, &key);
    wait_for_metric(&app, "vis_render_queue_depth", 1).await;
    wait_for_metric(&app, "vis_render_jobs_running", 1).await;
    client.abort();
    let releaser = {
        let gated = gated.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            gated.release(1);
        })
    };
    let dir = tokio::time::timeout(std::time::Duration::from_secs(20), app.shutdown())
        .await
        .expect("shutdown returns once the render in hand is done")
        .unwrap();
    releaser.await.unwrap();
    let revision = control_plane::config::RenderConfig::default().revision;
    let source = dir.path().join(format!(
        "objects/renders/r{revision}/toyota/camry/2019/red/side/source.png"
    ));
    assert!(
        source.exists(),
        "the render in hand was finished and stored"
    );
}
