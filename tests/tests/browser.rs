//! The web pages in a real browser: Debian's Chromium, headless, driven over
//! WebDriver (chromedriver) by the `fantoccini` client. Every image on `/`
//! and `/playground` loads, every page renders on a desktop and on a phone
//! without sideways scrolling, loads nothing from another host, and breaks
//! no Content-Security-Policy rule; the playground's type-ahead finds a
//! model and shows its render. Screenshots go to `target/screenshots/`.
//!
//! Needs `chromium` and `chromium-driver` (infra/test.sh installs them).
//! `VIS_TEST_SKIP_BROWSER=1` skips, for machines without them.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use vis_tests::{TestApp, real_renderer};

/// A chromedriver process on a free port, killed on drop.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(candidates: &[&str]) -> Option<PathBuf> {
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

async fn start_driver() -> Option<Driver> {
    if std::env::var("VIS_TEST_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("browser tests skipped on purpose (VIS_TEST_SKIP_BROWSER=1)");
        return None;
    }
    let driver = find(&["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
        .expect("chromedriver is missing: apt-get install chromium chromium-driver (infra/test.sh does), or set VIS_TEST_SKIP_BROWSER=1");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let url = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    let http = vis_tests::http_client().build().unwrap();
    while http.get(format!("{url}/status")).send().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "chromedriver did not start"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Some(Driver { child, url })
}

async fn browser(driver: &Driver) -> Client {
    let chromium = find(&["/usr/bin/chromium", "/usr/bin/chromium-browser"]).expect("chromium");
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--hide-scrollbars", "--window-size=1280,900", "--force-device-scale-factor=1"],
        }),
    );
    caps.insert("goog:loggingPrefs".into(), json!({ "browser": "ALL" }));
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a Chromium session")
}

fn screenshots() -> PathBuf {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/screenshots"
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Waits (up to `secs`) until `script` returns true in the page.
async fn wait_until(c: &Client, script: &str, secs: u64, what: &str) {
    let started = Instant::now();
    loop {
        let v = c.execute(script, vec![]).await.unwrap();
        if v == Value::Bool(true) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(secs),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

const ALL_IMAGES_LOADED: &str =
    "return Array.from(document.images).every(i => i.complete && i.naturalWidth > 0);";

/// Every resource the page loaded came from the service itself.
async fn only_own_origin(c: &Client, base: &str, page: &str) {
    let v = c
        .execute(
            "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href]);",
            vec![],
        )
        .await
        .unwrap();
    for url in v.as_array().unwrap() {
        let url = url.as_str().unwrap();
        assert!(
            url.starts_with(base) || url.starts_with("data:") || url.starts_with("blob:"),
            "{page} loaded {url} from another host"
        );
    }
}

/// No console errors (a CSP violation, a failed load, a script error).
async fn no_console_errors(c: &Client, page: &str) {
    let logs = c.issue_cmd(Logs).await;
    if let Ok(Value::Array(entries)) = logs {
        let errors: Vec<&Value> = entries.iter().filter(|e| e["level"] == "SEVERE").collect();
        assert!(errors.is_empty(), "{page}: console errors {errors:?}");
    }
}

/// Chromium's log endpoint (not in the W3C protocol): the console entries since the last read.
#[derive(Debug)]
struct Logs;

impl fantoccini::wd::WebDriverCompatibleCommand for Logs {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(r#"{"type":"browser"}"#.into()))
    }
}

async fn shoot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
}

/// On a phone-sized window the page does not scroll sideways.
async fn fits_a_phone(c: &Client, page: &str) {
    c.set_window_size(390, 844).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let v = c
        .execute(
            "return [document.documentElement.scrollWidth, window.innerWidth];",
            vec![],
        )
        .await
        .unwrap();
    let (scroll, inner) = (v[0].as_i64().unwrap(), v[1].as_i64().unwrap());
    if scroll > inner + 1 {
        // Name the elements that stick out, innermost first.
        let wide = c
            .execute(
                "return [...document.querySelectorAll('body *')] \
                   .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 \
                     && ![...e.children].some(k => k.getBoundingClientRect().right > window.innerWidth + 1)) \
                   .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));",
                vec![],
            )
            .await
            .unwrap();
        panic!("{page} scrolls sideways on a phone: {scroll} > {inner}: {wide}");
    }
}

/// One test, one browser: the pages, then the playground (two Chromium
/// sessions in parallel starve a 2-core machine).
#[tokio::test]
async fn the_pages_and_the_playground_work_in_chromium() {
    let Some(driver) = start_driver().await else {
        return;
    };
    // A spin in the playground is 24 frames: room for it in the minute.
    let app = TestApp::spawn_rendering(real_renderer(), |c| c.playground.per_minute = 120).await;
    every_page_renders_with_its_images_on_desktop_and_phone(&driver, &app).await;
    the_playground_finds_a_model_by_typing_and_shows_its_render(&driver, &app).await;
    a_person_signs_up_makes_a_key_approves_a_device_and_buys_a_pack(&driver, &app).await;
}

async fn fill(c: &Client, id: &str, text: &str) {
    let input = c.find(Locator::Id(id)).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn text_of(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Both sizes of a page for people: checked, then photographed.
async fn check_page(c: &Client, base: &str, page: &str, name: &str) {
    only_own_origin(c, base, page).await;
    no_console_errors(c, page).await;
    shoot(c, &format!("{name}-desktop")).await;
    fits_a_phone(c, page).await;
    shoot(c, &format!("{name}-phone")).await;
    c.set_window_size(1280, 900).await.unwrap();
}

/// The full URL of the `start` link (`/verify?token=`) in the newest
/// outbox message to `to` (quoted-printable soft breaks undone).
fn outbox_link(app: &TestApp, to: &str, start: &str) -> String {
    let outbox = app.config.mail.outbox.clone().unwrap();
    let mut mails: Vec<_> = std::fs::read_dir(&outbox)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.metadata().unwrap().modified().unwrap(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .filter(|(_, m)| m.contains(&format!("To: {to}")) && m.contains("token"))
        .collect();
    mails.sort_by_key(|(t, _)| *t);
    let (_, mail) = mails.pop().unwrap_or_else(|| panic!("no mail to {to}"));
    let mail = mail.replace("=\r\n", "").replace("=3D", "=");
    let at = mail
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {mail}"));
    let path = &mail[at..];
    let path = &path[..path.find(char::is_whitespace).unwrap_or(path.len())];
    format!("{}{path}", app.base_url)
}

/// Issue 16's web flows, as a person does them: sign up, verify the email
/// through the mailed link, create a key,
/// approve a command line's device code, buy a pack in the sandbox and see
/// the balance rise.
async fn a_person_signs_up_makes_a_key_approves_a_device_and_buys_a_pack(
    driver: &Driver,
    app: &TestApp,
) {
    let base = app.base_url.clone();
    let c = browser(driver).await;
    c.set_window_size(1280, 900).await.unwrap();
    c.goto(&format!("{base}/signup")).await.unwrap();
    fill(&c, "email", "browser@example.com").await;
    fill(&c, "password", "a long browser passphrase").await;
    click(&c, "form.auth-form button[type=submit]").await;
    wait_until(
        &c,
        "return location.pathname === '/dashboard';",
        30,
        "the dashboard",
    )
    .await;
    // Signed in, unverified: no credits until the mailed link is opened.
    assert_eq!(text_of(&c, "#balance-credits").await, "0");
    assert!(
        text_of(&c, "#verify-email")
            .await
            .contains("browser@example.com"),
        "the dashboard says where the link went"
    );
    check_page(&c, &base, "/dashboard", "dashboard-unverified").await;
    let link = outbox_link(app, "browser@example.com", "/verify?token=");
    c.goto(&link).await.unwrap();
    wait_until(
        &c,
        "return document.readyState === 'complete' && document.body.innerText.includes('Your email is verified');",
        30,
        "the verified page",
    )
    .await;
    check_page(&c, &base, "/verify", "verified").await;
    c.goto(&format!("{base}/dashboard")).await.unwrap();
    wait_until(
        &c,
        "return document.readyState === 'complete' && !!document.getElementById('balance-credits') && !document.getElementById('verify-email');",
        30,
        "the verified dashboard",
    )
    .await;
    assert_eq!(text_of(&c, "#balance-credits").await, "100");
    check_page(&c, &base, "/dashboard", "dashboard").await;

    // A key with a name and chosen scopes, shown once.
    fill(&c, "key-name", "Browser key").await;
    click(&c, "form[action='/dashboard/keys'] button[type=submit]").await;
    wait_until(
        &c,
        "return !!document.getElementById('new-key-value');",
        30,
        "the new key",
    )
    .await;
    let key = text_of(&c, "#new-key-value").await;
    assert!(key.starts_with("vis_"), "{key}");
    let r = app.get_with_key("/api/v1/account", &key).await;
    assert_eq!(r.status(), 200);
    // Redirected after the POST: the address is the dashboard's, not the
    // form's (which answers only POST), and holds no secret.
    let url = c.current_url().await.unwrap();
    assert_eq!(url.path(), "/dashboard", "{url}");
    assert!(!url.as_str().contains(&key[4..]), "{url}");
    check_page(&c, &base, "/dashboard", "dashboard-new-key").await;
    // A reload shows the key no more and creates no other.
    c.refresh().await.unwrap();
    wait_until(
        &c,
        "return document.readyState === 'complete' && !document.getElementById('new-key-value');",
        30,
        "the reloaded dashboard without the key",
    )
    .await;
    let rows: i64 = c
        .execute(
            "return [...document.querySelectorAll('#keys tbody tr')].filter(r => r.innerText.includes('Browser key')).length;",
            vec![],
        )
        .await
        .unwrap()
        .as_i64()
        .unwrap();
    assert_eq!(rows, 1, "one key, however often the page is reloaded");

    // A command line asks for a key; the person approves its code.
    let code: serde_json::Value = app
        .client
        .post(app.url("/api/auth/device/code"))
        .json(&serde_json::json!({ "client_name": "terminal" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    c.goto(code["verification_uri_complete"].as_str().unwrap())
        .await
        .unwrap();
    wait_until(
        &c,
        "return !!document.getElementById('approve');",
        30,
        "the approve button",
    )
    .await;
    check_page(&c, &base, "/device", "device-approve").await;
    click(&c, "#approve").await;
    wait_until(
        &c,
        "return document.body.innerText.includes('was approved');",
        30,
        "the approval",
    )
    .await;
    assert!(
        text_of(&c, "#return-to-terminal")
            .await
            .contains("Return to your terminal"),
        "the approved page sends the person back to the terminal"
    );
    check_page(&c, &base, "/device", "device-approved").await;
    let token = app
        .client
        .post(app.url("/api/auth/device/token"))
        .json(&serde_json::json!({ "device_code": code["device_code"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(token.status(), 200, "the device gets its key");

    // A pack, bought on the sandbox's payment page.
    c.goto(&format!("{base}/dashboard/credits")).await.unwrap();
    wait_until(&c, ALL_IMAGES_LOADED, 30, "the credits page").await;
    check_page(&c, &base, "/dashboard/credits", "credits").await;
    click(&c, "button[data-pack='5000']").await;
    wait_until(
        &c,
        "return location.pathname.startsWith('/billing/sandbox/checkout/');",
        30,
        "the payment page",
    )
    .await;
    assert!(text_of(&c, ".test-banner").await.contains("Test payment"));
    check_page(&c, &base, "/billing/sandbox/checkout", "sandbox-checkout").await;
    click(&c, "#pay").await;
    wait_until(
        &c,
        "return !!document.getElementById('purchase-done');",
        30,
        "the return to the credits page",
    )
    .await;
    assert_eq!(text_of(&c, "#balance-credits").await, "5,100");
    check_page(&c, &base, "/dashboard/credits", "credits-paid").await;
    c.goto(&format!("{base}/dashboard")).await.unwrap();
    wait_until(&c, ALL_IMAGES_LOADED, 30, "the dashboard").await;
    assert_eq!(text_of(&c, "#balance-credits").await, "5,100");

    // The operator page: granted by the CLI, a node registered by hand;
    // the page's script takes over and keeps the numbers live.
    app.cli(&["accounts", "operator", "--email", "browser@example.com"])
        .await
        .unwrap();
    let out = app.cli(&["nodes", "add", "gpu-east-1"]).await.unwrap();
    let token = out.lines().last().unwrap().to_owned();
    let r = app
        .client
        .post(format!("{base}{}/register", vis_protocol::nodes::NODE_API))
        .bearer_auth(&token)
        .json(&vis_protocol::nodes::NodeReport {
            slots: 4,
            adapter: "NVIDIA L4 (Vulkan)".into(),
            in_flight: vec![],
        })
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    c.goto(&format!("{base}/dashboard")).await.unwrap();
    click(&c, "#nav-operator").await;
    wait_until(
        &c,
        "return location.pathname === '/dashboard/operator' && \
         document.getElementById('farm-live').dataset.state === 'live';",
        30,
        "the operator page",
    )
    .await;
    assert!(text_of(&c, "#nodes-rows").await.contains("gpu-east-1"));
    // The refresh (every 5 s) rewrites the numbers without breaking them.
    wait_until(
        &c,
        "return document.getElementById('farm-updated').textContent.includes('updated');",
        30,
        "a refresh",
    )
    .await;
    assert_eq!(text_of(&c, "[data-farm='capacity.node_slots']").await, "4");
    check_page(&c, &base, "/dashboard/operator", "operator").await;
    c.close().await.unwrap();
}

async fn every_page_renders_with_its_images_on_desktop_and_phone(driver: &Driver, app: &TestApp) {
    let base = app.base_url.clone();
    let c = browser(driver).await;
    for (path, name, ready) in [
        ("/", "home", ALL_IMAGES_LOADED),
        ("/playground", "playground", ALL_IMAGES_LOADED),
        ("/pricing", "pricing", ALL_IMAGES_LOADED),
        (
            "/docs",
            "docs",
            "return document.body.innerText.includes('getImage') || document.body.innerText.includes('One image by make');",
        ),
        ("/docs/embeds", "embeds", ALL_IMAGES_LOADED),
        (
            "/docs/delivery-urls",
            "guide-delivery-urls",
            ALL_IMAGES_LOADED,
        ),
        ("/docs/sdks", "guide-sdks", ALL_IMAGES_LOADED),
        ("/docs/cli", "guide-cli", ALL_IMAGES_LOADED),
        (
            "/docs/device-login",
            "guide-device-login",
            ALL_IMAGES_LOADED,
        ),
        ("/docs/mcp", "guide-mcp", ALL_IMAGES_LOADED),
        ("/docs/errors", "errors", ALL_IMAGES_LOADED),
        ("/signin", "signin", ALL_IMAGES_LOADED),
        ("/signup", "signup", ALL_IMAGES_LOADED),
        ("/reset", "reset", ALL_IMAGES_LOADED),
        ("/device", "device", ALL_IMAGES_LOADED),
    ] {
        c.set_window_size(1280, 900).await.unwrap();
        c.goto(&format!("{base}{path}")).await.unwrap();
        // Cold renders of the examples take a moment on a CPU renderer.
        wait_until(&c, ready, 120, &format!("{path} to be ready")).await;
        let images = c
            .execute("return document.images.length;", vec![])
            .await
            .unwrap();
        if path == "/" || path == "/playground" {
            assert!(images.as_i64().unwrap() >= 1, "{path} shows images");
        }
        only_own_origin(&c, &base, path).await;
        no_console_errors(&c, path).await;
        shoot(&c, &format!("{name}-desktop")).await;
        fits_a_phone(&c, path).await;
        wait_until(&c, ready, 60, &format!("{path} on a phone")).await;
        shoot(&c, &format!("{name}-phone")).await;
    }
    // The HTML 404 page a browser's navigation gets for an address the
    // site does not have; the console's one complaint is that status.
    c.set_window_size(1280, 900).await.unwrap();
    c.goto(&format!("{base}/no/such/page")).await.unwrap();
    wait_until(
        &c,
        "return document.querySelector('.error-status') !== null;",
        30,
        "the 404 page",
    )
    .await;
    assert_eq!(text_of(&c, ".error-status").await, "404");
    assert_eq!(text_of(&c, ".error-card h1").await, "Page not found");
    only_own_origin(&c, &base, "the 404 page").await;
    if let Ok(Value::Array(entries)) = c.issue_cmd(Logs).await {
        for e in entries.iter().filter(|e| e["level"] == "SEVERE") {
            let message = e["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("/no/such/page") && message.contains("404"),
                "the 404 page: console error {e:?}"
            );
        }
    }
    shoot(&c, "not-found-desktop").await;
    fits_a_phone(&c, "the 404 page").await;
    shoot(&c, "not-found-phone").await;
    c.close().await.unwrap();
}

async fn the_playground_finds_a_model_by_typing_and_shows_its_render(
    driver: &Driver,
    app: &TestApp,
) {
    let c = browser(driver).await;
    c.goto(&format!("{}/playground", app.base_url))
        .await
        .unwrap();
    wait_until(&c, ALL_IMAGES_LOADED, 120, "the first render").await;
    let input = c.find(Locator::Id("pg-vehicle")).await.unwrap();
    input.click().await.unwrap();
    input.clear().await.unwrap();
    input.send_keys("honda civ").await.unwrap();
    let option = match c
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css("#pg-vehicle-list [role=option]"))
        .await
    {
        Ok(option) => option,
        Err(e) => {
            let state = c
                .execute(
                    "const l = document.getElementById('pg-vehicle-list'); \
                     return [document.activeElement && document.activeElement.id, l.hidden, l.innerHTML, \
                             document.getElementById('pg-vehicle').value];",
                    vec![],
                )
                .await;
            panic!("no type-ahead suggestions ({e}): {state:?}");
        }
    };
    let label = option.text().await.unwrap();
    assert!(label.to_lowercase().contains("civic"), "{label}");
    option.click().await.unwrap();
    c.find(Locator::Id("pg-submit"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_until(
        &c,
        "const i = document.getElementById('pg-image'); \
         return i.src.includes('model=civic') && i.complete && i.naturalWidth > 0 \
           && document.getElementById('pg-stage').getAttribute('aria-busy') === 'false' \
           && document.getElementById('pg-loading').hidden;",
        120,
        "the Civic's render",
    )
    .await;
    only_own_origin(&c, &app.base_url, "/playground").await;
    no_console_errors(&c, "/playground").await;
    c.execute("window.scrollTo(0, 0);", vec![]).await.unwrap();
    shoot(&c, "playground-civic").await;

    // AVIF: the format control has it, and Chromium decodes what the
    // service encodes (a real decoder, not a header check).
    c.execute(
        "document.querySelector('input[name=format][value=avif]').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_until(
        &c,
        "const i = document.getElementById('pg-image'); \
         return i.src.includes('format=avif') && i.complete && i.naturalWidth > 0 \
           && document.getElementById('pg-loading').hidden;",
        120,
        "the Civic as AVIF",
    )
    .await;
    no_console_errors(&c, "/playground").await;
    c.execute(
        "document.querySelector('.segmented-formats').scrollIntoView({block: 'center'});",
        vec![],
    )
    .await
    .unwrap();
    shoot(&c, "playground-avif").await;
    c.execute(
        "document.querySelector('input[name=format][value=webp]').click(); window.scrollTo(0, 0);",
        vec![],
    )
    .await
    .unwrap();

    // Background and framing: the studio backdrop behind the vehicle,
    // cropped to it; the image is opaque (read back through a canvas).
    c.execute(
        "document.querySelector('input[name=background][value=studio]').click(); \
         document.getElementById('pg-trim').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_until(
        &c,
        "const i = document.getElementById('pg-image'); \
         if (!(i.src.includes('background=studio') && i.src.includes('trim=true') && i.complete \
               && i.naturalWidth > 0 && document.getElementById('pg-loading').hidden)) return false; \
         const k = document.createElement('canvas'); k.width = i.naturalWidth; k.height = i.naturalHeight; \
         const x = k.getContext('2d'); x.drawImage(i, 0, 0); \
         return x.getImageData(1, 1, 1, 1).data[3] === 255;",
        120,
        "the Civic on the studio backdrop, cropped",
    )
    .await;
    no_console_errors(&c, "/playground").await;
    c.execute(
        "document.querySelector('.segmented-backgrounds').scrollIntoView({block: 'center'});",
        vec![],
    )
    .await
    .unwrap();
    shoot(&c, "playground-studio").await;
    c.execute(
        "document.querySelector('input[name=background][value=transparent]').click(); \
         document.getElementById('pg-trim').click(); window.scrollTo(0, 0);",
        vec![],
    )
    .await
    .unwrap();

    // The angle slider picks a turntable angle: the image follows.
    c.execute(
        "const a = document.getElementById('pg-angle'); a.value = '60'; \
         a.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![],
    )
    .await
    .unwrap();
    wait_until(
        &c,
        "const i = document.getElementById('pg-image'); \
         return i.src.includes('angle=60') && !i.src.includes('view=') && i.complete \
           && i.naturalWidth > 0 && document.getElementById('pg-loading').hidden \
           && document.getElementById('pg-angle-value').textContent === '60°';",
        120,
        "the Civic at 60 degrees",
    )
    .await;
    shoot(&c, "playground-angle").await;
    // The spin button loads the 24 angles and turns the vehicle.
    click(&c, "#pg-spin").await;
    wait_until(
        &c,
        "const i = document.getElementById('pg-image'); \
         return document.getElementById('pg-caption').textContent.includes('360') \
           && i.src.includes('angle=') && i.complete && i.naturalWidth > 0 \
           && document.getElementById('pg-curl').textContent.includes('/api/v1/images/spin?');",
        300,
        "the Civic's spin",
    )
    .await;
    no_console_errors(&c, "/playground").await;
    shoot(&c, "playground-spin").await;
    c.close().await.unwrap();
}
