//! GET /images/car.png against the real server and renderer: each of the
//! five grants, their order, the 308 rules, every cache header, partner
//! secrets under keys, the playground's limits, and the signing recipes of
//! docs/embeds.md run as written (docs/embeds.md).

use std::time::{Duration, Instant};

use control_plane::embeds::signature::sign;
use vis_tests::{TestApp, header, problem, real_renderer};

const CAMRY: &str = "make=toyota&model=camry&year=2019&view=side&color=red&w=256&format=png";
const PUBLIC: &str = "public, max-age=300, s-maxage=3600, stale-while-revalidate=60";

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn car(query: &str) -> String {
    format!("/images/car.png?{query}")
}

/// A key (with credits) and a partner secret under it: (key id, key, partner id, secret).
async fn partner(app: &TestApp, email: &str) -> (String, String, String, String) {
    app.cli(&["accounts", "create", "--email", email, "--credits", "10"])
        .await
        .unwrap();
    let out = app
        .cli(&["--json", "keys", "create", "--email", email])
        .await
        .unwrap();
    let k: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let key_id = k["id"].as_str().unwrap().to_owned();
    let out = app
        .cli(&["--json", "partners", "create", "--key", &key_id])
        .await
        .unwrap();
    let p: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(p["key_id"], key_id.as_str());
    (
        key_id,
        k["key"].as_str().unwrap().to_owned(),
        p["partner_id"].as_str().unwrap().to_owned(),
        p["secret"].as_str().unwrap().to_owned(),
    )
}

fn signed(query: &str, secret: &str) -> String {
    car(&format!("{query}&sig={}", sign(secret.as_bytes(), query)))
}

async fn credits(app: &TestApp, email: &str) -> i64 {
    app.account_json(email).await["credits"].as_i64().unwrap()
}

/// Polls `path` until it answers `status` (revocations reach caches
/// within a second); returns how long it took.
async fn until_status(app: &TestApp, path: &str, status: u16) -> Duration {
    let start = Instant::now();
    loop {
        let got = app.get(path).await.status().as_u16();
        if got == status {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{path} still {got}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_partner_signature_is_free_public_until_exp_and_ends_with_its_partner_or_key() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (key_id, _key, partner_id, secret) = partner(&app, "partner@example.com").await;
    let exp = now() + 3600;
    let query = format!("{CAMRY}&exp={exp}");
    let r = app.get(&signed(&query, &secret)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "image/png");
    let max_age: u64 = header(&r, "cache-control")
        .strip_prefix("public, max-age=")
        .unwrap()
        .parse()
        .unwrap();
    assert!((3590..=3600).contains(&max_age), "{max_age}");
    assert!(r.headers().get("x-credits-charged").is_none());
    assert_eq!(header(&r, "x-image-source"), "generated");
    assert_eq!(header(&r, "x-image-width"), "256");
    assert!(!header(&r, "x-request-id").is_empty());
    assert_eq!(
        header(&r, "content-location"),
        format!("{}/images/car.png?{CAMRY}", app.base_url)
    );
    let etag = header(&r, "etag");
    assert_eq!(&r.bytes().await.unwrap()[..4], b"\x89PNG");
    assert_eq!(credits(&app, "partner@example.com").await, 10, "free");

    // The order of the parameters does not matter; the signature covers them.
    let shuffled = format!(
        "exp={exp}&{}",
        CAMRY.split('&').rev().collect::<Vec<_>>().join("&")
    );
    let r = app.get(&signed(&shuffled, &secret)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-source"), "cache");
    // A 304 keeps the public lifetime.
    let r = app
        .client
        .get(app.url(&signed(&query, &secret)))
        .header("if-none-match", format!("W/{etag}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert!(header(&r, "cache-control").starts_with("public, max-age="));

    // Signed requests are never redirected: a name and an alias are served as sent.
    let odd = format!("brand=Toyota&model=Camry&year=2019&view=profile&color=RED&w=256&exp={exp}");
    let r = app.get(&signed(&odd, &secret)).await;
    assert_eq!(r.status(), 200, "signed, so not redirected");
    assert_eq!(header(&r, "x-image-source"), "cache");

    // Every way a signature can be wrong is a 403 problem.
    let tampered = signed(&query, &secret).replace("color=red", "color=blue");
    for (path, says) in [
        (tampered, "does not match"),
        (signed(&query, "vps_not_the_secret"), "does not match"),
        (
            signed(&format!("{CAMRY}&exp={}", now() - 1), &secret),
            "expired",
        ),
        (
            signed(&format!("{CAMRY}&exp={}", now() + 31 * 86_400), &secret),
            "30 days",
        ),
        (car(&format!("{CAMRY}&exp={exp}")), "exp and sig"),
        (
            car(&format!("{CAMRY}&sig={}", "a".repeat(64))),
            "exp and sig",
        ),
        (
            car(&format!("{query}&sig={}", "A".repeat(64))),
            "64 lowercase",
        ),
        (
            car(&format!("{CAMRY}&exp=soon&sig={}", "a".repeat(64))),
            "unix seconds",
        ),
    ] {
        let body = problem(app.get(&path).await, 403).await;
        assert!(
            body["detail"].as_str().unwrap().contains(says),
            "{path}: {body}"
        );
    }

    // `partner` narrows the check to one partner, and is signed like the rest.
    let narrowed = format!("{query}&partner={partner_id}");
    assert_eq!(app.get(&signed(&narrowed, &secret)).await.status(), 200);
    let wrong = format!("{query}&partner=someone-else");
    problem(app.get(&signed(&wrong, &secret)).await, 403).await;

    // A partner created after start is learnt on its first signature.
    let out = app
        .cli(&["--json", "partners", "create", "--key", &key_id])
        .await
        .unwrap();
    let second: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let second_secret = second["secret"].as_str().unwrap();
    let second_url = signed(&query, second_secret);
    assert_eq!(app.get(&second_url).await.status(), 200);

    // Revoking a partner ends its signatures within a second; the other lives on.
    app.cli(&["partners", "revoke", second["partner_id"].as_str().unwrap()])
        .await
        .unwrap();
    let took = until_status(&app, &second_url, 403).await;
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(app.get(&signed(&query, &secret)).await.status(), 200);
    let listed = app
        .cli(&[
            "--json",
            "partners",
            "list",
            "--email",
            "partner@example.com",
        ])
        .await
        .unwrap();
    assert!(
        !listed.contains(&secret) && !listed.contains(second_secret),
        "never shows secrets"
    );
    let listed: serde_json::Value = serde_json::from_str(listed.trim()).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2);

    // Revoking the key ends every partner signature issued under it.
    app.cli(&["keys", "revoke", &key_id]).await.unwrap();
    let took = until_status(&app, &signed(&query, &secret), 403).await;
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(credits(&app, "partner@example.com").await, 10);
    // And no partner can be created under a revoked key.
    let refused = app
        .cli(&["partners", "create", "--key", &key_id])
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("no live key"), "{refused}");
}

#[tokio::test]
async fn mode_cached_serves_only_what_exists_and_examples_are_free_and_public() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let cached = car(&format!("{CAMRY}&mode=cached"));
    let body = problem(app.get(&cached).await, 404).await;
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("not been rendered"),
        "{body}"
    );
    let head = app.client.head(app.url(&cached)).send().await.unwrap();
    assert_eq!(head.status(), 404, "HEAD agrees and renders nothing");
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("vis_renders_queued_total 0"),
        "never queued"
    );

    // Rendered once with a key, it is then free and public for anyone.
    let key = app.key_for("cached@example.com", 5, &[]).await;
    assert_eq!(app.get_with_key(&car(CAMRY), &key).await.status(), 200);
    let r = app.get(&cached).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "cache-control"), PUBLIC);
    assert_eq!(header(&r, "x-image-source"), "cache");
    assert!(r.headers().get("x-credits-charged").is_none());
    // Another size of a rendered variant is derived, still without a render.
    let r = app
        .get(&car(
            "make=toyota&model=camry&year=2019&view=side&color=red&w=100&mode=cached",
        ))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-width"), "100");
    // A key does not turn mode=cached into a billed request (grant 2 comes first).
    let r = app
        .get_with_key(&car(&format!("{CAMRY}&mode=cached")), &key)
        .await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("x-credits-charged").is_none());
    assert_eq!(app.account_json("cached@example.com").await["credits"], 4);

    // The home page's examples: free and public; any other size is not an example.
    // (Attribute values are HTML-escaped: `/` as `&#x2f;`, `&` as `&amp;`.)
    let home = app.get("/").await.text().await.unwrap();
    let example = home
        .split("src=\"")
        .filter_map(|s| s.split('"').next())
        .map(|src| src.replace("&#x2f;", "/").replace("&amp;", "&"))
        .find(|src| src.starts_with("/images/car.png?"))
        .expect("the home page shows examples");
    let r = app.get(&example).await;
    assert_eq!(r.status(), 200, "{example}");
    assert_eq!(header(&r, "cache-control"), PUBLIC);
    assert_eq!(header(&r, "content-type"), "image/webp");
    let not_example = example.replace("w=512", "w=500");
    let r = app.get(&not_example).await;
    assert_eq!(r.status(), 401);
    assert_eq!(header(&r, "www-authenticate"), "Bearer");
    assert!(header(&r, "content-type").starts_with("application/problem+json"));
}

#[tokio::test]
async fn a_key_is_billed_like_the_api_and_a_query_key_only_where_allowed() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let key = app
        .key_for("keyed@example.com", 2, &["--rate-limit", "5"])
        .await;
    let r = app.get_with_key(&car(CAMRY), &key).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "cache-control"), "private, no-store");
    assert_eq!(header(&r, "x-credits-charged"), "1");
    assert_eq!(header(&r, "x-credits-remaining"), "1");
    assert_eq!(header(&r, "ratelimit-limit"), "5");
    assert_eq!(
        header(&r, "content-location"),
        format!("{}/images/car.png?{CAMRY}", app.base_url)
    );
    let etag = header(&r, "etag");
    // A 304 is free; HEAD is free.
    let r = app
        .client
        .get(app.url(&car(CAMRY)))
        .header("x-api-key", &key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(header(&r, "x-credits-charged"), "0");
    let r = app
        .client
        .head(app.url(&car(CAMRY)))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-credits-charged"), "0");
    // x-api-key works like Authorization; the last credit goes, then 402.
    let r = app
        .client
        .get(app.url(&car(CAMRY)))
        .header("x-api-key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(header(&r, "x-credits-remaining"), "0");
    let r = app.get_with_key(&car(CAMRY), &key).await;
    assert_eq!(header(&r, "link"), "</pricing>; rel=payment");
    let body = problem(r, 402).await;
    assert_eq!(body["balance"], 0);
    // The rate limit (5 a minute) is the key's, as on the API: nothing billed.
    let r = app.get_with_key(&car(CAMRY), &key).await;
    assert_eq!(r.status(), 429);
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() <= 60);
    assert_eq!(app.account_json("keyed@example.com").await["credits"], 0);

    // A key without images:read is a 403 naming the scope; a bad key a 401.
    let (_, narrow) = app
        .account_with_key("narrow@example.com", "account:read")
        .await;
    let body = problem(app.get_with_key(&car(CAMRY), &narrow).await, 403).await;
    assert_eq!(body["scope"], "images:read");
    problem(app.get_with_key(&car(CAMRY), "vis_nonsense").await, 401).await;

    // A key in the query string is not honoured here by default: a 401 that says so.
    let rich = app.key_for("query@example.com", 5, &[]).await;
    let body = problem(app.get(&car(&format!("{CAMRY}&key={rich}"))).await, 401).await;
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("key query parameter"),
        "{body}"
    );
    assert_eq!(app.account_json("query@example.com").await["credits"], 5);
}

#[tokio::test]
async fn with_legacy_query_keys_allowed_the_key_parameter_bills_and_survives_redirects() {
    let app =
        TestApp::spawn_rendering(real_renderer(), |c| c.embeds.allow_legacy_query_keys = true)
            .await;
    let key = app.key_for("legacy@example.com", 5, &[]).await;
    let r = app.get(&car(&format!("{CAMRY}&key={key}"))).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-credits-charged"), "1");
    assert_eq!(header(&r, "cache-control"), "private, no-store");
    let r = app
        .get(&car(&format!(
            "brand=Toyota&model=camry&year=2019&key={key}"
        )))
        .await;
    assert_eq!(r.status(), 308);
    assert_eq!(
        header(&r, "location"),
        format!(
            "/images/car.png?make=toyota&model=camry&year=2019&view=front-3-4&color=silver&format=png&key={key}"
        )
    );
    assert_eq!(app.account_json("legacy@example.com").await["credits"], 4);
}

#[tokio::test]
async fn unsigned_odd_spellings_are_redirected_to_the_canonical_url() {
    let app = TestApp::spawn().await;
    for (query, location) in [
        (
            "brand=toyota&model=camry&year=2019",
            "make=toyota&model=camry&year=2019&view=front-3-4&color=silver&format=png",
        ),
        (
            "make=Toyota&model=Camry&year=2019&view=side",
            "make=toyota&model=camry&year=2019&view=side&color=silver&format=png",
        ),
        (
            "make=toyota&model=camry&year=2019&view=hero&color=RED",
            "make=toyota&model=camry&year=2019&view=front-3-4&color=red&format=png",
        ),
        (
            "make=toyota&model=camry&year=2019&format=jpeg&size=small&mode=cached",
            "make=toyota&model=camry&year=2019&view=front-3-4&color=silver&w=512&format=jpg&mode=cached",
        ),
        (
            "make=Tesla&model=Model%203&year=2022",
            "make=tesla&model=model-3&year=2022&view=front-3-4&color=silver&format=png",
        ),
    ] {
        let r = app.get(&car(query)).await;
        assert_eq!(r.status(), 308, "{query}");
        assert_eq!(header(&r, "location"), car(location), "{query}");
        // The target is canonical: it is not redirected again.
        assert_ne!(app.get(&header(&r, "location")).await.status(), 308);
    }
    // Canonical spellings with defaults left out are not redirected.
    let r = app.get(&car("make=toyota&model=camry&year=2019")).await;
    assert_eq!(r.status(), 401);
    // Parameters first: a 400 names the parameter; a vehicle not in the catalog is a 404.
    for (query, param) in [
        ("make=toyota&model=camry&year=1989", "year"),
        ("make=toyota&model=camry&year=2019&mode=fresh", "mode"),
        ("make=toyota&model=camry&year=2019&w=2000", "w"),
        ("make=toyota&model=camry&year=2019&colour=red", "colour"),
    ] {
        let body = problem(app.get(&car(query)).await, 400).await;
        assert_eq!(body["param"], param, "{query}");
    }
    problem(
        app.get(&car("make=toyota&model=no-such&year=2019")).await,
        404,
    )
    .await;
    // A request with no grant at all is a 401 naming the ways in.
    let r = app.get(&car(CAMRY)).await;
    assert_eq!(header(&r, "www-authenticate"), "Bearer");
    let body = problem(r, 401).await;
    assert!(body["detail"].as_str().unwrap().contains("/docs/embeds"));
}

/// The playground page's cookie, as a browser would send it back.
async fn playground_cookie(app: &TestApp) -> String {
    let r = app.get("/playground").await;
    assert_eq!(r.status(), 200);
    let set = header(&r, "set-cookie");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax"),
        "{set}"
    );
    set.split(';').next().unwrap().to_owned()
}

#[tokio::test]
async fn the_playground_cookie_is_free_private_and_limited() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| {
        c.playground.per_minute = 4;
        c.playground.cold_per_day = 1;
    })
    .await;
    let cookie = playground_cookie(&app).await;
    let get = |path: String, cookie: String| {
        let (client, url) = (app.client.clone(), app.url(&path));
        async move {
            client
                .get(url)
                .header("cookie", cookie)
                .send()
                .await
                .unwrap()
        }
    };
    let r = get(car(CAMRY), cookie.clone()).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "cache-control"), "private, max-age=300");
    assert!(r.headers().get("x-credits-charged").is_none());
    assert_eq!(header(&r, "x-image-source"), "generated");
    // One cold render a day: a second new variant is refused (503), a
    // rendered one still loads.
    let other = car("make=toyota&model=camry&year=2019&view=rear&color=red&w=256&format=png");
    let r = get(other, cookie.clone()).await;
    assert_eq!(r.status(), 503);
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() >= 1);
    let body = problem(r, 503).await;
    assert!(
        body["detail"].as_str().unwrap().contains("free renders"),
        "{body}"
    );
    assert_eq!(get(car(CAMRY), cookie.clone()).await.status(), 200);
    // Four a minute from one address: the fifth is a 429.
    assert_eq!(get(car(CAMRY), cookie.clone()).await.status(), 200);
    let r = get(car(CAMRY), cookie.clone()).await;
    assert_eq!(r.status(), 429);
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() <= 60);
    // A forged or foreign cookie grants nothing.
    let forged = format!("vis_playground=v1.{}.00.{}", now() + 999, "0".repeat(32));
    assert_eq!(get(car(CAMRY), forged).await.status(), 401);
}

/// mode=cached gives away the resize and encode of a size not made yet:
/// a few a minute per client address (429), a bounded number from all
/// addresses together (503); sizes already made are never limited.
#[tokio::test]
async fn mode_cached_makes_new_sizes_only_a_few_times_a_minute() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| {
        c.embeds.cached_derivations_per_address = 3;
        c.embeds.cached_derivations_per_minute = 5;
    })
    .await;
    let key = app.key_for("derive@example.com", 5, &[]).await;
    assert_eq!(app.get_with_key(&car(CAMRY), &key).await.status(), 200);
    let from = |last: u8| {
        vis_tests::http_client()
            .local_address(std::net::IpAddr::from([127, 0, 0, last]))
            .build()
            .unwrap()
    };
    vis_tests::within_one_rate_window(20).await;
    let sized = |w: u32| {
        car(&format!(
            "make=toyota&model=camry&year=2019&view=side&color=red&w={w}&format=png&mode=cached"
        ))
    };
    let one = from(1);
    let mut statuses = Vec::new();
    for w in [101, 102, 103, 104] {
        statuses.push(
            one.get(app.url(&sized(w)))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses, [200, 200, 200, 429]);
    let r = one.get(app.url(&sized(105))).send().await.unwrap();
    assert!(header(&r, "retry-after").parse::<u64>().unwrap() <= 60);
    let body = problem(r, 429).await;
    assert!(
        body["detail"].as_str().unwrap().contains("mode=cached"),
        "{body}"
    );
    // What is made already is served to anyone, as often as asked.
    for _ in 0..5 {
        let r = one.get(app.url(&sized(101))).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "x-image-width"), "101");
    }
    assert_eq!(
        one.get(app.url(&car(&format!("{CAMRY}&mode=cached"))))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    // Five new outputs a minute in all: another address gets the last two.
    let two = from(2);
    let mut statuses = Vec::new();
    for w in [201, 202, 203] {
        let r = two.get(app.url(&sized(w))).send().await.unwrap();
        statuses.push(r.status().as_u16());
        if r.status() == 503 {
            assert!(header(&r, "retry-after").parse::<u64>().unwrap() <= 60);
        }
    }
    assert_eq!(statuses, [200, 200, 503]);
}

/// One cookie carried to many addresses (127.0.0.2, .3, … are this
/// machine too) still gets one allowance a minute, not one per address.
#[tokio::test]
async fn a_playground_cookie_carried_to_other_addresses_keeps_one_allowance() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| {
        c.playground.per_minute = 3;
    })
    .await;
    let cookie = playground_cookie(&app).await;
    vis_tests::within_one_rate_window(20).await;
    let mut statuses = Vec::new();
    for last in 1..=5u8 {
        let client = vis_tests::http_client()
            .local_address(std::net::IpAddr::from([127, 0, 0, last]))
            .build()
            .unwrap();
        let r = client
            .get(app.url(&car(CAMRY)))
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
        if r.status() == 429 {
            assert!(header(&r, "retry-after").parse::<u64>().unwrap() <= 60);
            assert_eq!(header(&r, "ratelimit-remaining"), "0");
        }
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429]);
    // A fresh cookie on a fresh address is a fresh allowance.
    let other = playground_cookie(&app).await;
    let client = vis_tests::http_client()
        .local_address(std::net::IpAddr::from([127, 0, 0, 9]))
        .build()
        .unwrap();
    let r = client
        .get(app.url(&car(CAMRY)))
        .header("cookie", &other)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn the_playground_never_spends_the_budget_kept_for_paying_clients() {
    let app = TestApp::spawn_rendering(real_renderer(), |c| {
        c.render.daily_budget = 2;
        c.playground.budget_reserve_percent = 50;
    })
    .await;
    let cookie = playground_cookie(&app).await;
    let get_pg = |query: &str| {
        let (client, url, cookie) = (app.client.clone(), app.url(&car(query)), cookie.clone());
        async move {
            client
                .get(url)
                .header("cookie", cookie)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    // Half of a budget of two is the playground's; the other half is not.
    assert_eq!(get_pg(CAMRY).await, 200);
    assert_eq!(
        get_pg("make=toyota&model=camry&year=2019&view=rear&color=red&w=256&format=png").await,
        503
    );
    let key = app.key_for("payer@example.com", 5, &[]).await;
    let r = app
        .get_with_key(
            &car("make=toyota&model=camry&year=2019&view=rear&color=red&w=256&format=png"),
            &key,
        )
        .await;
    assert_eq!(r.status(), 200, "the reserve is there for a paying client");
}

/// The signing recipes of docs/embeds.md, run as written: each prints a
/// URL the server accepts, with the signature the service computes.
#[tokio::test]
async fn the_signing_recipes_in_the_docs_sign_what_the_server_accepts() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let (_, _, _, secret) = partner(&app, "recipes@example.com").await;
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/embeds.md")).unwrap();
    let block = |lang: &str| -> String {
        let start = doc
            .find(&format!("```{lang}\n"))
            .unwrap_or_else(|| panic!("no {lang} recipe"))
            + lang.len()
            + 4;
        doc[start..start + doc[start..].find("```").unwrap()].to_owned()
    };
    let query = format!("{CAMRY}&exp={}", now() + 600);
    let want = sign(secret.as_bytes(), &query);
    let dir = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for (lang, program, file) in [
        ("bash", "bash", "recipe.sh"),
        ("python", "python3", "recipe.py"),
        ("js", "node", "recipe.js"),
    ] {
        let path = dir.path().join(file);
        std::fs::write(&path, block(lang)).unwrap();
        let out = std::process::Command::new(program)
            .arg(&path)
            .env("QUERY", &query)
            .env("PARTNER_SECRET", &secret)
            .env("BASE_URL", &app.base_url)
            .output()
            .unwrap_or_else(|e| panic!("{program} must be installed (infra/test.sh): {e}"));
        assert!(
            out.status.success(),
            "{lang}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let url = String::from_utf8(out.stdout).unwrap().trim().to_owned();
        assert_eq!(
            url,
            format!("{}/images/car.png?{query}&sig={want}", app.base_url),
            "{lang}"
        );
        let r = app.client.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 200, "{lang}");
        ran += 1;
    }
    // The Rust recipe is compiled into this test (tests/src/embed_recipe.rs)
    // and must be the docs' text exactly.
    let compiled = include_str!("../../src/embed_recipe.rs");
    let (_, code) = compiled.split_once("\n\n").unwrap();
    assert_eq!(
        block("rust").trim(),
        code.trim(),
        "docs/embeds.md's Rust recipe and tests/src/embed_recipe.rs differ"
    );
    assert_eq!(vis_tests::embed_recipe::sign(&query, &secret), want);
    assert_eq!(ran, 3);
}
