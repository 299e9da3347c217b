//! Body extractors that fail with problem documents naming the parameter.

use axum::extract::{FromRequest, Request};
use axum::http::header;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON body of at most `LIMIT` bytes, deserialised into `T`. Oversized
/// bodies give 413, malformed JSON and wrong fields give 400 whose `param`
/// is the JSON path of the offending field (`images[3].year`).
#[derive(Debug)]
pub struct ApiJson<T, const LIMIT: usize>(pub T);

impl<S, T, const LIMIT: usize> FromRequest<S> for ApiJson<T, LIMIT>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        let bytes = read_body::<LIMIT>(req, true).await?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// Reads the body, refusing more than `LIMIT` bytes with 413. With
/// `require_json`, a Content-Type other than JSON is a 400 naming it.
pub async fn read_body<const LIMIT: usize>(
    req: Request,
    require_json: bool,
) -> Result<bytes::Bytes, ApiError> {
    let too_large = ApiError::PayloadTooLarge { limit_bytes: LIMIT };
    if let Some(len) = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        && len > LIMIT
    {
        return Err(too_large);
    }
    if require_json {
        let ct = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let mime = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if mime != "application/json"
            && !(mime.starts_with("application/") && mime.ends_with("+json"))
        {
            return Err(ApiError::bad_request(
                "Content-Type",
                format!(
                    "expected application/json, got {:?}",
                    if ct.is_empty() { "nothing" } else { ct }
                ),
            ));
        }
    }
    axum::body::to_bytes(req.into_body(), LIMIT)
        .await
        .map_err(|e| {
            // Only an overrun is a 413; a body that breaks off (the client
            // went away, a malformed chunk) is the request's fault, a 400.
            if e.into_inner().is::<http_body_util::LengthLimitError>() {
                too_large
            } else {
                ApiError::bad_request("body", "the request body could not be read in full")
            }
        })
}

/// A query string's parameters, each allowed name at most once; an unknown
/// or repeated name is a 400 naming it (silently ignoring a misspelt
/// parameter would answer, or bill, the wrong thing).
#[derive(Debug, Default)]
pub struct QueryParams(Vec<(String, String)>);

impl QueryParams {
    pub fn parse(raw: Option<&str>, known: &[&str]) -> Result<QueryParams, ApiError> {
        let mut seen: Vec<(String, String)> = Vec::new();
        for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            if !known.contains(&k.as_ref()) {
                return Err(ApiError::bad_request(
                    k.as_ref(),
                    format!(
                        "unknown parameter; this endpoint accepts: {}",
                        known.join(", ")
                    ),
                ));
            }
            if seen.iter().any(|(name, _)| *name == k) {
                return Err(ApiError::bad_request(k.as_ref(), "given more than once"));
            }
            seen.push((k.into_owned(), v.into_owned()));
        }
        Ok(QueryParams(seen))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Deserialises JSON, naming the failing field in the error.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let message = inner.to_string();
        if inner.is_syntax() || inner.is_eof() {
            return ApiError::bad_request("body", format!("the body is not valid JSON: {message}"));
        }
        let param = missing_field(&message)
            .map(|field| {
                if path == "." {
                    field.to_owned()
                } else {
                    format!("{path}.{field}")
                }
            })
            .unwrap_or_else(|| if path == "." { "body".to_owned() } else { path });
        ApiError::bad_request(param, strip_position(&message))
    })
}

/// A missing field is named in the message ("missing field `model`"), not
/// in the path, which stops at its parent.
fn missing_field(message: &str) -> Option<&str> {
    if !message.starts_with("missing field") {
        return None;
    }
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(&message[start..end])
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that sends `ok` bytes, then fails.
    struct Broken {
        ok: usize,
    }

    impl http_body::Body for Broken {
        type Data = bytes::Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, std::io::Error>>>
        {
            let frame = if self.ok > 0 {
                let n = std::mem::take(&mut self.ok);
                Ok(http_body::Frame::data(bytes::Bytes::from(vec![b'x'; n])))
            } else {
                Err(std::io::Error::other("connection reset"))
            };
            std::task::Poll::Ready(Some(frame))
        }
    }

    fn request(body: axum::body::Body) -> Request {
        Request::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(body)
            .unwrap()
    }

    #[tokio::test]
    async fn only_an_overrun_is_413_and_a_broken_body_is_400_naming_body() {
        let over = read_body::<8>(request(axum::body::Body::from("0123456789")), true).await;
        assert!(matches!(
            over,
            Err(ApiError::PayloadTooLarge { limit_bytes: 8 })
        ));
        // Too long without a Content-Length (a chunked body) is a 413 too.
        let chunked = read_body::<8>(request(axum::body::Body::new(Broken { ok: 9 })), true).await;
        assert!(
            matches!(chunked, Err(ApiError::PayloadTooLarge { .. })),
            "{chunked:?}"
        );
        let broken = read_body::<64>(request(axum::body::Body::new(Broken { ok: 3 })), true).await;
        match broken {
            Err(ApiError::BadRequest { param, .. }) => assert_eq!(param, "body"),
            other => panic!("{other:?}"),
        }
        let fine = read_body::<64>(request(axum::body::Body::from("{}")), true).await;
        assert_eq!(fine.unwrap().as_ref(), b"{}");
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        make: String,
        year: u16,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Batch {
        images: Vec<Item>,
    }

    fn param_of(json: &str) -> String {
        match parse_json::<Batch>(json.as_bytes()).unwrap_err() {
            ApiError::BadRequest { param, .. } => param,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_the_field() {
        assert_eq!(param_of("{"), "body");
        assert_eq!(param_of("{}"), "images");
        assert_eq!(param_of(r#"{"images":[],"x":1}"#), "x");
        assert_eq!(
            param_of(r#"{"images":[{"make":"a","year":1}, {"make":"b","year":"x"}]}"#),
            "images[1].year"
        );
        assert_eq!(param_of(r#"{"images":[{"make":"a"}]}"#), "images[0].year");
        assert_eq!(
            param_of(r#"{"images":[{"make":"a","year":1,"colour":"red"}]}"#),
            "images[0].colour"
        );
    }
}
