//! The request's `Accept` header, parsed once by the `mime` crate, and the
//! two rules that read it: whether the client wants the JSON form of an
//! image route (spec §4), and the q values `format=auto` chooses by
//! (`vis_protocol::Format::negotiate`, docs/formats.md). The rules are
//! the spec's and ours, not generic content negotiation.

use axum::http::{HeaderMap, header};
use vis_protocol::Format;

/// The media ranges of every `Accept` value, each with its q (1 when
/// absent or unreadable); ranges `mime` cannot parse are left out.
#[derive(Debug, Clone, Default)]
pub struct Accept(Vec<(mime::Mime, f32)>);

impl Accept {
    pub fn of(headers: &HeaderMap) -> Accept {
        let ranges = headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|range| range.trim().parse::<mime::Mime>().ok())
            .map(|m| {
                let q = m
                    .get_param("q")
                    .and_then(|q| q.as_str().parse::<f32>().ok())
                    .unwrap_or(1.0);
                (m, q)
            })
            .collect();
        Accept(ranges)
    }

    /// Whether the client asked for JSON and for no image type (spec §4). A
    /// wildcard (`*/*`, `image/*`) accepts images, so axios' default
    /// `application/json, text/plain, */*` still gets the image; a media
    /// range with `q=0` is one the client refuses.
    pub fn wants_json(&self) -> bool {
        let acceptable = || self.0.iter().filter(|(_, q)| *q > 0.0).map(|(m, _)| m);
        let json =
            acceptable().any(|m| m.type_() == mime::APPLICATION && m.subtype() == mime::JSON);
        let image = acceptable().any(|m| m.type_() == mime::IMAGE || m.type_() == mime::STAR);
        json && !image
    }

    /// The highest q of the ranges that name `format`'s own media type (0
    /// when none does): a wildcard names no format.
    pub fn q(&self, format: Format) -> f32 {
        self.0
            .iter()
            .filter(|(m, _)| m.essence_str() == format.mime())
            .map(|(_, q)| *q)
            .fold(0.0, f32::max)
    }

    /// The format `format=auto` gives a transparent image for this client.
    pub fn auto_format(&self) -> Format {
        Format::negotiate(|f| self.q(f), true)
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn accept(value: &str) -> Accept {
        let mut m = HeaderMap::new();
        m.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        Accept::of(&m)
    }

    #[test]
    fn json_form_only_when_no_image_type_is_acceptable() {
        let h = |value: &str| accept(value).wants_json();
        assert!(h("application/json"));
        assert!(h("application/json; charset=utf-8"));
        assert!(!h("application/json, text/plain, */*"));
        assert!(!h("application/json, image/webp"));
        assert!(!h("image/*"));
        assert!(!h("*/*"));
        assert!(!Accept::of(&HeaderMap::new()).wants_json());
        // A refused image type (q=0) is no image type.
        assert!(h("application/json, image/*;q=0"));
        assert!(!h("application/json, image/webp;q=0.5"));
        assert!(!h("application/json;q=0, image/png"));
        assert!(h("Application/JSON"));
    }

    #[test]
    fn auto_picks_the_smallest_format_the_client_names() {
        let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
        assert_eq!(accept(chrome).auto_format(), Format::Avif);
        assert_eq!(accept("image/webp,*/*").auto_format(), Format::Webp);
        // A wildcard promises neither AVIF nor WebP.
        assert_eq!(accept("*/*").auto_format(), Format::Png);
        assert_eq!(accept("image/*").auto_format(), Format::Png);
        assert_eq!(accept("image/*").q(Format::Avif), 0.0);
        assert_eq!(Accept::of(&HeaderMap::new()).auto_format(), Format::Png);
        // q=0 refuses; a higher q wins; a tie goes to AVIF.
        assert_eq!(
            accept("image/avif;q=0, image/webp").auto_format(),
            Format::Webp
        );
        assert_eq!(
            accept("image/avif;q=0.5, image/webp;q=0.9").auto_format(),
            Format::Webp
        );
        assert_eq!(
            accept("IMAGE/WEBP; Q=0.7, image/avif;q=0.7").auto_format(),
            Format::Avif
        );
        assert_eq!(
            accept("image/avif;q=0, image/webp;q=0").auto_format(),
            Format::Png
        );
        // Two Accept headers are one list.
        let mut m = HeaderMap::new();
        m.append(header::ACCEPT, HeaderValue::from_static("text/html"));
        m.append(header::ACCEPT, HeaderValue::from_static("image/avif"));
        assert_eq!(Accept::of(&m).auto_format(), Format::Avif);
    }
}
