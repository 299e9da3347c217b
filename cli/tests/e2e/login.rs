//! `vis login` (RFC 8628 device flow) approved by the operator, the saved
//! key (0600, never printed), `whoami`, `VIS_API_KEY` overriding it,
//! `logout`, and a denied login.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use vis_tests::TestApp;

use crate::support::{Vis, whole_message};

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

/// What the recording proxy saw of `vis login`'s polls.
#[derive(Debug, Default)]
struct Polls {
    /// When each of `vis`'s `POST /api/auth/device/token` arrived.
    at: Vec<std::time::Instant>,
    /// The answers to them that were `slow_down`.
    slow_downs: usize,
    /// The proxy's own extra poll's answer (its error word).
    extra: Option<String>,
}

/// A proxy in front of the server that passes every byte through, notes
/// when `vis` polls the token endpoint and which answers are `slow_down`,
/// and, on `vis`'s first poll only, sends the same poll to the server
/// once more just before it: so the server sees the device code polled
/// twice within its interval and answers `vis` with a real `slow_down`.
async fn proxy_that_polls_once_more(
    upstream: std::net::SocketAddr,
) -> (String, std::sync::Arc<std::sync::Mutex<Polls>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let polls = std::sync::Arc::new(std::sync::Mutex::new(Polls::default()));
    let seen = std::sync::Arc::clone(&polls);
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let seen = std::sync::Arc::clone(&seen);
            tokio::spawn(async move {
                let server = tokio::net::TcpStream::connect(upstream).await.unwrap();
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                let answers = std::sync::Arc::clone(&seen);
                tokio::spawn(async move {
                    let mut chunk = vec![0u8; 64 * 1024];
                    while let Ok(n) = server_read.read(&mut chunk).await {
                        if n == 0 {
                            break;
                        }
                        let text = String::from_utf8_lossy(&chunk[..n]);
                        if text.contains("\"error\":\"slow_down\"") {
                            answers.lock().unwrap().slow_downs += 1;
                        }
                        if client_write.write_all(&chunk[..n]).await.is_err() {
                            break;
                        }
                    }
                });
                let mut buf = Vec::new();
                let mut chunk = vec![0u8; 64 * 1024];
                loop {
                    let n = match client_read.read(&mut chunk).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(len) = whole_message(&buf) {
                        let request: Vec<u8> = buf.drain(..len).collect();
                        if request.starts_with(b"POST /api/auth/device/token ") {
                            let first = {
                                let mut s = seen.lock().unwrap();
                                s.at.push(std::time::Instant::now());
                                s.at.len() == 1
                            };
                            if first {
                                // The same request on a connection of its own,
                                // answered before vis's own goes on.
                                let mut extra =
                                    tokio::net::TcpStream::connect(upstream).await.unwrap();
                                extra.write_all(&request).await.unwrap();
                                let mut answer = Vec::new();
                                while whole_message(&answer).is_none() {
                                    let n = extra.read(&mut chunk).await.unwrap();
                                    assert!(n > 0, "the server closed the extra poll");
                                    answer.extend_from_slice(&chunk[..n]);
                                }
                                let text = String::from_utf8_lossy(&answer).into_owned();
                                let word = text
                                    .split("\"error\":\"")
                                    .nth(1)
                                    .and_then(|rest| rest.split('"').next())
                                    .unwrap_or("none")
                                    .to_owned();
                                seen.lock().unwrap().extra = Some(word);
                            }
                        }
                        if server_write.write_all(&request).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (format!("http://{address}"), polls)
}

/// RFC 8628 §3.5 against the real server: polled twice within the interval
/// (the proxy's extra poll, then `vis`'s own), the server answers `vis`
/// `slow_down`; from then on `vis` polls 5 s less often (3 s + 5 s), for
/// good, and still gets its key once the code is approved.
#[tokio::test]
async fn login_polls_slower_for_good_after_the_server_says_slow_down() {
    use tokio::io::AsyncBufReadExt;
    let app = TestApp::spawn().await;
    app.cli(&["accounts", "create", "--email", "slow@example.com"])
        .await
        .unwrap();
    let upstream: std::net::SocketAddr = app
        .base_url
        .trim_start_matches("http://")
        .parse()
        .expect("the test server's address");
    let (proxy, polls) = proxy_that_polls_once_more(upstream).await;
    let vis = Vis::new(&app).with_base_url(&proxy);
    let mut child = vis
        .command(&["login", "--no-browser"])
        .spawn()
        .expect("vis login starts");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let code = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("vis login shows a code within 30 s")
            .unwrap()
            .expect("vis login shows a code");
        if let Some(code) = crate::support::user_code_in(&line) {
            break code;
        }
    };
    // Approve only after vis has polled again after the slow_down, so
    // that two gaps after it are measured.
    let waited = std::time::Instant::now();
    while polls.lock().unwrap().at.len() < 2 {
        assert!(
            waited.elapsed() < Duration::from_secs(40),
            "vis polled again: {:?}",
            polls.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.cli(&["device", "approve", &code, "--email", "slow@example.com"])
        .await
        .expect("the operator approves");
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("vis login ends after the approval")
        .unwrap();
    let mut rest = String::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        rest.push_str(&line);
        rest.push('\n');
    }
    assert_eq!(status.code(), Some(0), "vis login succeeds: {rest}");
    assert!(
        vis.config_dir().join("credentials").exists(),
        "the key is saved"
    );

    let polls = polls.lock().unwrap();
    // The server really said slow_down: the extra poll was answered as a
    // poll (pending), vis's first poll right after it was slow_down.
    assert_eq!(
        polls.extra.as_deref(),
        Some("authorization_pending"),
        "{polls:?}"
    );
    assert_eq!(polls.slow_downs, 1, "{polls:?}");
    // Three polls by vis: slow_down, pending, the key.
    assert_eq!(polls.at.len(), 3, "{polls:?}");
    // The interval was 3 s; after slow_down it is 8 s, every time.
    for pair in polls.at.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= Duration::from_secs(8),
            "polled {gap:?} after the last poll, not 8 s: {polls:?}"
        );
        assert!(gap < Duration::from_secs(15), "{gap:?}");
    }
}
