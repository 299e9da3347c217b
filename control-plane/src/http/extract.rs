//! Body extractors that fail with problem documents naming the parameter.

use axum::extract::{FromRequest, Request};
use axum::http::header;
use serde::de::DeserializeOwned;

use crate::http::error::ApiError;

/// A JSON body of at most `LIMIT` bytes, deserialised into `T`. Oversized
/// bodies give 413, malformed JSON and wrong fields give 400 whose `param`
/// is the JSON path of the offending field (`images[3].year`).
#[derive(Debug)]
pub struct ApiJson<T, const LIMIT: usize>(pub T);

impl<S, T, const LIMIT: usize> FromRequest<S> for ApiJson<T, LIMIT>
where
    S: Send + Sync,
    T: DeserializeOwned + Described,
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
            let cause = e.into_inner();
            if cause.is::<http_body_util::LengthLimitError>() {
                too_large
            } else if caused_by::<super::body_clock::BodyTimedOut>(cause.as_ref()) {
                ApiError::RequestTimeout
            } else {
                ApiError::bad_request("body", "the request body could not be read in full")
            }
        })
}

/// Whether `err` or anything in its source chain is an `E`.
pub(super) fn caused_by<E: std::error::Error + 'static>(
    err: &(dyn std::error::Error + 'static),
) -> bool {
    let mut next = Some(err);
    while let Some(e) = next {
        if e.is::<E>() {
            return true;
        }
        next = e.source();
    }
    false
}

/// A query string's parameters, each allowed name at most once; an unknown
/// or repeated name is a 400 naming it (silently ignoring a misspelt
/// parameter would answer, or bill, the wrong thing).
#[derive(Debug, Default)]
pub struct QueryParams(Vec<(String, String)>);

impl QueryParams {
    pub fn parse(raw: Option<&str>, known: &[&str]) -> Result<QueryParams, ApiError> {
        QueryParams::parse_known(raw, &[known])
    }

    /// [`QueryParams::parse`] with the known names in several lists (an
    /// image's parameters, then an endpoint's own).
    pub fn parse_known(raw: Option<&str>, known: &[&[&str]]) -> Result<QueryParams, ApiError> {
        let mut seen: Vec<(String, String)> = Vec::new();
        for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            if !known.iter().any(|list| list.contains(&k.as_ref())) {
                return Err(ApiError::bad_request(
                    k.as_ref(),
                    format!(
                        "unknown parameter; this endpoint accepts: {}",
                        known.concat().join(", ")
                    ),
                ));
            }
            if seen.iter().any(|(name, _)| *name == k) {
                return Err(ApiError::bad_request(k.as_ref(), "given more than once"));
            }
            plain_text(&k, &v)?;
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

/// How a JSON body speaks of itself in errors: what the body must be, and
/// each field's rule in the API's words (never a Rust type).
pub trait Described {
    /// What the body must be, e.g. `a JSON object with query (required) …`.
    const SHAPE: &'static str;
    /// `(field, rule)`: the rule completes "… must be <rule>". A nested
    /// field (`images[2].year`) is looked up by its last name.
    const RULES: &'static [(&'static str, &'static str)];
}

impl Described for serde_json::Value {
    const SHAPE: &'static str = "a JSON document";
    const RULES: &'static [(&'static str, &'static str)] = &[];
}

/// Deserialises a JSON body. Every failure is a 400 naming the parameter by
/// its JSON path (`images[2].year`) and saying what is allowed; text that
/// carries control, invisible or combining characters is refused too.
pub fn parse_json<T: serde::de::DeserializeOwned + Described>(bytes: &[u8]) -> Result<T, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        ApiError::bad_request(
            "body",
            format!(
                "the body is not valid JSON (line {}, column {})",
                e.line(),
                e.column()
            ),
        )
    })?;
    check_strings(&value, &mut String::new())?;
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let message = err.into_inner().to_string();
        describe_error::<T>(&path, &message)
    })
}

/// Turns serde's message into the API's words.
fn describe_error<T: Described>(path: &str, message: &str) -> ApiError {
    let at = |field: &str| {
        if path == "." || path.is_empty() {
            field.to_owned()
        } else {
            format!("{path}.{field}")
        }
    };
    let quoted = |m: &str| -> Option<String> {
        let start = m.find('`')? + 1;
        let end = start + m[start..].find('`')?;
        Some(m[start..end].to_owned())
    };
    let allowed = || {
        T::RULES
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if message.starts_with("missing field") {
        let field = quoted(message).unwrap_or_default();
        let param = at(&field);
        return ApiError::bad_request(
            param,
            match rule_of::<T>(&field) {
                Some(rule) => format!("is required: {rule}"),
                None => "is required".to_owned(),
            },
        );
    }
    if message.starts_with("unknown field") {
        let field = quoted(message).unwrap_or_default();
        // The path already ends at the unknown field.
        let param = if path.ends_with(&field) && !field.is_empty() {
            path.to_owned()
        } else {
            at(&field)
        };
        return ApiError::bad_request(
            param,
            format!("is not a field of this body; the fields are: {}", allowed()),
        );
    }
    if message.starts_with("duplicate field") {
        let field = quoted(message).unwrap_or_default();
        return ApiError::bad_request(at(&field), "is given more than once");
    }
    if path == "." || path.is_empty() {
        return ApiError::bad_request("body", format!("must be {}", T::SHAPE));
    }
    let last = last_name(path);
    match rule_of::<T>(last) {
        Some(rule) => ApiError::bad_request(path, format!("must be {rule}")),
        None => ApiError::bad_request(path, "is not an allowed value"),
    }
}

/// `images[2].year` → `year`; `images[2]` → `images`.
fn last_name(path: &str) -> &str {
    let tail = path.rsplit('.').next().unwrap_or(path);
    tail.split('[').next().unwrap_or(tail)
}

fn rule_of<T: Described>(field: &str) -> Option<&'static str> {
    T::RULES
        .iter()
        .find(|(name, _)| *name == field)
        .map(|(_, rule)| *rule)
}

/// Refuses text with control, invisible format or combining characters in
/// any string of a JSON document, naming its path.
fn check_strings(value: &serde_json::Value, path: &mut String) -> Result<(), ApiError> {
    use serde_json::Value;
    match value {
        Value::String(s) => plain_text(if path.is_empty() { "body" } else { path }, s),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                check_strings(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                check_strings(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Text parameters are what they look like: no control characters, no
/// invisible format characters (zero-width space, bidi controls), no
/// combining marks (send precomposed letters), nothing unassigned or
/// private. Such a character would be normalised away by the catalog and
/// billed as if it were not there.
pub fn plain_text(param: &str, value: &str) -> Result<(), ApiError> {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    let bad = value.chars().find(|c| {
        matches!(
            c.general_category(),
            GeneralCategory::Control
                | GeneralCategory::Format
                | GeneralCategory::NonspacingMark
                | GeneralCategory::EnclosingMark
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
                | GeneralCategory::PrivateUse
                | GeneralCategory::Surrogate
                | GeneralCategory::Unassigned
        )
    });
    match bad {
        None => Ok(()),
        Some(c) => Err(ApiError::bad_request(
            param,
            format!(
                "must not contain control, invisible or combining characters (found U+{:04X}); send plain text with precomposed letters",
                c as u32
            ),
        )),
    }
}

/// Whether an If-None-Match header value matches `etag` under the weak
/// comparison (spec §4: `W/` on either side still matches; `*` matches
/// anything). Parsed by the `headers` crate; an unparsable value matches
/// nothing.
pub fn if_none_match(value: &str, etag: &str) -> bool {
    use headers::Header;
    let (Ok(value), Ok(tag)) = (
        axum::http::HeaderValue::from_str(value),
        etag.parse::<headers::ETag>(),
    ) else {
        return false;
    };
    match headers::IfNoneMatch::decode(&mut std::iter::once(&value)) {
        Ok(inm) => !inm.precondition_passes(&tag),
        Err(_) => false,
    }
}

/// A JSON integer field: JSON Schema counts `2019.0` as the integer 2019,
/// so a number with no fractional part is accepted; anything else fails
/// (and the body's rules name the field). `null` is absent.
pub fn de_int<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    use serde::Deserialize;
    use serde::de::Error;
    let value = Option::<serde_json::Number>::deserialize(d)?;
    let Some(n) = value else { return Ok(None) };
    if let Some(i) = n.as_i64() {
        return Ok(Some(i));
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
        _ => Err(D::Error::custom("not an integer")),
    }
}

/// A JSON boolean field, kept as its word (`true`, `false`) so that a
/// query string's text and a body's boolean are checked by one rule;
/// anything but a boolean fails (and the body's rules name the field).
/// `null` is absent.
pub fn de_bool_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    use serde::Deserialize;
    Ok(Option::<bool>::deserialize(d)?.map(|b| b.to_string()))
}

/// A query-string integer: plain decimal digits, optionally after a minus
/// sign, without leading zeros, signs, spaces or exponents; else `None`
/// (the caller's range message then names the parameter).
pub fn plain_int(raw: &str) -> Option<i64> {
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    let plain = !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if !plain {
        return None;
    }
    raw.parse().ok()
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

    impl Described for Batch {
        const SHAPE: &'static str = "a JSON object with images";
        const RULES: &'static [(&'static str, &'static str)] = &[
            ("images", "an array of items"),
            ("make", "a non-empty string"),
            ("year", "an integer from 1990 to 2027"),
        ];
    }

    fn error_of(json: &str) -> (String, String) {
        match parse_json::<Batch>(json.as_bytes()).unwrap_err() {
            ApiError::BadRequest { param, message } => (param, message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_speak_the_api_words_never_rust_types() {
        assert_eq!(
            error_of(r#"{"images":[{"make":"a","year":-2020}]}"#),
            (
                "images[0].year".into(),
                "must be an integer from 1990 to 2027".into()
            )
        );
        assert_eq!(
            error_of("[]"),
            ("body".into(), "must be a JSON object with images".into())
        );
        assert_eq!(
            error_of(r#"{"images":"x"}"#),
            ("images".into(), "must be an array of items".into())
        );
        let (param, message) = error_of(r#"{"images":[{"make":"a"}]}"#);
        assert_eq!(param, "images[0].year");
        assert!(message.starts_with("is required"), "{message}");
        for json in [
            r#"{"images":[{"make":"a","year":-2020}]}"#,
            "[]",
            r#"{"images":[{"make":"a","year":"x"}]}"#,
            r#"{"images":[{"make":1,"year":2020}]}"#,
        ] {
            let (_, message) = error_of(json);
            for rust in ["u16", "i64", "struct", "sequence", "expected"] {
                assert!(!message.contains(rust), "{json}: {message}");
            }
        }
    }

    #[test]
    fn invisible_and_control_characters_are_refused_by_path() {
        for text in ["toyota\\u0000", "toy\\u200bota", "toyo\\u0301ta", "a\\nb"] {
            let json = format!(r#"{{"images":[{{"make":"{text}","year":2020}}]}}"#);
            let (param, message) = error_of(&json);
            assert_eq!(param, "images[0].make", "{text}");
            assert!(message.contains("must not contain"), "{message}");
        }
        // Precomposed letters are text like any other.
        assert!(
            parse_json::<Batch>(r#"{"images":[{"make":"Citro\u00ebn","year":2020}]}"#.as_bytes())
                .is_ok()
        );
        assert!(plain_text("q", "Mercedes-Benz C 300 4MATIC").is_ok());
        assert!(plain_text("q", "ok\u{7f}").is_err());
        assert!(plain_text("q", "\u{202e}evil").is_err());
    }

    #[test]
    fn weak_comparison_of_etags() {
        let tag = "\"r1-abc\"";
        assert!(if_none_match("\"r1-abc\"", tag));
        assert!(if_none_match("W/\"r1-abc\"", tag));
        assert!(if_none_match("\"x\", W/\"r1-abc\"", tag));
        assert!(if_none_match("*", tag));
        assert!(!if_none_match("\"r2-abc\"", tag));
        assert!(if_none_match("\"r1-abc\"", "W/\"r1-abc\""));
        assert!(!if_none_match("not an etag", tag));
    }

    #[test]
    fn integers_are_plain_decimal_digits() {
        assert_eq!(plain_int("2020"), Some(2020));
        assert_eq!(plain_int("0"), Some(0));
        assert_eq!(plain_int("-5"), Some(-5));
        for bad in [
            "+2020",
            "02020",
            " 2020",
            "2020 ",
            "2e3",
            "",
            "-",
            "0x7e4",
            "99999999999999999999",
        ] {
            assert_eq!(plain_int(bad), None, "{bad:?}");
        }
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
