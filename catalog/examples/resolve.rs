//! Try the resolver and search from the command line:
//! `cargo run -p vis-catalog --example resolve -- "red 2019 toyta camry from behind"`.

fn main() {
    let cat = vis_catalog::Catalog::embedded();
    for q in std::env::args().skip(1) {
        match vis_catalog::resolve(
            cat,
            vis_catalog::ResolveInput {
                query: &q,
                ..Default::default()
            },
        ) {
            Ok(r) => println!(
                "{q:?} => {} {:?} {}",
                serde_json::to_string(&r.params).unwrap_or_default(),
                r.confidence,
                r.candidates
                    .iter()
                    .map(|c| format!("{}/{}:{}", c.make_slug, c.model_slug, c.match_kind.id()))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Err(e) => println!("{q:?} => ERR {e}"),
        }
        let hits = cat.search(&q, None, 5);
        println!(
            "    search: {}",
            hits.iter()
                .map(|h| format!(
                    "{}/{}:{}",
                    h.make_slug,
                    h.model_slug.as_deref().unwrap_or("-"),
                    h.match_kind.id()
                ))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
}
