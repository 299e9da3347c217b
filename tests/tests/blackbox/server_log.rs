//! The log of `control-plane serve` as an operator reads it from a file, a
//! pipe or journald (issue 30): plain text, and no false alarms.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use vis_tests::http_client;

#[tokio::test]
async fn the_server_log_has_no_colour_and_no_xdg_runtime_dir_noise_when_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let log_path = dir.path().join("serve.log");
    // A server started by a unit or a script on a host with no desktop
    // session: no XDG_RUNTIME_DIR, stderr a file.
    let mut child = Command::new(env!("CARGO_BIN_EXE_control-plane-for-test"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("RUST_LOG", "info")
        .env("VIS_DATA_DIR", dir.path().join("data"))
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
    // A request that logs a warning with fields (a 404 is logged).
    let r = client
        .get(format!("{base}/no-such-page"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = client.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(r.status(), 200);
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
    let log = std::fs::read_to_string(&log_path).unwrap();
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
