//! The operator CLI on the app's own configuration.

use vis_tests::TestApp;

/// Runs an operator command with `--json` and parses its output.
async fn cli_json(app: &TestApp, args: &[&str]) -> serde_json::Value {
    let out = app.cli(&[&["--json"], args].concat()).await.unwrap();
    serde_json::from_str(out.trim()).unwrap()
}

#[tokio::test]
async fn keys_create_prints_the_key_alone_on_the_last_line() {
    let app = TestApp::spawn().await;
    let out = app
        .cli(&["accounts", "create", "--email", "ops@example.com"])
        .await
        .unwrap();
    assert!(out.contains("100 credits"), "{out}");
    let out = app
        .cli(&[
            "keys",
            "create",
            "--email",
            "ops@example.com",
            "--name",
            "ci",
            "--rate-limit",
            "30",
        ])
        .await
        .unwrap();
    let last = out.trim_end().lines().last().unwrap();
    assert!(last.starts_with("vis_") && last.len() == 44, "{out}");
    let r = app.get_with_key("/api/v1/account", last).await;
    assert_eq!(r.status(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["data"]["key"]["rate_limit_per_minute"], 30);
    // Listing never shows the key itself.
    let list = app
        .cli(&["keys", "list", "--email", "ops@example.com"])
        .await
        .unwrap();
    assert!(!list.contains(last) && list.contains(&last[..12]), "{list}");
}

#[tokio::test]
async fn accounts_credits_and_partners() {
    let app = TestApp::spawn().await;
    let v = cli_json(
        &app,
        &[
            "accounts",
            "create",
            "--email",
            "b@example.com",
            "--credits",
            "5",
        ],
    )
    .await;
    assert_eq!(v["credits"], 5);
    let v = cli_json(
        &app,
        &[
            "credits",
            "adjust",
            "--email",
            "b@example.com",
            "--delta",
            "10",
            "--reason",
            "goodwill",
        ],
    )
    .await;
    assert_eq!(v["credits"], 15);
    let v = cli_json(&app, &["accounts", "show", "--email", "b@example.com"]).await;
    let kinds: Vec<&str> = v["ledger"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["adjustment", "grant"]);
    // A partner secret is issued under a key of the account, shown once.
    let key = cli_json(&app, &["keys", "create", "--email", "b@example.com"]).await;
    let key_id = key["id"].as_str().unwrap();
    let v = cli_json(&app, &["partners", "create", "--key", key_id]).await;
    assert!(v["secret"].as_str().unwrap().len() >= 40);
    assert!(v["partner_id"].as_str().is_some());
    assert_eq!(v["key_id"], key_id);
    let err = app
        .cli(&["partners", "create", "--key", "no-such-key"])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no live key"), "{err}");
}

#[tokio::test]
async fn mistakes_are_clear_errors() {
    let app = TestApp::spawn().await;
    app.cli(&["accounts", "create", "--email", "c@example.com"])
        .await
        .unwrap();
    let cases: [(&[&str], &str); 7] = [
        (
            &["accounts", "create", "--email", "c@example.com"],
            "already exists",
        ),
        (
            &["accounts", "create", "--email", "not-an-email"],
            "--email",
        ),
        (
            &["accounts", "show", "--email", "nobody@example.com"],
            "no account",
        ),
        (
            &[
                "credits",
                "adjust",
                "--email",
                "c@example.com",
                "--delta",
                "-1000",
                "--reason",
                "x",
            ],
            "below 0",
        ),
        (
            &[
                "keys",
                "create",
                "--email",
                "c@example.com",
                "--scopes",
                "images:write",
            ],
            "--scopes",
        ),
        (
            &["keys", "revoke", "00000000-0000-0000-0000-000000000000"],
            "no key",
        ),
        (
            &[
                "keys",
                "create",
                "--email",
                "c@example.com",
                "--rate-limit",
                "0",
            ],
            "--rate-limit",
        ),
    ];
    for (args, expected) in cases {
        let err = app
            .cli(args)
            .await
            .expect_err(&format!("{args:?} should fail"));
        assert!(err.to_string().contains(expected), "{args:?}: {err}");
    }
    // A refused debit wrote nothing.
    let v = cli_json(&app, &["accounts", "show", "--email", "c@example.com"]).await;
    assert_eq!(v["credits"], 100);
    assert_eq!(v["ledger"].as_array().unwrap().len(), 1);
}

/// The CLI stores and finds emails as sign-up does (trimmed, lower case),
/// so an operator's account and a person's sign-in are one account.
#[tokio::test]
async fn cli_emails_are_normalised_like_sign_up() {
    let app = TestApp::spawn().await;
    let v = cli_json(
        &app,
        &["accounts", "create", "--email", " Ops.Team@Example.COM "],
    )
    .await;
    assert_eq!(v["email"], "ops.team@example.com");
    let v = cli_json(
        &app,
        &["accounts", "show", "--email", "OPS.TEAM@example.com"],
    )
    .await;
    assert_eq!(v["email"], "ops.team@example.com");
    // A second account differing only in case is the same account.
    let err = app
        .cli(&["accounts", "create", "--email", "ops.team@EXAMPLE.com"])
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("already exists"), "{err}");
    let err = app
        .cli(&["accounts", "create", "--email", "not-an-address"])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--email") && err.contains("email address"),
        "{err}"
    );
}

/// Issue 30: an operator command pointed at a directory with no database
/// (the wrong working directory, a typo) says so instead of creating an
/// empty one; `migrate` creates it.
#[tokio::test]
async fn operator_commands_refuse_a_data_directory_without_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = data.join("vis.db");
    let url = format!("sqlite://{}?mode=rwc", db.display());
    for args in [
        &["accounts", "create", "--email", "new@example.com"][..],
        &["keys", "list", "--email", "new@example.com"],
        &["renders", "flagged"],
        &["budget", "show"],
        &["status"],
        &[
            "prewarm", "--make", "kia", "--models", "rio", "--years", "2018",
        ],
    ] {
        let refused = vis_tests::operator(&data, &url, args)
            .await
            .expect_err("refused");
        let message = refused.to_string();
        assert!(
            message.contains(&data.display().to_string()),
            "{args:?}: names the directory: {message}"
        );
        assert!(
            message.contains("control-plane migrate"),
            "{args:?}: says how to create one: {message}"
        );
        assert!(!db.exists(), "{args:?} created {}", db.display());
    }
    // `migrate` creates it; then the commands work.
    let out = vis_tests::operator(&data, &url, &["migrate"])
        .await
        .unwrap();
    assert!(out.contains("migrations applied"), "{out}");
    assert!(db.exists());
    let out = vis_tests::operator(&data, &url, &["renders", "flagged"])
        .await
        .unwrap();
    assert!(
        out.contains("no flagged renders"),
        "says there are none: {out:?}"
    );
    let out = vis_tests::operator(&data, &url, &["--json", "renders", "flagged"])
        .await
        .unwrap();
    assert_eq!(out.trim(), "[]", "JSON stays a list");
    let out = vis_tests::operator(
        &data,
        &url,
        &["accounts", "create", "--email", "new@example.com"],
    )
    .await
    .unwrap();
    assert!(out.contains("100 credits"), "{out}");
}
