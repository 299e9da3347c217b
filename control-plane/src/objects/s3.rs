//! Objects in an S3 bucket (AWS or any S3-compatible server), one S3 object
//! per key under an optional prefix. The content type is the object's
//! `Content-Type`; the SHA-256 travels as user metadata (`x-amz-meta-sha256`).
//!
//! Atomic for readers without any help from us: an S3 PUT replaces the whole
//! object or nothing, and S3 reads are strongly consistent after a write, so a
//! reader sees the old object or the new one, never a part.
//!
//! Requests go through the SDK's standard retry mode (exponential backoff
//! with jitter on throttling, 5xx and connection errors) under explicit
//! timeouts; the HTTPS client is rustls with ring (see ARCHITECTURE.md).
//! Credentials come from aws-config's standard chain and are never logged
//! (the SDK redacts them in its own debug output).

use std::time::Duration;

use async_trait::async_trait;
use aws_config::BehaviorVersion;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_sdk_s3::config::Region;
use aws_sdk_s3::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};
use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::{Object, ObjectError, ObjectKey, ObjectMeta, ObjectStore};
use crate::config::S3Config;

/// The user-metadata name of the SHA-256 (sent as `x-amz-meta-sha256`).
const SHA256_METADATA: &str = "sha256";
/// The content type, also as user metadata (`x-amz-meta-content-type`):
/// user metadata is written with the object in one piece, while some
/// S3-compatible servers (moto, under concurrent overwrites) briefly serve
/// a new object with a default `Content-Type`. Read first; the header is
/// the fallback for objects copied in by other tools.
const CONTENT_TYPE_METADATA: &str = "content-type";
/// Written by [`ObjectStore::check`]; a leading dot keeps it apart from every
/// [`ObjectKey`].
const PROBE_KEY: &str = ".readyz";

/// Where each setting comes from, for error messages.
const BUCKET_SETTING: &str = "VIS_S3_BUCKET, --s3-bucket or [s3] bucket";
const ENDPOINT_SETTING: &str = "VIS_S3_ENDPOINT, --s3-endpoint or [s3] endpoint";
const REGION_SETTING: &str = "VIS_S3_REGION, --s3-region, [s3] region or AWS_REGION";
const CREDENTIALS_CHAIN: &str = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE with ~/.aws/config and ~/.aws/credentials, web identity (AWS_WEB_IDENTITY_TOKEN_FILE), or an ECS or EC2 instance role";

/// Attempts per request (the first plus two retries), the SDK's standard mode.
const MAX_ATTEMPTS: u32 = 3;
/// The first retry waits up to this long (full jitter); each one after
/// doubles it, up to [`MAX_BACKOFF`]. Shorter than the SDK's 1 s default: a
/// person is waiting for the image.
const INITIAL_BACKOFF: Duration = Duration::from_millis(200);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// One attempt, including reading a source render (a few MB at most).
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(30);
/// All attempts of one operation together.
const OPERATION_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
pub struct S3ObjectStore {
    client: aws_sdk_s3::Client,
    bucket: String,
    prefix: String,
    /// The endpoint as configured, or "AWS", for error messages.
    endpoint: String,
}

impl S3ObjectStore {
    /// Builds the client: the HTTPS client, region and credentials chain,
    /// retries and timeouts. Contacts nothing yet; [`ObjectStore::check`] does.
    pub async fn connect(config: &S3Config) -> Result<S3ObjectStore, ObjectError> {
        S3ObjectStore::connect_with(config, aws_config::defaults(BehaviorVersion::latest())).await
    }

    /// [`S3ObjectStore::connect`] on a loader that may already say more
    /// (tests give it credentials).
    async fn connect_with(
        config: &S3Config,
        loader: aws_config::ConfigLoader,
    ) -> Result<S3ObjectStore, ObjectError> {
        let http = aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
            .build_https();
        let retry = RetryConfig::standard()
            .with_max_attempts(MAX_ATTEMPTS)
            .with_initial_backoff(INITIAL_BACKOFF)
            .with_max_backoff(MAX_BACKOFF);
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .operation_attempt_timeout(ATTEMPT_TIMEOUT)
            .operation_timeout(OPERATION_TIMEOUT)
            .build();
        let mut loader = loader
            .http_client(http)
            .retry_config(retry)
            .timeout_config(timeouts);
        if let Some(region) = &config.region {
            loader = loader.region(Region::new(region.clone()));
        }
        let shared = loader.load().await;
        let mut s3 = aws_sdk_s3::config::Builder::from(&shared);
        let region = match shared.region() {
            Some(region) => region.to_string(),
            // S3-compatible servers mostly ignore the region but the signer
            // needs one; AWS itself must be told.
            None if config.endpoint.is_some() => {
                s3 = s3.region(Region::from_static("us-east-1"));
                "us-east-1".to_owned()
            }
            None => {
                return Err(ObjectError::Unavailable(format!(
                    "S3 has no region: set {REGION_SETTING}"
                )));
            }
        };
        if let Some(endpoint) = &config.endpoint {
            s3 = s3.endpoint_url(endpoint);
        }
        s3 = s3.force_path_style(config.force_path_style);
        let endpoint = config.endpoint.clone().unwrap_or_else(|| "AWS".into());
        tracing::info!(
            s3.bucket = %config.bucket,
            s3.region = %region,
            s3.endpoint = %endpoint,
            s3.prefix = %config.prefix,
            s3.force_path_style = config.force_path_style,
            "object store: S3"
        );
        Ok(S3ObjectStore {
            client: aws_sdk_s3::Client::from_conf(s3.build()),
            bucket: config.bucket.clone(),
            prefix: config.prefix.clone(),
            endpoint,
        })
    }

    async fn get_once(&self, key: &ObjectKey) -> Result<Option<Object>, GetFailure> {
        let response = match self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(self.key(key.as_str()))
            .send()
            .await
        {
            Ok(r) => r,
            Err(SdkError::ServiceError(e)) if e.err().is_no_such_key() => return Ok(None),
            Err(e) => return Err(GetFailure::Other(self.error("GET", key.as_str(), e))),
        };
        let content_type = content_type_of(response.metadata(), response.content_type());
        let stored = stored_sha256(response.metadata());
        let expected = response.content_length();
        let bytes = response
            .body
            .collect()
            .await
            .map_err(|e| GetFailure::Body(e.to_string()))?
            .into_bytes();
        if expected.is_some_and(|n| n != bytes.len() as i64) {
            return Err(GetFailure::Body(format!(
                "S3 announced {} bytes, sent {}",
                expected.unwrap_or_default(),
                bytes.len()
            )));
        }
        let sha256 = match stored {
            Some(sha) => sha,
            None => sha256_hex(&bytes),
        };
        Ok(Some(Object {
            meta: ObjectMeta {
                content_type,
                size: bytes.len() as u64,
                sha256,
            },
            bytes,
        }))
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// An SDK error as [`ObjectError::Unavailable`], naming the setting an
    /// operator would have to fix.
    fn error<E>(&self, op: &str, key: &str, e: SdkError<E>) -> ObjectError
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        let (bucket, endpoint) = (&self.bucket, &self.endpoint);
        let what = format!("S3 {op} s3://{bucket}/{}", self.key(key));
        let detail = match &e {
            SdkError::ServiceError(service) => match service.err().code() {
                Some("NoSuchBucket") => format!(
                    "bucket {bucket:?} does not exist at {endpoint} (set by {BUCKET_SETTING})"
                ),
                Some(
                    "AccessDenied"
                    | "InvalidAccessKeyId"
                    | "SignatureDoesNotMatch"
                    | "ExpiredToken"
                    | "InvalidToken",
                ) => format!(
                    "access to bucket {bucket:?} at {endpoint} was refused ({}): check the credentials ({CREDENTIALS_CHAIN}) and the bucket's policy",
                    service.err().code().unwrap_or_default()
                ),
                Some("PermanentRedirect" | "AuthorizationHeaderMalformed") => format!(
                    "bucket {bucket:?} is in another region ({REGION_SETTING}): {}",
                    DisplayErrorContext(&e)
                ),
                _ => match service.raw().status().as_u16() {
                    // HEAD answers carry no error code.
                    404 => format!(
                        "bucket {bucket:?} does not exist at {endpoint} (set by {BUCKET_SETTING})"
                    ),
                    403 => format!(
                        "access to bucket {bucket:?} at {endpoint} was refused: check the credentials ({CREDENTIALS_CHAIN}) and the bucket's policy"
                    ),
                    _ => DisplayErrorContext(&e).to_string(),
                },
            },
            SdkError::DispatchFailure(d) if !(d.is_io() || d.is_timeout()) => {
                let context = DisplayErrorContext(&e).to_string();
                // The identity is resolved when the request is sent, so a
                // chain that found nothing fails here, not at start.
                if context.to_ascii_lowercase().contains("credential") {
                    format!(
                        "no usable AWS credentials; they come from {CREDENTIALS_CHAIN}: {context}"
                    )
                } else {
                    context
                }
            }
            SdkError::DispatchFailure(_) | SdkError::TimeoutError(_) => format!(
                "cannot reach {endpoint} ({ENDPOINT_SETTING}; {REGION_SETTING}): {}",
                DisplayErrorContext(&e)
            ),
            SdkError::ConstructionFailure(_) => format!(
                "cannot sign the request; credentials come from {CREDENTIALS_CHAIN}: {}",
                DisplayErrorContext(&e)
            ),
            _ => DisplayErrorContext(&e).to_string(),
        };
        ObjectError::Unavailable(format!("{what}: {detail}"))
    }
}

enum GetFailure {
    /// The response's body did not arrive whole: worth another try.
    Body(String),
    Other(ObjectError),
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The stored SHA-256, when the object carries a well-formed one (objects
/// copied in by other tools do not).
fn stored_sha256(metadata: Option<&std::collections::HashMap<String, String>>) -> Option<String> {
    metadata
        .and_then(|m| m.get(SHA256_METADATA))
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(|v| v.to_ascii_lowercase())
}

fn content_type_of(
    metadata: Option<&std::collections::HashMap<String, String>>,
    header: Option<&str>,
) -> String {
    metadata
        .and_then(|m| m.get(CONTENT_TYPE_METADATA))
        .map(String::as_str)
        .or(header)
        .unwrap_or("application/octet-stream")
        .to_owned()
}

#[async_trait]
impl ObjectStore for S3ObjectStore {
    async fn put(
        &self,
        key: &ObjectKey,
        bytes: Bytes,
        content_type: &str,
    ) -> Result<ObjectMeta, ObjectError> {
        let meta = ObjectMeta {
            content_type: content_type.to_owned(),
            size: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
        };
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(self.key(key.as_str()))
            .content_type(content_type)
            .metadata(SHA256_METADATA, &meta.sha256)
            .metadata(CONTENT_TYPE_METADATA, content_type)
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map_err(|e| self.error("PUT", key.as_str(), e))?;
        Ok(meta)
    }

    async fn get(&self, key: &ObjectKey) -> Result<Option<Object>, ObjectError> {
        // The SDK retries until the response's head arrives; a body cut off
        // after that (a reset, a stall) is retried here, with the same backoff.
        let mut backoff = INITIAL_BACKOFF;
        let mut attempt = 1;
        loop {
            match self.get_once(key).await {
                Err(GetFailure::Body(e)) if attempt < MAX_ATTEMPTS => {
                    tracing::warn!(s3.key = %key, error = %e, attempt, "S3 GET body cut off; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                    attempt += 1;
                }
                Err(GetFailure::Body(e)) => {
                    return Err(ObjectError::Unavailable(format!(
                        "S3 GET s3://{}/{}: reading the body: {e}",
                        self.bucket,
                        self.key(key.as_str())
                    )));
                }
                Err(GetFailure::Other(e)) => return Err(e),
                Ok(found) => return Ok(found),
            }
        }
    }

    async fn head(&self, key: &ObjectKey) -> Result<Option<ObjectMeta>, ObjectError> {
        let response = match self
            .client
            .head_object()
            .bucket(&self.bucket)
            .key(self.key(key.as_str()))
            .send()
            .await
        {
            Ok(r) => r,
            Err(SdkError::ServiceError(e)) if e.err().is_not_found() => return Ok(None),
            Err(e) => return Err(self.error("HEAD", key.as_str(), e)),
        };
        match stored_sha256(response.metadata()) {
            Some(sha256) => Ok(Some(ObjectMeta {
                content_type: content_type_of(response.metadata(), response.content_type()),
                size: response
                    .content_length()
                    .and_then(|n| u64::try_from(n).ok())
                    .unwrap_or_default(),
                sha256,
            })),
            // Copied in without our metadata: the hash needs the bytes.
            None => Ok(self.get(key).await?.map(|o| o.meta)),
        }
    }

    async fn delete(&self, key: &ObjectKey) -> Result<(), ObjectError> {
        // S3 answers 204 whether or not the key existed.
        self.client
            .delete_object()
            .bucket(&self.bucket)
            .key(self.key(key.as_str()))
            .send()
            .await
            .map_err(|e| self.error("DELETE", key.as_str(), e))?;
        Ok(())
    }

    async fn check(&self) -> Result<(), ObjectError> {
        // A write proves the bucket exists and the credentials may write.
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(self.key(PROBE_KEY))
            .content_type("text/plain")
            .body(ByteStream::from_static(b"ok"))
            .send()
            .await
            .map_err(|e| self.error("PUT", PROBE_KEY, e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A server that answers each connection with the next canned response
    /// and closes it; counts the requests it read.
    async fn scripted(responses: Vec<String>) -> (String, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let served = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&served);
        tokio::spawn(async move {
            for response in responses {
                let (mut socket, _) = listener.accept().await.unwrap();
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = socket.read(&mut buf).await.unwrap();
                    if n == 0 {
                        break;
                    }
                    head.extend_from_slice(&buf[..n]);
                }
                count.fetch_add(1, Ordering::SeqCst);
                socket.write_all(response.as_bytes()).await.unwrap();
                let _ = socket.shutdown().await;
            }
        });
        (format!("http://{addr}"), served)
    }

    fn response(status: &str, headers: &str, declared_len: usize, body: &str) -> String {
        format!(
            "HTTP/1.1 {status}\r\nContent-Length: {declared_len}\r\nConnection: close\r\n{headers}\r\n{body}"
        )
    }

    async fn store_at(endpoint: String) -> S3ObjectStore {
        let config = S3Config {
            bucket: "b".into(),
            region: Some("us-east-1".into()),
            endpoint: Some(endpoint),
            force_path_style: true,
            prefix: String::new(),
        };
        let credentials = aws_sdk_s3::config::Credentials::new("id", "secret", None, None, "test");
        let loader =
            aws_config::defaults(BehaviorVersion::latest()).credentials_provider(credentials);
        S3ObjectStore::connect_with(&config, loader).await.unwrap()
    }

    #[tokio::test]
    async fn a_get_is_retried_after_a_server_error_and_after_a_cut_off_body() {
        let body = "0123456789";
        let error = "<Error><Code>InternalError</Code><Message>try again</Message></Error>";
        let (endpoint, served) = scripted(vec![
            response(
                "500 Internal Server Error",
                "Content-Type: application/xml\r\n",
                error.len(),
                error,
            ),
            // Ten bytes announced, five sent, then the connection closes.
            response(
                "200 OK",
                "Content-Type: image/png\r\n",
                body.len(),
                &body[..5],
            ),
            response("200 OK", "Content-Type: image/png\r\n", body.len(), body),
        ])
        .await;
        let store = store_at(endpoint).await;
        let obj = store
            .get(&ObjectKey::parse("a/b.png").unwrap())
            .await
            .unwrap()
            .expect("found on the third try");
        assert_eq!(&obj.bytes[..], body.as_bytes());
        assert_eq!(obj.meta.content_type, "image/png");
        assert_eq!(obj.meta.sha256, sha256_hex(body.as_bytes()));
        assert_eq!(served.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_get_gives_up_after_the_stated_attempts() {
        let error = "<Error><Code>SlowDown</Code><Message>slow down</Message></Error>";
        let slow = response(
            "503 Slow Down",
            "Content-Type: application/xml\r\n",
            error.len(),
            error,
        );
        let (endpoint, served) = scripted(vec![slow; 5]).await;
        let store = store_at(endpoint).await;
        let err = store
            .get(&ObjectKey::parse("a/b.png").unwrap())
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("SlowDown"), "{err}");
        assert_eq!(served.load(Ordering::SeqCst), MAX_ATTEMPTS as usize);
    }
}
