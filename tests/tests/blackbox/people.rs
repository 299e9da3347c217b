//! People on the web (issue 16) against the real server over HTTP: sign-up
//! and sign-in with the session cookie, CSRF on every form, sign-in limits,
//! password reset through the mail outbox, the dashboard's keys and
//! partner secrets, device approval by a signed-in person, the signed-in
//! grant of /images/car.png, and buying a pack through the sandbox
//! provider and the signed webhook (credits land once, whatever retries).

use std::collections::BTreeMap;

use serde_json::{Value, json};
use vis_tests::{TestApp, header, problem, real_renderer};

/// A browser's cookie jar over the suite's client (no redirects followed).
pub(crate) struct Browser<'a> {
    app: &'a TestApp,
    cookies: BTreeMap<String, String>,
}

impl<'a> Browser<'a> {
    pub(crate) fn new(app: &'a TestApp) -> Browser<'a> {
        Browser {
            app,
            cookies: BTreeMap::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, r: &reqwest::Response) {
        for v in r.headers().get_all("set-cookie") {
            let text = v.to_str().unwrap();
            let (pair, attrs) = text.split_once(';').unwrap_or((text, ""));
            let (k, val) = pair.split_once('=').unwrap();
            if attrs.contains("Max-Age=0") {
                self.cookies.remove(k);
            } else {
                self.cookies.insert(k.to_owned(), val.to_owned());
            }
        }
    }

    pub(crate) async fn get(&mut self, path: &str) -> reqwest::Response {
        let r = self
            .app
            .client
            .get(self.app.url(path))
            .header("cookie", self.cookie_header())
            .send()
            .await
            .unwrap();
        self.keep(&r);
        r
    }

    /// The page at `path` and the CSRF token its forms carry.
    pub(crate) async fn page(&mut self, path: &str) -> (u16, String, String) {
        let r = self.get(path).await;
        let status = r.status().as_u16();
        let html = r.text().await.unwrap();
        let csrf = html
            .split("name=\"csrf\" value=\"")
            .nth(1)
            .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
            .unwrap_or_default();
        (status, html, csrf)
    }

    pub(crate) async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let r = self
            .app
            .client
            .post(self.app.url(path))
            .header("cookie", self.cookie_header())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .unwrap();
        self.keep(&r);
        r
    }

    /// Posts a form from the page at `page`, with its CSRF token.
    pub(crate) async fn submit(
        &mut self,
        page: &str,
        action: &str,
        fields: &[(&str, &str)],
    ) -> reqwest::Response {
        let (_, _, csrf) = self.page(page).await;
        let mut all = vec![("csrf", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post(action, &all).await
    }

    pub(crate) async fn sign_up(&mut self, email: &str, password: &str) -> reqwest::Response {
        self.submit(
            "/signup",
            "/signup",
            &[("email", email), ("password", password)],
        )
        .await
    }

    /// Signs up, then opens the verification link of the mail in the
    /// outbox, which grants the free credits.
    async fn sign_up_and_verify(&mut self, email: &str, password: &str) -> reqwest::Response {
        let r = self.sign_up(email, password).await;
        assert_eq!(r.status(), 303, "sign-up of {email}");
        let link = outbox_link(self.app, email, "/verify?token=");
        let (status, html, _) = self.page(&link).await;
        assert_eq!(status, 200, "{html}");
        assert!(html.contains("Your email is verified"), "{html}");
        r
    }
}

pub(crate) const PASSWORD: &str = "correct horse battery";

#[tokio::test]
async fn sign_up_signs_in_and_the_free_credits_land_once_the_email_is_verified() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    let r = b.sign_up("  Ada@Example.com ", PASSWORD).await;
    assert_eq!(r.status(), 303);
    assert_eq!(header(&r, "location"), "/dashboard");
    let set: Vec<String> = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    let session = set.iter().find(|c| c.starts_with("vis_session=")).unwrap();
    for attr in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(session.contains(attr), "{session}");
    }
    assert!(
        !session.contains("Secure"),
        "plain-http deployment: {session}"
    );
    // Signed in, unverified: no credits yet, and the dashboard says why.
    let (status, html, _) = b.page("/dashboard").await;
    assert_eq!(status, 200);
    assert!(html.contains("ada@example.com"), "the email is normalised");
    assert!(html.contains(">0</strong> credits"), "{html}");
    assert!(html.contains("id=\"verify-email\""), "{html}");
    assert!(html.contains("action=\"/verify/resend\""), "{html}");
    assert_eq!(app.account_json("ada@example.com").await["credits"], 0);
    // The mailed link grants them, once.
    let link = outbox_link(&app, "ada@example.com", "/verify?token=");
    let mail = outbox_mails(&app, "ada@example.com").pop().unwrap();
    assert!(mail.contains("within 24 hours"), "{mail}");
    assert!(mail.contains(&format!("{}{link}", app.base_url)), "{mail}");
    let stranger = app.get(&link).await;
    assert_eq!(stranger.status(), 200, "the link needs no session");
    assert!(
        stranger
            .text()
            .await
            .unwrap()
            .contains("Your email is verified")
    );
    let (status, html, _) = b.page("/dashboard").await;
    assert_eq!(status, 200);
    assert!(html.contains(">100</strong> credits"), "{html}");
    assert!(!html.contains("id=\"verify-email\""), "{html}");
    // A second click does nothing more.
    let again = b.get(&link).await;
    assert_eq!(again.status(), 200);
    assert!(again.text().await.unwrap().contains("verified already"));
    let account = app.account_json("ada@example.com").await;
    assert_eq!(account["credits"], 100);
    let grants: Vec<&Value> = account["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "grant")
        .collect();
    assert_eq!(grants.len(), 1, "{account}");
    assert_eq!(grants[0]["delta"], 100);
    // A HEAD (a link checker) and a made-up token change nothing.
    let head = app.client.head(app.url(&link)).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(app.get("/verify?token=nonsense").await.status(), 410);
    assert_eq!(app.get("/verify").await.status(), 410);
    // Once verified, resending sends nothing and goes to the dashboard.
    let before = outbox_mails(&app, "ada@example.com").len();
    let r = b.submit("/dashboard", "/verify/resend", &[]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(outbox_mails(&app, "ada@example.com").len(), before);
    // The dashboard is never cached.
    let r = b.get("/dashboard").await;
    assert_eq!(header(&r, "cache-control"), "no-store");
    // The same email again is refused on the form, naming the field.
    let mut other = Browser::new(&app);
    let r = other.sign_up("ada@example.com", PASSWORD).await;
    assert_eq!(r.status(), 400);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("An account with this email exists")
    );
    // A short password and a bad email are refused, and nothing is created.
    let r = other.sign_up("bob@example.com", "short").await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("at least 10 characters"));
    let r = other.sign_up("bob-at-example.com", PASSWORD).await;
    assert_eq!(r.status(), 400);
    assert_eq!(other.get("/dashboard").await.status(), 303);
}

#[tokio::test]
async fn links_opened_at_once_and_twice_grant_the_free_credits_exactly_once() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    b.sign_up("twice@example.com", PASSWORD).await;
    let first = outbox_link(&app, "twice@example.com", "/verify?token=");
    // A second link (resent from the dashboard); both are live.
    let r = b.submit("/dashboard", "/verify/resend", &[]).await;
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("Check your email"));
    let second = outbox_link(&app, "twice@example.com", "/verify?token=");
    assert_ne!(first, second);
    // A second resend within the minute is refused.
    let r = b.submit("/dashboard", "/verify/resend", &[]).await;
    assert_eq!(r.status(), 429);
    // Twenty clicks on the two links at once: one grant.
    let clicks = (0..20).map(|i| {
        let url = app.url(if i % 2 == 0 { &first } else { &second });
        let client = app.client.clone();
        async move { client.get(url).send().await.unwrap().status().as_u16() }
    });
    let statuses = futures_join_all(clicks).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let account = app.account_json("twice@example.com").await;
    assert_eq!(account["credits"], 100, "{account}");
    let grants = account["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "grant")
        .count();
    assert_eq!(grants, 1, "{account}");
}

/// Runs the futures at once (tokio tasks), in order of their results.
async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<u16>
where
    F: std::future::Future<Output = u16> + Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test]
async fn an_expired_verification_link_grants_nothing_and_a_new_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = control_plane::Config::for_tests(dir.path());
    config.signup.verify_link_secs = 1;
    let app = TestApp::spawn_with(config, dir).await;
    let mut b = Browser::new(&app);
    b.sign_up("late@example.com", PASSWORD).await;
    let link = outbox_link(&app, "late@example.com", "/verify?token=");
    assert!(
        outbox_mails(&app, "late@example.com")[0].contains("within 1 second"),
        "the mail says how long the link works"
    );
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let r = b.get(&link).await;
    assert_eq!(r.status(), 410);
    assert!(r.text().await.unwrap().contains("This link has expired"));
    assert_eq!(app.account_json("late@example.com").await["credits"], 0);
    let (_, html, _) = b.page("/dashboard").await;
    assert!(
        html.contains("id=\"verify-email\""),
        "still unverified: {html}"
    );
}

#[tokio::test]
async fn sign_ups_are_limited_per_client_address_and_per_email_domain_a_day() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = control_plane::Config::for_tests(dir.path());
    config.signup.per_address_per_day = 3;
    config.signup.per_domain_per_day = 2;
    let app = TestApp::spawn_with(config, dir).await;
    // Two at one domain, then the domain is full for the day.
    for email in ["a1@one.example", "a2@one.example"] {
        assert_eq!(
            Browser::new(&app).sign_up(email, PASSWORD).await.status(),
            303
        );
    }
    let r = Browser::new(&app).sign_up("a3@one.example", PASSWORD).await;
    assert_eq!(r.status(), 429);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("Too many sign-ups with addresses at one.example today")
    );
    // A refused attempt did not count against the address: one more
    // elsewhere is the address's third, then the address is full.
    assert_eq!(
        Browser::new(&app)
            .sign_up("b1@two.example", PASSWORD)
            .await
            .status(),
        303
    );
    let r = Browser::new(&app).sign_up("b2@two.example", PASSWORD).await;
    assert_eq!(r.status(), 429);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("Too many sign-ups from your network today")
    );
    // Nothing was created for the refused ones; an operator still can.
    for email in ["a3@one.example", "b2@two.example"] {
        assert!(
            app.cli(&["accounts", "show", "--email", email])
                .await
                .is_err()
        );
    }
    app.cli(&["accounts", "create", "--email", "b2@two.example"])
        .await
        .unwrap();
    assert_eq!(app.account_json("b2@two.example").await["credits"], 100);
}

#[tokio::test]
async fn every_form_needs_its_csrf_token_and_this_site_as_origin() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    b.page("/signup").await;
    // No token, a wrong token, or a token without its cookie: 403.
    let r = b
        .post(
            "/signup",
            &[("email", "eve@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status(), 403);
    let r = b
        .post(
            "/signup",
            &[
                ("csrf", "0".repeat(64).as_str()),
                ("email", "eve@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status(), 403);
    let (_, _, csrf) = b.page("/signup").await;
    let mut stranger = Browser::new(&app);
    let r = stranger
        .post(
            "/signup",
            &[
                ("csrf", csrf.as_str()),
                ("email", "eve@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status(), 403, "a token is bound to its browser's cookie");
    // The right token sent from another site is refused too.
    let body = format!("csrf={csrf}&email=eve%40example.com&password=correct+horse+battery");
    let r = app
        .client
        .post(app.url("/signup"))
        .header("cookie", b.cookie_header())
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", "https://evil.example")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(
        app.cli(&["accounts", "show", "--email", "eve@example.com"])
            .await
            .is_err()
    );
    // Sign-out needs it as well: a forged sign-out leaves the session alone.
    b.sign_up("eve@example.com", PASSWORD).await;
    assert_eq!(b.post("/signout", &[]).await.status(), 403);
    assert_eq!(b.get("/dashboard").await.status(), 200);
    let r = b.submit("/dashboard", "/signout", &[]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(b.get("/dashboard").await.status(), 303, "signed out");
}

#[tokio::test]
async fn sign_in_checks_the_password_and_is_limited_per_email() {
    let app = TestApp::spawn().await;
    Browser::new(&app)
        .sign_up("grace@example.com", PASSWORD)
        .await;
    let mut b = Browser::new(&app);
    let r = b
        .submit(
            "/signin",
            "/signin",
            &[
                ("email", "grace@example.com"),
                ("password", "wrong password!"),
                ("next", "/dashboard/credits"),
            ],
        )
        .await;
    assert_eq!(r.status(), 401);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("The email or the password is wrong."),
        "{html}"
    );
    // An unknown email reads the same.
    let r = b
        .submit(
            "/signin",
            "/signin",
            &[("email", "nobody@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status(), 401);
    let r = b
        .submit(
            "/signin",
            "/signin",
            &[
                ("email", "GRACE@example.com"),
                ("password", PASSWORD),
                ("next", "/dashboard/credits"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(header(&r, "location"), "/dashboard/credits");
    // next never leaves the site.
    let mut c = Browser::new(&app);
    let r = c
        .submit(
            "/signin",
            "/signin",
            &[
                ("email", "grace@example.com"),
                ("password", PASSWORD),
                ("next", "//evil.example/"),
            ],
        )
        .await;
    assert_eq!(header(&r, "location"), "/dashboard");
    // Five attempts a minute per email address, then 429 even with the right password.
    let mut d = Browser::new(&app);
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let r = d
            .submit(
                "/signin",
                "/signin",
                &[
                    ("email", "grace@example.com"),
                    ("password", "not the password"),
                ],
            )
            .await;
        statuses.push(r.status().as_u16());
    }
    assert_eq!(statuses.last(), Some(&429), "{statuses:?}");
    let r = d
        .submit(
            "/signin",
            "/signin",
            &[("email", "grace@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status(), 429);
}

/// `next` as a browser reads it: what it cleans out of a URL (tabs,
/// newlines) or turns into a slash (`\`) never sends a signed-in person to
/// another site, and a value a header cannot carry is refused like any bad
/// `next`, not answered with a broken redirect.
#[tokio::test]
async fn next_never_leaves_the_site_after_browser_url_cleaning() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    assert_eq!(b.sign_up("heidi@example.com", PASSWORD).await.status(), 303);
    for next in [
        "/%09/127.0.0.1:18099/landed.html",
        "/%0a/x",
        "/%0d/127.0.0.1:18099/",
        "%09//127.0.0.1:18099/",
        "/%5c127.0.0.1:18099/",
        "/%20/127.0.0.1:18099/",
        "/%e3%80%80/127.0.0.1:18099/",
    ] {
        let r = b.get(&format!("/signin?next={next}")).await;
        assert_eq!(r.status(), 303, "{next}");
        assert_eq!(header(&r, "location"), "/dashboard", "{next}");
    }
    let r = b.get("/signin?next=%2Fdashboard%2Fcredits").await;
    assert_eq!(header(&r, "location"), "/dashboard/credits");
}

/// The newest message in the outbox, and the reset link in it.
fn reset_link(app: &TestApp, to: &str) -> String {
    outbox_link(app, to, "/reset?token=")
}

/// Every message to `to` in the outbox, oldest first, with quoted-printable
/// soft breaks and `=3D` undone.
fn outbox_mails(app: &TestApp, to: &str) -> Vec<String> {
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
        .filter(|(_, m)| m.contains(&format!("To: {to}")))
        .collect();
    mails.sort_by_key(|(t, _)| *t);
    mails
        .into_iter()
        .map(|(_, m)| m.replace("=\r\n", "").replace("=3D", "="))
        .collect()
}

/// The path of the `start` link (`/verify?token=`) in the newest message
/// to `to` that has one.
fn outbox_link(app: &TestApp, to: &str, start: &str) -> String {
    let mails = outbox_mails(app, to);
    let mail = mails
        .iter()
        .rev()
        .find(|m| m.contains(start))
        .unwrap_or_else(|| panic!("no mail to {to} with {start}: {mails:?}"));
    let at = mail.find(start).unwrap();
    let link = &mail[at..];
    link[..link.find(|c: char| c.is_whitespace()).unwrap_or(link.len())].to_owned()
}

#[tokio::test]
async fn a_reset_link_by_mail_sets_the_password_once_and_signs_out_everywhere() {
    let app = TestApp::spawn().await;
    // An account the operator made has no password until reset.
    app.cli(&[
        "accounts",
        "create",
        "--email",
        "hopper@example.com",
        "--credits",
        "7",
    ])
    .await
    .unwrap();
    let mut old = Browser::new(&app);
    let mut b = Browser::new(&app);
    let r = b
        .submit("/reset", "/reset", &[("email", "hopper@example.com")])
        .await;
    assert_eq!(r.status(), 200);
    let sent = r.text().await.unwrap();
    assert!(sent.contains("Check your email"));
    // An unknown address gets the same answer and no mail.
    let r = b
        .submit("/reset", "/reset", &[("email", "nobody@example.com")])
        .await;
    assert_eq!(r.status(), 200);
    let link = reset_link(&app, "hopper@example.com");
    let token = link.trim_start_matches("/reset?token=").to_owned();
    let (status, html, _) = b.page(&link).await;
    assert_eq!(status, 200);
    assert!(html.contains("Choose a new password"));
    let r = b
        .submit(
            &link,
            "/reset",
            &[("token", token.as_str()), ("password", "short")],
        )
        .await;
    assert_eq!(r.status(), 400);
    let r = b
        .submit(
            &link,
            "/reset",
            &[("token", token.as_str()), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(b.get("/dashboard").await.status(), 200);
    // Used once: the link is gone.
    assert_eq!(b.get(&link).await.status(), 410);
    // The new password signs in; an earlier session of the account ended.
    let r = old
        .submit(
            "/signin",
            "/signin",
            &[("email", "hopper@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status(), 303);
    let again = b
        .submit("/reset", "/reset", &[("email", "hopper@example.com")])
        .await;
    assert_eq!(again.status(), 200);
    let second = reset_link(&app, "hopper@example.com");
    let token2 = second.trim_start_matches("/reset?token=").to_owned();
    let r = b
        .submit(
            &second,
            "/reset",
            &[
                ("token", token2.as_str()),
                ("password", "another passphrase"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        old.get("/dashboard").await.status(),
        303,
        "signed out everywhere"
    );
}

#[tokio::test]
async fn the_dashboard_makes_keys_with_chosen_scopes_shown_once_and_revokes_them() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    b.sign_up("lin@example.com", PASSWORD).await;
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/keys",
            &[("name", "Reader"), ("scope", "account:read")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, html, _) = b.page(&header(&r, "location")).await;
    let key = html
        .split("id=\"new-key-value\">")
        .nth(1)
        .map(|rest| rest[..rest.find('<').unwrap()].to_owned())
        .expect("the new key is shown");
    assert!(key.starts_with("vis_"), "{key}");
    // Shown once: the next render of the dashboard lists its prefix only.
    let (_, html, _) = b.page("/dashboard").await;
    assert!(!html.contains(&key));
    assert!(html.contains("Reader"));
    // It works with the scopes chosen, and only those.
    let r = app.get_with_key("/api/v1/account", &key).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["data"]["key"]["scopes"], json!(["account:read"]));
    let r = app
        .get_with_key("/api/v1/images/car?make=toyota&model=camry&year=2019", &key)
        .await;
    problem(r, 403).await;
    // No scope at all, or no name, is refused on the page.
    let r = b
        .submit("/dashboard", "/dashboard/keys", &[("name", "Nothing")])
        .await;
    assert_eq!(r.status(), 400);
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/keys",
            &[("name", " "), ("scope", "images:read")],
        )
        .await;
    assert_eq!(r.status(), 400);
    // Revoked from the dashboard: 401 at once.
    let id = body["data"]["key"]["id"].as_str().unwrap().to_owned();
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/keys/revoke",
            &[("key_id", id.as_str())],
        )
        .await;
    assert_eq!(r.status(), 303);
    let r = app.get_with_key("/api/v1/account", &key).await;
    assert_eq!(r.status(), 401);
    // Another account's key cannot be revoked from here.
    let (_, other_key) = app
        .account_with_key("other@example.com", "account:read")
        .await;
    let other: Value = app
        .get_with_key("/api/v1/account", &other_key)
        .await
        .json()
        .await
        .unwrap();
    let other_id = other["data"]["key"]["id"].as_str().unwrap().to_owned();
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/keys/revoke",
            &[("key_id", other_id.as_str())],
        )
        .await;
    assert_eq!(r.status(), 404);
    assert_eq!(
        app.get_with_key("/api/v1/account", &other_key)
            .await
            .status(),
        200
    );
}

/// The "last used" cell of the dashboard's row of key `name`.
fn last_used_of(html: &str, name: &str) -> String {
    let row = html
        .split(&format!("<td>{name}</td>"))
        .nth(1)
        .unwrap_or_else(|| panic!("no row for key {name}"));
    let cell = row.split("key-last-used").nth(1).expect("a last-used cell");
    let text = &cell[cell.find('>').unwrap() + 1..];
    text[..text.find('<').unwrap()].to_owned()
}

#[tokio::test]
async fn the_dashboard_shows_when_each_key_was_last_used() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    b.sign_up("used@example.com", PASSWORD).await;
    let mut keys = Vec::new();
    for name in ["Busy", "Idle"] {
        let r = b
            .submit(
                "/dashboard",
                "/dashboard/keys",
                &[
                    ("name", name),
                    ("scope", "images:read"),
                    ("scope", "account:read"),
                ],
            )
            .await;
        assert_eq!(r.status(), 303);
        let (_, html, _) = b.page(&header(&r, "location")).await;
        keys.push(text_of(&html, "new-key-value").expect("the new key is shown"));
    }
    let (_, html, _) = b.page("/dashboard").await;
    assert!(html.contains("<th>Last used</th>"));
    assert_eq!(last_used_of(&html, "Busy"), "never");
    assert_eq!(last_used_of(&html, "Idle"), "never");

    // One use of the first key, through the key cache's path (a free HEAD
    // of an image), then several through the database's.
    let r = app
        .client
        .head(app.url("/api/v1/images/car?make=toyota&model=camry&year=2019&view=side&color=red"))
        .bearer_auth(&keys[0])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    for _ in 0..3 {
        let r = app.get_with_key("/api/v1/account", &keys[0]).await;
        assert_eq!(r.status(), 200);
    }
    // Written off the request's path: shown within moments.
    let mut shown = String::new();
    for _ in 0..50 {
        let (_, html, _) = b.page("/dashboard").await;
        shown = last_used_of(&html, "Busy");
        if shown != "never" {
            assert_eq!(last_used_of(&html, "Idle"), "never");
            assert!(
                html.contains("key-last-used\" title=\""),
                "the exact time is the cell's title"
            );
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(shown, "just now");
}

/// Every header of a response, as `name: value` lines.
fn all_headers(r: &reqwest::Response) -> String {
    r.headers()
        .iter()
        .map(|(k, v)| format!("{k}: {}\n", v.to_str().unwrap_or("")))
        .collect()
}

/// The text of the element with `id` (up to its first `<`).
fn text_of(html: &str, id: &str) -> Option<String> {
    html.split(&format!("id=\"{id}\">"))
        .nth(1)
        .map(|rest| rest[..rest.find('<').unwrap()].to_owned())
}

#[tokio::test]
async fn dashboard_create_forms_redirect_to_a_page_that_shows_the_secret_once() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    b.sign_up("prg@example.com", PASSWORD).await;
    let count = |listed: &str, what: &str| listed.lines().filter(|l| l.contains(what)).count();

    // A key: 303 to a page (not the form's address, which only takes POST).
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/keys",
            &[("name", "Laptop"), ("scope", "account:read")],
        )
        .await;
    assert_eq!(r.status(), 303, "post/redirect/get");
    let location = header(&r, "location");
    assert!(location.starts_with("/dashboard"), "{location}");
    assert!(!location.starts_with("/dashboard/keys"), "{location}");
    let posted = all_headers(&r);
    let sealed = b
        .cookies
        .get("vis_once")
        .cloned()
        .expect("the show-once cookie");
    let set = posted
        .lines()
        .find(|l| l.starts_with("set-cookie: vis_once="))
        .unwrap();
    for attr in ["HttpOnly", "Path=/dashboard", "Max-Age=120", "SameSite=Lax"] {
        assert!(set.contains(attr), "{set}");
    }
    let r = b.get(&location).await;
    assert_eq!(r.status(), 200, "the redirect lands on a page");
    let shown_headers = all_headers(&r);
    assert!(
        shown_headers.contains("set-cookie: vis_once=; Path=/dashboard; Max-Age=0"),
        "the page that shows it deletes it: {shown_headers}"
    );
    let html = r.text().await.unwrap();
    let key = text_of(&html, "new-key-value").expect("the new key is shown");
    assert!(key.starts_with("vis_"), "{key}");
    assert!(
        !posted.contains(&key) && !posted.contains(&key[4..]),
        "the key is in no URL or header in the clear: {posted}"
    );
    assert_eq!(
        app.get_with_key("/api/v1/account", &key).await.status(),
        200
    );
    // A reload shows it no more and creates nothing.
    for _ in 0..2 {
        let (status, html, _) = b.page(&location).await;
        assert_eq!(status, 200);
        assert!(!html.contains(&key), "shown once");
        assert!(text_of(&html, "new-key-value").is_none());
    }
    let listed = app
        .cli(&["keys", "list", "--email", "prg@example.com"])
        .await
        .unwrap();
    assert_eq!(count(&listed, "Laptop"), 1, "{listed}");
    // The sealed cookie opens for its own session only.
    let mut other = Browser::new(&app);
    let r = other
        .submit(
            "/signin",
            "/signin",
            &[("email", "prg@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status(), 303);
    other.cookies.insert("vis_once".into(), sealed.clone());
    let (status, html, _) = other.page("/dashboard").await;
    assert_eq!(status, 200);
    assert!(!html.contains(&key), "another session cannot open it");
    // A value changed by the browser's side opens nothing.
    b.cookies.insert("vis_once".into(), format!("{sealed}x"));
    let (_, html, _) = b.page("/dashboard").await;
    assert!(!html.contains(&key), "a tampered value shows nothing");

    // A partner secret: the same.
    let r = create_partner_under_the_first_key(&mut b, &html).await;
    assert_eq!(r.status(), 303);
    let location = header(&r, "location");
    assert!(location.starts_with("/dashboard"), "{location}");
    assert!(!location.starts_with("/dashboard/partners"), "{location}");
    let posted = all_headers(&r);
    let (status, html, _) = b.page(&location).await;
    assert_eq!(status, 200);
    let secret = text_of(&html, "new-partner-value").expect("the new secret is shown");
    assert!(secret.len() >= 32, "{secret}");
    assert!(!posted.contains(&secret), "{posted}");
    let (_, html, _) = b.page(&location).await;
    assert!(!html.contains(&secret), "shown once");
    let listed = app
        .cli(&["partners", "list", "--email", "prg@example.com"])
        .await
        .unwrap();
    assert_eq!(count(&listed, "active"), 1, "{listed}");
}

/// The scopes `key` carries, as `GET /api/v1/account` says.
async fn scopes_of(app: &TestApp, key: &str) -> Value {
    let r = app.get_with_key("/api/v1/account", key).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    body["data"]["key"]["scopes"].clone()
}

#[tokio::test]
async fn keys_from_the_dashboard_the_cli_and_device_login_get_the_same_default_scopes() {
    let app = TestApp::spawn().await;
    // The dashboard: the form as a person sends it without touching the
    // boxes (the ones the page checks).
    let mut b = Browser::new(&app);
    b.sign_up("scopes@example.com", PASSWORD).await;
    let (_, html, _) = b.page("/dashboard").await;
    let checked: Vec<String> = html
        .split("<input type=\"checkbox\" name=\"scope\" value=\"")
        .skip(1)
        .filter(|rest| rest[..rest.find('>').unwrap()].contains(" checked"))
        .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
        .collect();
    assert!(!checked.is_empty(), "the form checks some scopes");
    let mut fields = vec![("name", "From the dashboard")];
    fields.extend(checked.iter().map(|s| ("scope", s.as_str())));
    let r = b.submit("/dashboard", "/dashboard/keys", &fields).await;
    assert_eq!(r.status(), 303);
    let (_, html, _) = b.page(&header(&r, "location")).await;
    let dashboard_key = text_of(&html, "new-key-value").expect("the new key is shown");
    let from_dashboard = scopes_of(&app, &dashboard_key).await;

    // The operator command without --scopes.
    let out = app
        .cli(&[
            "keys",
            "create",
            "--email",
            "scopes@example.com",
            "--name",
            "cli",
        ])
        .await
        .unwrap();
    let cli_key = out.lines().last().unwrap().trim().to_owned();
    let from_cli = scopes_of(&app, &cli_key).await;

    // Device login, approved by the operator.
    let code: Value = app
        .client
        .post(app.url("/api/auth/device/code"))
        .json(&json!({ "client_name": "terminal" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let user_code = code["user_code"].as_str().unwrap();
    app.cli(&[
        "device",
        "approve",
        user_code,
        "--email",
        "scopes@example.com",
    ])
    .await
    .unwrap();
    let token: Value = app
        .client
        .post(app.url("/api/auth/device/token"))
        .json(&json!({ "device_code": code["device_code"] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let device_key = token["access_token"].as_str().expect("a key").to_owned();
    let from_device = scopes_of(&app, &device_key).await;
    let said: Vec<&str> = token["scope"].as_str().unwrap().split(' ').collect();

    assert_eq!(from_dashboard, from_cli, "dashboard and CLI");
    assert_eq!(from_cli, from_device, "CLI and device login");
    assert_eq!(json!(said), from_device, "the token response says the same");
    assert_eq!(
        from_device,
        json!(["images:read", "account:read", "billing:write"]),
        "spec §4: a device login's key has all three"
    );
}

/// Submits the dashboard's partner form under the first key the dashboard
/// page `html` lists.
async fn create_partner_under_the_first_key(b: &mut Browser<'_>, html: &str) -> reqwest::Response {
    let key_id = html
        .split("name=\"key_id\" value=\"")
        .nth(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
        .expect("the dashboard lists a key");
    b.submit(
        "/dashboard",
        "/dashboard/partners",
        &[("key_id", key_id.as_str())],
    )
    .await
}

#[tokio::test]
async fn partner_secrets_are_made_under_a_live_key_shown_once_and_revoked() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    b.sign_up("partner@example.com", PASSWORD).await;
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/keys",
            &[("name", "Site"), ("scope", "images:read")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, html, _) = b.page("/dashboard").await;
    let r = create_partner_under_the_first_key(&mut b, &html).await;
    assert_eq!(r.status(), 303);
    let (_, html, _) = b.page(&header(&r, "location")).await;
    let secret = html
        .split("id=\"new-partner-value\">")
        .nth(1)
        .map(|rest| rest[..rest.find('<').unwrap()].to_owned())
        .unwrap();
    assert!(secret.len() >= 32, "{secret}");
    let listed = app
        .cli(&["partners", "list", "--email", "partner@example.com"])
        .await
        .unwrap();
    assert!(listed.contains("active"), "{listed}");
    let partner_id = listed.split_whitespace().next().unwrap().to_owned();
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/partners/revoke",
            &[("partner_id", partner_id.as_str())],
        )
        .await;
    assert_eq!(r.status(), 303);
    let listed = app
        .cli(&["partners", "list", "--email", "partner@example.com"])
        .await
        .unwrap();
    assert!(listed.contains("revoked"), "{listed}");
    // A key of another account is not a choice.
    let (_, other_key) = app
        .account_with_key("someone@example.com", "images:read")
        .await;
    let _ = other_key;
    let r = b
        .submit(
            "/dashboard",
            "/dashboard/partners",
            &[("key_id", "not-a-key")],
        )
        .await;
    assert_eq!(r.status(), 400);
}

/// An operator's command in a page's text (`control-plane keys …`).
fn operator_command(html: &str) -> Option<&str> {
    html.match_indices("control-plane")
        .map(|(i, _)| &html[i..(i + 40).min(html.len())])
        .find(|rest| {
            rest["control-plane".len()..]
                .chars()
                .next()
                .is_some_and(|c| c == ' ' || c == '<' || c == '&')
        })
}

async fn device_code(app: &TestApp, client_name: &str) -> String {
    let code: Value = app
        .client
        .post(app.url("/api/auth/device/code"))
        .json(&json!({ "client_name": client_name }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    code["user_code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn customer_pages_show_no_operator_commands_and_an_approved_device_says_back_to_the_terminal()
{
    let app = TestApp::spawn().await;
    let pending = device_code(&app, "my laptop").await;
    let denied = device_code(&app, "not mine").await;
    let mut b = Browser::new(&app);
    let mut pages = Vec::new();
    let device = format!("/device?user_code={pending}");
    for path in [
        "/",
        "/pricing",
        "/playground",
        "/docs/embeds",
        "/docs/errors",
        "/signin",
        "/signup",
        "/reset",
        "/device",
        "/device?user_code=ZZZZ-ZZZZ",
        device.as_str(),
    ] {
        let (status, html, _) = b.page(path).await;
        assert_eq!(status, 200, "{path}");
        pages.push((format!("{path} (signed out)"), html));
    }
    b.sign_up("customer@example.com", PASSWORD).await;
    for path in ["/dashboard", "/dashboard/credits", device.as_str()] {
        let (status, html, _) = b.page(path).await;
        assert_eq!(status, 200, "{path}");
        pages.push((path.to_owned(), html));
    }
    // Approved, as the POST answers it and as the page shows it later.
    let r = b
        .submit(
            &device,
            "/device",
            &[("user_code", pending.as_str()), ("decision", "approve")],
        )
        .await;
    assert_eq!(r.status(), 200);
    let approved = r.text().await.unwrap();
    assert!(approved.contains("was approved"), "{approved}");
    let (_, approved_later, _) = b.page(&device).await;
    for html in [&approved, &approved_later] {
        assert!(
            html.contains("id=\"return-to-terminal\"") && html.contains("Return to your terminal"),
            "the approved page sends the person back to the terminal: {html}"
        );
    }
    pages.push(("/device (approved)".into(), approved));
    pages.push(("/device (approved, later)".into(), approved_later));
    let r = b
        .submit(
            &format!("/device?user_code={denied}"),
            "/device",
            &[("user_code", denied.as_str()), ("decision", "deny")],
        )
        .await;
    assert_eq!(r.status(), 200);
    let denied_page = r.text().await.unwrap();
    assert!(denied_page.contains("was denied"), "{denied_page}");
    assert!(!denied_page.contains("return-to-terminal"));
    pages.push(("/device (denied)".into(), denied_page));
    for (page, html) in &pages {
        assert_eq!(
            operator_command(html),
            None,
            "{page} shows an operator command"
        );
    }
    // The check finds one where there is one.
    assert!(operator_command("run <code>control-plane keys create</code>").is_some());
}

#[tokio::test]
async fn a_signed_in_person_approves_a_device_code_and_the_device_gets_its_key() {
    let app = TestApp::spawn().await;
    let code: Value = app
        .client
        .post(app.url("/api/auth/device/code"))
        .json(&json!({ "client_name": "my laptop" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let user_code = code["user_code"].as_str().unwrap().to_owned();
    let page = format!("/device?user_code={user_code}");
    let mut b = Browser::new(&app);
    // Signed out, the page asks to sign in and come back.
    let (_, html, _) = b.page(&page).await;
    assert!(html.contains("Sign in to approve"));
    assert!(
        html.contains(&format!("/signin?next=%2Fdevice%3Fuser_code%3D{user_code}")),
        "{html}"
    );
    b.sign_up_and_verify("device@example.com", PASSWORD).await;
    let (_, html, _) = b.page(&page).await;
    assert!(
        html.contains("my laptop") && html.contains("id=\"approve\""),
        "{html}"
    );
    let r = b
        .submit(
            &page,
            "/device",
            &[("user_code", user_code.as_str()), ("decision", "approve")],
        )
        .await;
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("was approved"));
    let token: Value = app
        .client
        .post(app.url("/api/auth/device/token"))
        .json(&json!({ "device_code": code["device_code"] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key = token["access_token"].as_str().unwrap();
    let account: Value = app
        .get_with_key("/api/v1/account", key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        account["data"]["credits"], 100,
        "the signed-in person's account"
    );
    // The key is listed on the dashboard under the client's name.
    let (_, html, _) = b.page("/dashboard").await;
    assert!(html.contains("my laptop"));
}

#[tokio::test]
async fn a_signed_in_session_is_a_free_private_grant_of_car_png() {
    let app = TestApp::spawn_rendering(real_renderer(), |_| {}).await;
    let path =
        "/images/car.png?make=toyota&model=camry&year=2019&view=side&color=blue&w=128&format=png";
    assert_eq!(app.get(path).await.status(), 401);
    let mut b = Browser::new(&app);
    b.sign_up_and_verify("viewer@example.com", PASSWORD).await;
    let r = b.get(path).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "cache-control"), "private, max-age=300");
    assert!(r.headers().get("x-credits-charged").is_none());
    assert_eq!(
        app.account_json("viewer@example.com").await["credits"],
        100,
        "free"
    );
    // Signed out, the same request needs a grant again.
    b.submit("/dashboard", "/signout", &[]).await;
    assert_eq!(b.get(path).await.status(), 401);
}

async fn checkout(app: &TestApp, key: &str, body: Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/billing/checkout"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn checkout_and_portal_follow_the_spec_and_charge_nothing() {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with_key("payer@example.com", "billing:write account:read")
        .await;
    let (_, reader) = app
        .account_with_key("reader@example.com", "account:read")
        .await;
    // Scope, body and additional properties.
    let body = problem(
        checkout(&app, &reader, json!({ "credits": 5000 })).await,
        403,
    )
    .await;
    assert!(
        body["detail"].as_str().unwrap().contains("billing:write"),
        "{body}"
    );
    for (bad, param) in [
        (json!({ "credits": 4000 }), "credits"),
        (json!({}), "credits"),
        (json!({ "credits": "lots" }), "credits"),
        (json!({ "credits": 5000, "coupon": "FREE" }), "coupon"),
    ] {
        let body = problem(checkout(&app, &key, bad.clone()).await, 400).await;
        assert_eq!(body["param"], param, "{bad}: {body}");
    }
    let big = json!({ "credits": 5000, "pad": "x".repeat(2000) });
    problem(checkout(&app, &key, big).await, 413).await;
    let r = app
        .client
        .post(app.url("/api/v1/billing/checkout"))
        .json(&json!({ "credits": 5000 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(header(&r, "www-authenticate"), "Bearer");
    // The portal before any purchase is a 400.
    let r = app
        .client
        .post(app.url("/api/v1/billing/portal"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    problem(r, 400).await;
    // A checkout: a hosted page on this service (the sandbox), nothing charged.
    let before = app.account_json("payer@example.com").await;
    let r = checkout(&app, &key, json!({ "credits": 10000 })).await;
    assert_eq!(r.status(), 201);
    assert!(r.headers().get("ratelimit-limit").is_some());
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["data"]["credits"], 10000);
    assert_eq!(body["data"]["amount_cents"], 1000);
    assert!(body["request_id"].is_string());
    let url = body["data"]["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "{}/billing/sandbox/checkout/cs_sandbox_",
            app.base_url
        )),
        "{url}"
    );
    assert_eq!(app.account_json("payer@example.com").await, before);
}

#[tokio::test]
async fn a_sandbox_payment_lands_its_credits_exactly_once_through_the_signed_webhook() {
    let app = TestApp::spawn().await;
    let (_, key) = app
        .account_with_key("buyer@example.com", "billing:write account:read")
        .await;
    let body: Value = checkout(&app, &key, json!({ "credits": 5000 }))
        .await
        .json()
        .await
        .unwrap();
    let url = body["data"]["url"].as_str().unwrap();
    let page = url.trim_start_matches(&app.base_url).to_owned();
    let mut b = Browser::new(&app);
    let (status, html, _) = b.page(&page).await;
    assert_eq!(status, 200);
    assert!(
        html.contains("Test payment") && html.contains("Pay $5.00"),
        "{html}"
    );
    let r = b.submit(&page, &page, &[]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(header(&r, "location"), "/dashboard/credits?purchase=done");
    let account: Value = app
        .get_with_key("/api/v1/account", &key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(account["data"]["credits"], 5000 + 100);
    assert_eq!(account["data"]["has_payment_method"], true);
    // The page now says it is paid; paying it again anyway (a second
    // completed event for the same session) credits nothing more.
    let (_, html, _) = b.page(&page).await;
    assert!(html.contains("Already paid"), "{html}");
    let r = b.submit("/signup", &page, &[]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(app.account_json("buyer@example.com").await["credits"], 5100);
    // The ledger has one purchase entry.
    let ledger = app
        .cli(&["accounts", "show", "--email", "buyer@example.com"])
        .await
        .unwrap();
    assert_eq!(ledger.matches("purchase").count(), 1, "{ledger}");
    // A forged webhook is refused and changes nothing.
    let forged = json!({ "id": "evt_forged", "type": "checkout.session.completed", "data": { "object": {} } });
    let r = app
        .client
        .post(app.url("/api/v1/billing/webhook"))
        .header(
            "stripe-signature",
            format!("t={},v1={}", chrono_now(), "ab".repeat(32)),
        )
        .json(&forged)
        .send()
        .await
        .unwrap();
    let body = problem(r, 400).await;
    assert_eq!(body["param"], "Stripe-Signature");
    let r = app
        .client
        .post(app.url("/api/v1/billing/webhook"))
        .json(&forged)
        .send()
        .await
        .unwrap();
    problem(r, 400).await;
    // Now the portal opens, and lists the purchase.
    let r = app
        .client
        .post(app.url("/api/v1/billing/portal"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let portal: Value = r.json().await.unwrap();
    let portal_url = portal["data"]["url"].as_str().unwrap();
    let r = b.get(portal_url.trim_start_matches(&app.base_url)).await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("buyer@example.com") && html.contains("5,000"),
        "{html}"
    );
    // A tampered portal link opens nothing.
    let tampered = format!("{}x", portal_url.trim_start_matches(&app.base_url));
    assert_eq!(b.get(&tampered).await.status(), 404);
    let metrics = app.get("/metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("vis_payment_events_total{outcome=\"credited\"} 1"),
        "{metrics}"
    );
}

fn chrono_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test]
async fn buying_on_the_credits_page_goes_to_the_payment_page_and_back() {
    let app = TestApp::spawn().await;
    let mut b = Browser::new(&app);
    b.sign_up_and_verify("shopper@example.com", PASSWORD).await;
    let r = b
        .submit(
            "/dashboard/credits",
            "/dashboard/credits",
            &[("credits", "25000")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let to = header(&r, "location");
    assert!(to.contains("/billing/sandbox/checkout/cs_sandbox_"), "{to}");
    let page = to.trim_start_matches(&app.base_url).to_owned();
    let r = b.submit(&page, &page, &[]).await;
    assert_eq!(r.status(), 303);
    let (_, html, _) = b.page("/dashboard/credits?purchase=done").await;
    assert!(html.contains("25,100"), "{html}");
    assert!(html.contains("Paid"));
    let r = b
        .submit(
            "/dashboard/credits",
            "/dashboard/credits",
            &[("credits", "7")],
        )
        .await;
    assert_eq!(r.status(), 400);
}

/// The dashboard's operator page (issue 17): signed out it sends you to
/// sign in, without the role it is a 403 (page and JSON), with the role
/// (granted and revoked by the CLI) it shows the same numbers as
/// `control-plane status --json`: a node that registered, the queue by
/// priority, today's budget.
#[tokio::test]
async fn the_operator_page_shows_the_farm_to_operators_only() {
    use vis_protocol::nodes::{NODE_API, NodeReport};
    let app = TestApp::spawn().await;
    let r = app
        .client
        .get(app.url("/dashboard/operator"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert!(
        header(&r, "location").starts_with("/signin"),
        "{}",
        header(&r, "location")
    );
    let r = app
        .client
        .get(app.url("/dashboard/operator.json"))
        .send()
        .await
        .unwrap();
    problem(r, 401).await;

    let mut b = Browser::new(&app);
    b.sign_up("ops@example.com", PASSWORD).await;
    let (status, html, _) = b.page("/dashboard/operator").await;
    assert_eq!(status, 403);
    assert!(html.contains("operator role"), "{html}");
    let (_, html, _) = b.page("/dashboard").await;
    assert!(!html.contains("nav-operator"), "no tab without the role");
    problem(b.get("/dashboard/operator.json").await, 403).await;

    // A node registers over the node API, as `render-node run` does.
    let out = app.cli(&["nodes", "add", "gpu-a"]).await.unwrap();
    let token = out.lines().last().unwrap().to_owned();
    let r = app
        .client
        .post(format!("{}{NODE_API}/register", app.base_url))
        .bearer_auth(&token)
        .json(&NodeReport {
            slots: 4,
            adapter: "NVIDIA L4".into(),
            in_flight: vec![],
        })
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    let out = app
        .cli(&["accounts", "operator", "--email", "OPS@example.com"])
        .await
        .unwrap();
    assert!(out.contains("ops@example.com is an operator"), "{out}");
    let listed: Value =
        serde_json::from_str(&app.cli(&["--json", "accounts", "operators"]).await.unwrap())
            .unwrap();
    assert_eq!(listed[0]["email"], "ops@example.com", "{listed}");

    let (_, html, _) = b.page("/dashboard").await;
    assert!(html.contains("id=\"nav-operator\""), "the tab appears");
    let (status, html, _) = b.page("/dashboard/operator").await;
    assert_eq!(status, 200);
    for text in [
        "Render farm",
        "gpu-a",
        "NVIDIA L4",
        "nodes up",
        "Prewarm",
        "data-farm=\"capacity.node_slots\">4<",
        "node slots busy",
    ] {
        assert!(html.contains(text), "{text} in {html}");
    }
    let r = b.get("/dashboard/operator.json").await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "cache-control"), "no-store");
    let farm: Value = r.json().await.unwrap();
    let status: Value =
        serde_json::from_str(&app.cli(&["--json", "status"]).await.unwrap()).unwrap();
    for part in ["capacity", "queue", "budget", "day"] {
        assert_eq!(
            farm[part], status[part],
            "{part}: the page and the CLI agree"
        );
    }
    assert_eq!(farm["capacity"]["nodes_up"], 1);
    assert_eq!(farm["capacity"]["node_slots"], 4);
    assert_eq!(farm["queue"]["queued_prewarm"], 0);
    assert_eq!(farm["nodes"][0]["name"], "gpu-a");
    assert_eq!(farm["nodes"][0]["up"], true);
    let text = serde_json::to_string(&farm).unwrap();
    assert!(!text.contains(&token), "no node token in the page's data");

    app.cli(&[
        "accounts",
        "operator",
        "--email",
        "ops@example.com",
        "--revoke",
    ])
    .await
    .unwrap();
    let (status, _, _) = b.page("/dashboard/operator").await;
    assert_eq!(status, 403, "revoked at once");
    assert!(
        app.cli(&["accounts", "operator", "--email", "nobody@example.com"])
            .await
            .is_err()
    );
}
