//! The home page's example images (grant 3 of `GET /images/car.png`): a
//! fixed set of variants, configured in `[embeds] examples`, free and
//! publicly cacheable. A request is an example when it resolves to exactly
//! one of them (vehicle, view, colour, size and format).

use vis_catalog::Catalog;
use vis_protocol::{Color, Format, FormatChoice, View};

use crate::config::{EmbedsConfig, ExampleVehicle};
use crate::delivery::{self, ImageParams, Resolved};

/// One example, resolved against the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    pub resolved: Resolved,
    /// `2020 Porsche 911`, for captions and alt text.
    pub caption: String,
    /// Its canonical `/images/car.png?…` path.
    pub path: String,
}

#[derive(Debug, Clone, Default)]
pub struct Examples(Vec<Example>);

impl Examples {
    /// Resolves the configured examples; an example the catalog does not
    /// have is a configuration error naming it.
    pub fn resolve(
        catalog: &Catalog,
        config: &EmbedsConfig,
        revision: u32,
    ) -> Result<Examples, String> {
        let format: Format = config
            .examples_format
            .parse()
            .map_err(|e| format!("embeds.examples_format: {e}"))?;
        let mut out = Vec::new();
        for (i, ex) in config.examples.iter().enumerate() {
            let at = |what: String| format!("embeds.examples[{i}]: {what}");
            let params = params_of(ex, config.examples_width, format).map_err(at)?;
            let vehicle = catalog
                .lookup(&params.make, &params.model, params.year)
                .map_err(|e| at(e.to_string()))?;
            let resolved =
                delivery::resolve(catalog, &params, revision).map_err(|e| at(e.to_string()))?;
            out.push(Example {
                path: format!("/images/car.png?{}", resolved.canonical_query()),
                caption: format!(
                    "{} {} {}",
                    vehicle.year, vehicle.make.name, vehicle.model.name
                ),
                resolved,
            });
        }
        Ok(Examples(out))
    }

    /// Whether `r` is one of the examples.
    pub fn contains(&self, r: &Resolved) -> bool {
        self.0.iter().any(|e| {
            let x = &e.resolved;
            // Any revision: a re-rendered example is still an example.
            x.variant == r.variant && (x.width, x.height, x.format) == (r.width, r.height, r.format)
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = &Example> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Renders the examples in the background, one after another, so that the
/// home page never waits for a cold render; a failure is logged.
pub fn prewarm(deliverer: crate::delivery::Deliverer, examples: Examples) {
    tokio::spawn(async move {
        for example in examples.iter() {
            if let Err(e) = deliverer.output(&example.resolved).await {
                tracing::warn!(error = %e, example = %example.caption, "could not prewarm an example image");
            }
        }
    });
}

fn params_of(ex: &ExampleVehicle, width: u32, format: Format) -> Result<ImageParams, String> {
    let view: View = ex.view.parse().map_err(|e| format!("view: {e}"))?;
    let color: Color = ex.color.parse().map_err(|e| format!("color: {e}"))?;
    Ok(ImageParams {
        make: ex.make.clone(),
        model: ex.model.clone(),
        year: ex.year,
        view,
        color: color.into(),
        paint: None,
        width: Some(width),
        height: None,
        format: FormatChoice::Fixed(format),
        framing: vis_protocol::Framing::default(),
        staging: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_examples_are_all_in_the_catalog() {
        let config = EmbedsConfig::default();
        let examples = Examples::resolve(Catalog::embedded(), &config, 1).unwrap();
        assert_eq!(examples.len(), config.examples.len());
        assert!(examples.len() >= 6);
        let first = examples.iter().next().unwrap();
        assert!(examples.contains(&first.resolved));
        assert!(
            first.path.starts_with("/images/car.png?make="),
            "{}",
            first.path
        );
        let mut other = first.resolved.clone();
        other.width = 100;
        assert!(!examples.contains(&other), "another size is not an example");
    }

    #[test]
    fn an_example_not_in_the_catalog_is_named() {
        let mut config = EmbedsConfig::default();
        config.examples[1].model = "no-such-model".into();
        let err = Examples::resolve(Catalog::embedded(), &config, 1).unwrap_err();
        assert!(err.starts_with("embeds.examples[1]"), "{err}");
    }
}
