//! One conformance suite for the object store, run on the filesystem and on
//! a real S3-compatible server; then the control plane serving from S3.
//! The server comes from `VIS_TEST_S3_ENDPOINT` (infra/test.sh starts moto);
//! without it the S3 tests fail, unless VIS_TEST_SKIP_S3=1 says to skip them
//! on purpose.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use control_plane::config::S3Config;
use control_plane::objects::{FsObjectStore, ObjectKey, ObjectMeta, ObjectStore, S3ObjectStore};
use sha2::{Digest, Sha256};
use vis_tests::{
    Counting, TestApp, fresh_s3_bucket, header, real_renderer, s3_endpoint_or_skip, s3_keys,
};

fn key(raw: &str) -> ObjectKey {
    ObjectKey::parse(raw).expect("valid key")
}

fn meta(bytes: &[u8], content_type: &str) -> ObjectMeta {
    ObjectMeta {
        content_type: content_type.into(),
        size: bytes.len() as u64,
        sha256: hex::encode(Sha256::digest(bytes)),
    }
}

/// What every backend must do; `s` starts empty.
async fn suite(s: Arc<dyn ObjectStore>) {
    s.check().await.expect("check");
    let source = key("renders/r1/toyota/camry/2019/red/side/source.png");
    let sibling = key("renders/r1/toyota/camry/2019/red/front/source.png");

    // Absent until written.
    assert!(s.get(&source).await.unwrap().is_none());
    assert!(s.head(&source).await.unwrap().is_none());

    // Written: put, get and head agree on the metadata.
    let m = s
        .put(&source, Bytes::from_static(b"hello"), "image/png")
        .await
        .unwrap();
    assert_eq!(m, meta(b"hello", "image/png"));
    let obj = s.get(&source).await.unwrap().expect("written");
    assert_eq!(&obj.bytes[..], b"hello");
    assert_eq!(obj.meta, m);
    assert_eq!(s.head(&source).await.unwrap(), Some(m));
    assert!(s.get(&sibling).await.unwrap().is_none());

    // Replaced: bytes, size and content type all change.
    let m = s
        .put(&source, Bytes::from_static(b"replaced!"), "image/webp")
        .await
        .unwrap();
    assert_eq!(m, meta(b"replaced!", "image/webp"));
    let obj = s.get(&source).await.unwrap().expect("replaced");
    assert_eq!((&obj.bytes[..], obj.meta), (&b"replaced!"[..], m.clone()));
    assert_eq!(s.head(&source).await.unwrap(), Some(m));

    // Every byte value survives, in an object the size of a source render.
    let big: Vec<u8> = (0..3 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let m = s
        .put(&sibling, Bytes::from(big.clone()), "image/png")
        .await
        .unwrap();
    assert_eq!(m, meta(&big, "image/png"));
    let obj = s.get(&sibling).await.unwrap().expect("written");
    assert!(obj.bytes[..] == big[..], "bytes differ");
    assert_eq!(obj.meta, m);

    // An empty object is an object.
    let empty = key("derived/empty.bin");
    s.put(&empty, Bytes::new(), "application/octet-stream")
        .await
        .unwrap();
    assert_eq!(
        s.head(&empty).await.unwrap(),
        Some(meta(b"", "application/octet-stream"))
    );
    assert_eq!(s.get(&empty).await.unwrap().unwrap().bytes.len(), 0);

    // Deleting one key leaves the others; deleting twice is fine.
    s.delete(&source).await.unwrap();
    s.delete(&source).await.unwrap();
    assert!(s.get(&source).await.unwrap().is_none());
    assert!(s.head(&source).await.unwrap().is_none());
    assert!(s.head(&sibling).await.unwrap().is_some());
    s.delete(&key("never/written.png")).await.unwrap();

    // Atomic for readers: while a writer swaps two versions, a reader sees
    // one of them whole (or, on the filesystem, briefly none), never a mix.
    let a = Bytes::from(vec![b'a'; 1024 * 1024]);
    let b = Bytes::from(vec![b'b'; 1536 * 1024]);
    let swapped = key("derived/swapped.webp");
    s.put(&swapped, a.clone(), "image/webp").await.unwrap();
    let writer = {
        let (s, swapped, a, b) = (Arc::clone(&s), swapped.clone(), a.clone(), b.clone());
        tokio::spawn(async move {
            for i in 0..12 {
                let next = if i % 2 == 0 { b.clone() } else { a.clone() };
                s.put(&swapped, next, "image/webp").await.unwrap();
            }
        })
    };
    let mut seen = 0;
    while !writer.is_finished() || seen == 0 {
        if let Some(obj) = s.get(&swapped).await.unwrap() {
            let whole = obj.bytes == a || obj.bytes == b;
            assert!(whole, "a reader saw a mix of {} bytes", obj.bytes.len());
            assert_eq!(obj.meta, meta(&obj.bytes, "image/webp"));
            seen += 1;
        }
    }
    writer.await.unwrap();
    assert_eq!(s.get(&swapped).await.unwrap().unwrap().bytes, a);

    s.check().await.expect("check after use");
}

#[tokio::test]
async fn object_conformance_filesystem() {
    let dir = tempfile::tempdir().unwrap();
    let store = FsObjectStore::new(dir.path().join("objects")).unwrap();
    suite(Arc::new(store)).await;
}

#[tokio::test]
async fn object_conformance_s3() {
    let Some(endpoint) = s3_endpoint_or_skip("object_conformance_s3").await else {
        return;
    };
    let config = fresh_s3_bucket(&endpoint).await;
    suite(Arc::new(S3ObjectStore::connect(&config).await.unwrap())).await;

    // A second deployment in the same bucket, under a prefix: the same
    // behaviour, and neither sees the other's objects.
    let prefixed = S3Config {
        prefix: "tenant-b/".into(),
        ..config.clone()
    };
    let b = Arc::new(S3ObjectStore::connect(&prefixed).await.unwrap());
    suite(Arc::clone(&b) as Arc<dyn ObjectStore>).await;
    let plain = S3ObjectStore::connect(&config).await.unwrap();
    let only_plain = key("derived/only-plain.png");
    plain
        .put(&only_plain, Bytes::from_static(b"x"), "image/png")
        .await
        .unwrap();
    assert!(b.get(&only_plain).await.unwrap().is_none());
    let keys = s3_keys(&endpoint, &config.bucket).await;
    assert!(
        keys.contains(&"tenant-b/renders/r1/toyota/camry/2019/red/front/source.png".to_owned()),
        "{keys:?}"
    );
    assert!(
        keys.contains(&"derived/only-plain.png".to_owned()),
        "{keys:?}"
    );
}

#[tokio::test]
async fn s3_errors_name_the_setting_to_fix() {
    let Some(endpoint) = s3_endpoint_or_skip("s3_errors_name_the_setting_to_fix").await else {
        return;
    };
    let secret = std::env::var("AWS_SECRET_ACCESS_KEY").unwrap_or_default();

    // A bucket that does not exist.
    let config = S3Config {
        bucket: format!("vis-missing-{}", uuid::Uuid::new_v4().simple()),
        ..fresh_s3_bucket(&endpoint).await
    };
    let store = S3ObjectStore::connect(&config).await.unwrap();
    let err = store.check().await.unwrap_err().to_string();
    assert!(err.contains(&config.bucket), "{err}");
    assert!(err.contains("VIS_S3_BUCKET"), "{err}");
    assert!(secret.is_empty() || !err.contains(&secret));

    // The control plane does not start on it, and says why.
    let dir = tempfile::tempdir().unwrap();
    let mut app_config = control_plane::Config::for_tests(dir.path());
    app_config.object_store = control_plane::config::ObjectStoreConfig::S3(config);
    let err = match control_plane::App::build_with_backend(app_config, None).await {
        Ok(_) => panic!("the control plane started on a missing bucket"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("VIS_S3_BUCKET"), "{err}");

    // A server that does not answer: retried with backoff, then a clear
    // error within the timeouts.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let config = S3Config {
        endpoint: Some(format!("http://127.0.0.1:{port}")),
        ..fresh_s3_bucket(&endpoint).await
    };
    let store = S3ObjectStore::connect(&config).await.unwrap();
    let started = Instant::now();
    let err = store.check().await.unwrap_err().to_string();
    assert!(err.contains("VIS_S3_ENDPOINT"), "{err}");
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    assert!(started.elapsed() < Duration::from_secs(20), "{err}");
    assert!(secret.is_empty() || !err.contains(&secret));
}

const SIDE: &str = "/api/v1/images/car?make=toyota&model=camry&year=2019&color=red&view=side";

/// The control plane with `--object-store s3`: a cold render is stored in
/// the bucket, and a second control plane (a fresh database, no shared
/// memory) serves it, and a new size derived from it, without rendering.
#[tokio::test]
async fn a_control_plane_on_s3_serves_a_cold_render_then_a_hit_from_the_bucket() {
    let Some(endpoint) = s3_endpoint_or_skip(
        "a_control_plane_on_s3_serves_a_cold_render_then_a_hit_from_the_bucket",
    )
    .await
    else {
        return;
    };
    let bucket = fresh_s3_bucket(&endpoint).await.bucket;
    // The settings as an operator gives them (the flags of the VIS_S3_* variables).
    let cli = <control_plane::cli::Cli as clap::Parser>::try_parse_from([
        "control-plane",
        "--object-store",
        "s3",
        "--s3-bucket",
        &bucket,
        "--s3-endpoint",
        &endpoint,
        "--s3-region",
        "us-east-1",
        "--s3-force-path-style",
        "true",
        "--s3-prefix",
        "vis",
        "serve",
    ])
    .unwrap();
    let objects = control_plane::Config::load(&cli.overrides)
        .unwrap()
        .object_store;

    let first = {
        let objects = objects.clone();
        TestApp::spawn_rendering(real_renderer(), move |c| c.object_store = objects).await
    };
    let (_, key) = first
        .account_with_key("s3@example.com", "images:read")
        .await;
    let r = first.get_with_key(&format!("{SIDE}&w=256"), &key).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-source"), "generated");
    let etag = header(&r, "etag");
    let cold = r.bytes().await.unwrap();
    assert_eq!(&cold[..8], b"\x89PNG\r\n\x1a\n");
    first.shutdown().await.unwrap();

    // In the bucket, under the prefix: the source render and the output.
    let keys = s3_keys(&endpoint, &bucket).await;
    assert!(
        keys.iter()
            .any(|k| k.starts_with("vis/renders/") && k.ends_with("/side/source.png")),
        "{keys:?}"
    );
    assert!(keys.iter().all(|k| k.starts_with("vis/")), "{keys:?}");
    assert!(keys.len() >= 3, "source, output and probe: {keys:?}");

    let renders = Counting::new(real_renderer());
    let second = TestApp::spawn_rendering(renders.clone(), move |c| c.object_store = objects).await;
    let (_, key) = second
        .account_with_key("s3@example.com", "images:read")
        .await;
    let r = second.get_with_key(&format!("{SIDE}&w=256"), &key).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-source"), "cache");
    assert_eq!(header(&r, "etag"), etag);
    assert_eq!(r.bytes().await.unwrap(), cold);
    let r = second.get_with_key(&format!("{SIDE}&w=128"), &key).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "x-image-source"), "cache");
    assert_eq!(header(&r, "x-image-width"), "128");
    assert_eq!(renders.renders(), 0, "served from the bucket, not rendered");
}
