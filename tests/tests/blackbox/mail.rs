//! Real mail (issue 33): the service sends its sign-up verification and
//! password-reset mails to a real SMTP server (aiosmtpd, `vis_tests::smtp`)
//! that requires STARTTLS, under a certificate of a CA made for the test and
//! trusted through `[mail] ca_file`. The tests read each message as the
//! server received it, take the link out of it and follow it over HTTP.

use serde_json::Value;
use vis_tests::smtp::SmtpServer;
use vis_tests::{TestApp, header};

use super::people::{Browser, PASSWORD};

/// An app that sends its mail through `smtp`, after `tweak`.
async fn app_mailing_through(
    smtp: &SmtpServer,
    tweak: impl FnOnce(&mut control_plane::Config),
) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut config = control_plane::Config::for_tests(dir.path());
    smtp.configure(&mut config);
    tweak(&mut config);
    TestApp::spawn_with(config, dir).await
}

fn outbox_is_empty(app: &TestApp) -> bool {
    let outbox = app.config.mail.outbox.clone().unwrap();
    std::fs::read_dir(outbox).map_or(true, |mut d| d.next().is_none())
}

fn grants(account: &Value) -> usize {
    account["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "grant")
        .count()
}

#[tokio::test]
async fn sign_up_and_reset_mails_arrive_over_smtp_with_starttls_and_their_links_work() {
    let Some(smtp) = SmtpServer::start_or_skip("mail::sign_up_and_reset").await else {
        return;
    };
    let app = app_mailing_through(&smtp, |_| {}).await;
    let mut b = Browser::new(&app);
    assert_eq!(b.sign_up("ada@example.com", PASSWORD).await.status(), 303);
    assert_eq!(app.account_json("ada@example.com").await["credits"], 0);

    // The verification mail, as the SMTP server received it: over TLS.
    let mails = smtp.wait_for("ada@example.com", 1).await;
    let mail = &mails[0];
    assert!(
        mail.tls_version().is_some_and(|v| v.starts_with("TLSv1.")),
        "{mail:?}"
    );
    assert_eq!(
        mail.header("Subject"),
        Some("Verify your email for the Vehicle Image Service")
    );
    assert!(mail.body().contains("100 free credits"), "{}", mail.body());
    let link = mail.link("/verify?token=");
    assert!(
        link.starts_with(&format!("{}/verify?token=", app.base_url)),
        "{link}"
    );
    assert!(outbox_is_empty(&app), "the mail went by SMTP, not to files");

    // Followed over HTTP by a client without the session: the credits land.
    let r = app.client.get(&link).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("Your email is verified"));
    let account = app.account_json("ada@example.com").await;
    assert_eq!(account["credits"], 100);
    assert_eq!(grants(&account), 1);
    // A second click does nothing more.
    let r = app.client.get(&link).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("verified already"));
    let account = app.account_json("ada@example.com").await;
    assert_eq!(account["credits"], 100);
    assert_eq!(grants(&account), 1);

    // The password-reset mail, over SMTP too; its link works once.
    let r = b
        .submit("/reset", "/reset", &[("email", "ada@example.com")])
        .await;
    assert_eq!(r.status(), 200);
    let mails = smtp.wait_for("ada@example.com", 2).await;
    let reset = &mails[1];
    assert!(reset.tls_version().is_some(), "{reset:?}");
    let link = reset.link("/reset?token=");
    assert!(
        link.starts_with(&format!("{}/reset?token=", app.base_url)),
        "{link}"
    );
    let path = link.trim_start_matches(&app.base_url).to_owned();
    let token = path.trim_start_matches("/reset?token=").to_owned();
    let (status, html, _) = b.page(&path).await;
    assert_eq!(status, 200);
    assert!(html.contains("Choose a new password"), "{html}");
    let new_password = "a brand new passphrase";
    let r = b
        .submit(
            &path,
            "/reset",
            &[("token", token.as_str()), ("password", new_password)],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(header(&r, "location"), "/dashboard");
    // Used once: the link is gone, over plain HTTP as in the browser.
    let r = app.client.get(&link).send().await.unwrap();
    assert_eq!(r.status(), 410);
    let r = b
        .submit(
            "/reset",
            "/reset",
            &[
                ("token", token.as_str()),
                ("password", "yet another passphrase"),
            ],
        )
        .await;
    assert_eq!(r.status(), 410);
    // The new password signs in; the old one does not.
    let mut fresh = Browser::new(&app);
    let r = fresh
        .submit(
            "/signin",
            "/signin",
            &[("email", "ada@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status(), 401);
    let r = fresh
        .submit(
            "/signin",
            "/signin",
            &[("email", "ada@example.com"), ("password", new_password)],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(smtp.mails().len(), 2, "no other mail was sent");
}

#[tokio::test]
async fn an_expired_link_mailed_over_smtp_is_refused_and_a_resent_one_is_not() {
    let Some(smtp) = SmtpServer::start_or_skip("mail::an_expired_link").await else {
        return;
    };
    let short = app_mailing_through(&smtp, |c| c.signup.verify_link_secs = 1).await;
    let mut b = Browser::new(&short);
    assert_eq!(b.sign_up("late@example.com", PASSWORD).await.status(), 303);
    let link = smtp.wait_for("late@example.com", 1).await[0].link("/verify?token=");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let r = short.client.get(&link).send().await.unwrap();
    assert_eq!(r.status(), 410);
    assert!(r.text().await.unwrap().contains("This link has expired"));
    let account = short.account_json("late@example.com").await;
    assert_eq!(account["credits"], 0);
    assert_eq!(grants(&account), 0);

    // On a server whose links last the default 24 hours, a resent link
    // (mailed over SMTP) verifies; the sign-up's own link then does nothing.
    let app = app_mailing_through(&smtp, |_| {}).await;
    let mut b = Browser::new(&app);
    assert_eq!(b.sign_up("again@example.com", PASSWORD).await.status(), 303);
    let r = b.submit("/dashboard", "/verify/resend", &[]).await;
    assert_eq!(r.status(), 200);
    let mails = smtp.wait_for("again@example.com", 2).await;
    let (first, resent) = (
        mails[0].link("/verify?token="),
        mails[1].link("/verify?token="),
    );
    assert_ne!(first, resent);
    let r = app.client.get(&resent).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = app.client.get(&first).send().await.unwrap();
    assert!(r.text().await.unwrap().contains("verified already"));
    let account = app.account_json("again@example.com").await;
    assert_eq!(account["credits"], 100);
    assert_eq!(grants(&account), 1);
}

#[tokio::test]
async fn without_the_test_ca_the_smtp_servers_certificate_is_refused() {
    let Some(smtp) = SmtpServer::start_or_skip("mail::without_the_test_ca").await else {
        return;
    };
    // The same server, but the service trusts only the system's CAs.
    let app = app_mailing_through(&smtp, |c| c.mail.ca_file = None).await;
    app.cli(&["accounts", "create", "--email", "eve@example.com"])
        .await
        .unwrap();
    let mut b = Browser::new(&app);
    let r = b
        .submit("/reset", "/reset", &[("email", "eve@example.com")])
        .await;
    assert_eq!(r.status(), 503);
    assert!(r.text().await.unwrap().contains("Mail could not be sent"));
    assert!(smtp.mails().is_empty());
}
