//! The log of `control-plane serve` as an operator reads it from a file, a
//! pipe or journald (issue 30): plain text, and no false alarms.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use vis_tests::http_client;

/// `control-plane serve` on `dir`'s data directory at `log_level`, its
/// stderr in `dir/serve.log`; returns the child and its base URL once ready.
async fn serve(dir: &std::path::Path, log_level: &str) -> (std::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let log_path = dir.join("serve.log");
    // A server started by a unit or a script on a host with no desktop
    // session: no XDG_RUNTIME_DIR, stderr a file.
    let mut child = Command::new(env!("CARGO_BIN_EXE_control-plane-for-test"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("RUST_LOG", log_level)
        .env("VIS_DATA_DIR", dir.join("data"))
        .env("VIS_LISTEN", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .expect("control-plane starts");
    let client = http_client().build().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(r) = client.get(format!("{base}/readyz")).send().await
            && r.status() == 200
        {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "serve exited ({status}): {}",
                std::fs::read_to_string(&log_path).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "serve not ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, base)
}

/// Stops `child` with SIGTERM and returns its log.
async fn stop(mut child: std::process::Child, dir: &std::path::Path) -> String {
    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    std::fs::read_to_string(dir.join("serve.log")).unwrap()
}

#[tokio::test]
async fn the_server_log_has_no_colour_and_no_xdg_runtime_dir_noise_when_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (child, base) = serve(dir.path(), "info").await;
    let client = http_client().build().unwrap();
    // A request that logs a warning with fields (a 404 is logged).
    let r = client
        .get(format!("{base}/no-such-page"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = client.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let log = stop(child, dir.path()).await;
    assert!(log.contains("listening"), "the log has lines: {log}");
    assert!(
        !log.contains('\u{1b}'),
        "no ANSI escape codes in a log that is not a terminal: {log:?}"
    );
    assert!(
        !log.contains("XDG_RUNTIME_DIR"),
        "no Wayland probe noise on a host without a session: {log}"
    );
    assert!(
        !log.contains("ERROR"),
        "nothing went wrong, so nothing says so (no GL probe once Vulkan has an adapter): {log}"
    );
}

/// ARCHITECTURE.md, "Keys are never stored or logged": at debug level, with
/// a key in every place a client may put one (header, a query string where
/// it is refused, the legacy endpoint), a delivery token in a path and a
/// password in a form, the log holds none of them.
#[tokio::test]
async fn no_key_token_or_password_reaches_the_log_even_at_debug() {
    let dir = tempfile::tempdir().unwrap();
    let (child, base) = serve(dir.path(), "debug").await;
    let operator = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_control-plane-for-test"))
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", dir.path())
            .env("VIS_DATA_DIR", dir.path().join("data"))
            .output()
            .expect("the operator CLI runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    operator(&["accounts", "create", "--email", "log@example.com"]);
    let out = operator(&[
        "keys",
        "create",
        "--email",
        "log@example.com",
        "--name",
        "log",
    ]);
    let key = out.trim_end().lines().last().unwrap().to_owned();
    assert!(key.starts_with("vis_"), "{out}");
    let client = http_client().build().unwrap();
    let r = client
        .get(format!("{base}/api/v1/account"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = client
        .get(format!("{base}/api/v1/account?key={key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = client
        .get(format!(
            "{base}/images/car.png?make=toyota&model=camry&year=2019&key={key}"
        ))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error() || r.status().is_success());
    let token = "Zm9yZ2VkLXRva2VuLXRoYXQtbG9va3MtcmVhbA";
    let r = client
        .get(format!("{base}/api/v1/delivery/{token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let password = "correct-horse-battery-staple-42";
    let r = client
        .post(format!("{base}/signin"))
        .form(&[("email", "log@example.com"), ("password", password)])
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error() || r.status().is_success());
    let log = stop(child, dir.path()).await;
    assert!(log.contains("DEBUG"), "the log is at debug level: {log}");
    for (what, secret) in [
        ("API key", key.as_str()),
        ("delivery token", token),
        ("password", password),
    ] {
        assert!(!log.contains(secret), "the {what} reached the log: {log}");
    }
    // Nor the key's secret part in any spelling (the prefix alone may show).
    assert!(!log.contains(&key[12..]), "part of the key reached the log");
}
