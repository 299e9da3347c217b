//! Failures print the problem document's title and detail, exit with the
//! code of their class (docs/cli.md), and `--json` prints them as JSON.

use vis_tests::{TestApp, problem};

use crate::support::Vis;

#[tokio::test]
async fn a_refused_request_shows_the_problem_detail_and_exits_non_zero() {
    let app = TestApp::spawn().await;
    let key = app.key_for("err@example.com", 10, &[]).await;
    let vis = Vis::new(&app).with_key(&key);
    // What the server says about this request, asked directly.
    let expected = problem(
        app.get_with_key("/api/v1/images/car?make=toyota&model=camry&year=1989", &key)
            .await,
        400,
    )
    .await;
    let (title, detail) = (
        expected["title"].as_str().unwrap(),
        expected["detail"].as_str().unwrap(),
    );

    let out = vis
        .run(&["image", "toyota", "camry", "1989", "-o", "x.png"])
        .await;
    assert_eq!(out.code, 5, "{out:?}");
    assert!(
        out.stderr.contains(title) && out.stderr.contains(detail),
        "{out:?}"
    );
    assert!(out.stdout.is_empty());
    assert!(!vis.home().join("x.png").exists());
    out.never_shows(&key);

    let out = vis
        .run(&["image", "toyota", "camry", "1989", "--json"])
        .await;
    assert_eq!(out.code, 5);
    let e = &out.json()["error"];
    assert_eq!(
        (e["status"].as_u64(), e["exit_code"].as_i64()),
        (Some(400), Some(5))
    );
    assert_eq!(
        (e["title"].as_str(), e["detail"].as_str()),
        (Some(title), Some(detail))
    );
    assert!(
        e["request_id"]
            .as_str()
            .is_some_and(|r| r.starts_with("req_"))
    );

    // A catalog miss is a 404 problem, the same class.
    let out = vis.run(&["image", "toyota", "no-such-model", "2019"]).await;
    assert_eq!(out.code, 5, "{out:?}");
    assert!(out.stderr.contains("404"), "{out:?}");
}

#[tokio::test]
async fn missing_or_refused_keys_and_an_unreachable_server_have_their_own_codes() {
    let app = TestApp::spawn().await;
    let out = Vis::new(&app).run(&["account"]).await;
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("vis login"), "{out:?}");

    let bogus = "vis_0000000000000000000000000000000000000000";
    let out = Vis::new(&app).with_key(bogus).run(&["account"]).await;
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("401"), "{out:?}");
    out.never_shows(bogus);

    // Port 1 on loopback: nothing listens.
    let out = Vis::new(&app)
        .with_key(bogus)
        .run(&["--base-url", "http://127.0.0.1:1", "account"])
        .await;
    assert_eq!(out.code, 7, "{out:?}");
    assert!(out.stderr.contains("could not reach"), "{out:?}");

    let out = Vis::new(&app).run(&["image", "toyota"]).await;
    assert_eq!(out.code, 2, "usage errors are clap's 2: {out:?}");
}
