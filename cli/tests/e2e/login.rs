//! `vis login` (RFC 8628 device flow) approved by the operator, the saved
//! key (0600, never printed), `whoami`, `VIS_API_KEY` overriding it,
//! `logout`, and a denied login.

use std::os::unix::fs::PermissionsExt;

use vis_tests::TestApp;

use crate::support::Vis;

#[tokio::test]
async fn device_login_approved_by_the_operator_saves_the_key_privately_and_never_prints_it() {
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
    let vis = Vis::new(&app);

    let login = vis
        .login(&app, Some("dev@example.com"), &["--name", "laptop"])
        .await;
    assert_eq!(login.code, 0, "{login:?}");
    assert!(
        login.stderr.contains("/device"),
        "shows where to approve: {login:?}"
    );

    let file = vis.config_dir().join("credentials");
    let mode = std::fs::metadata(&file)
        .expect("credentials saved")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "credentials are the owner's only");
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let key = saved["api_key"]
        .as_str()
        .expect("a key in the file")
        .to_owned();
    assert!(key.starts_with("vis_") && key.len() > 20, "{key}");
    assert_eq!(saved["base_url"], app.base_url);
    login.never_shows(&key);
    assert!(
        login.stdout.contains(&key[..12]),
        "the prefix is shown: {login:?}"
    );

    // The key works, and is the account's: whoami shows prefix and scopes.
    let who = vis.run_ok(&["whoami", "--json"]).await;
    who.never_shows(&key);
    let v = who.json();
    assert_eq!(v["key_prefix"], key[..12]);
    assert_eq!(v["key_source"], "file");
    assert_eq!(v["credits"], 7);
    assert_eq!(
        v["scopes"],
        serde_json::json!(["images:read", "account:read", "billing:write"])
    );
    let human = vis.run_ok(&["whoami"]).await;
    human.never_shows(&key);
    assert!(human.stdout.contains(&key[..12]) && human.stdout.contains("billing:write"));
    // The dashboard's list names the key after --name.
    let keys = app
        .cli(&["--json", "keys", "list", "--email", "dev@example.com"])
        .await
        .unwrap();
    assert!(keys.contains("laptop"), "{keys}");

    // VIS_API_KEY overrides the saved key.
    let other = app.key_for("other@example.com", 3, &[]).await;
    let env = Vis::new(&app).with_key(&other);
    std::fs::create_dir_all(env.config_dir()).unwrap();
    std::fs::copy(&file, env.config_dir().join("credentials")).unwrap();
    let v = env.run_ok(&["whoami", "--json"]).await.json();
    assert_eq!(
        (v["key_source"].as_str(), v["credits"].as_i64()),
        (Some("env"), Some(3))
    );
    assert_eq!(v["key_prefix"], other[..12]);

    // logout forgets it; whoami then says so, with the auth exit code.
    vis.run_ok(&["logout"]).await;
    assert!(!file.exists());
    let after = vis.run(&["whoami"]).await;
    assert_eq!(after.code, 3, "{after:?}");
    assert!(after.stderr.contains("vis login"), "{after:?}");
}

#[tokio::test]
async fn a_denied_login_saves_nothing_and_exits_with_the_login_code() {
    let app = TestApp::spawn().await;
    let vis = Vis::new(&app);
    let login = vis.login(&app, None, &[]).await;
    assert_eq!(login.code, 8, "{login:?}");
    assert!(login.stderr.contains("denied"), "{login:?}");
    assert!(!vis.config_dir().join("credentials").exists());
}
