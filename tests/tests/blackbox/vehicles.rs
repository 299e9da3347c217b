//! GET /api/v1/vehicles (spec §4): six variants chosen by parameters, 400s
//! naming the parameter, 404s naming what was not found, a day of caching
//! with a strong ETag, public (CORS).

use serde_json::Value;
use vis_tests::{TestApp, problem};

async fn data(app: &TestApp, query: &str) -> Value {
    let r = app.get(&format!("/api/v1/vehicles{query}")).await;
    assert_eq!(r.status(), 200, "{query}");
    let v: Value = r.json().await.unwrap();
    assert!(v["request_id"].as_str().unwrap().starts_with("req_"), "{v}");
    v["data"].clone()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

fn slugs(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| m["slug"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn no_parameters_lists_the_years() {
    let app = TestApp::spawn().await;
    let d = data(&app, "").await;
    assert_eq!(keys(&d), ["years"]);
    let years: Vec<u64> = d["years"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| y.as_u64().unwrap())
        .collect();
    assert_eq!(years.first(), Some(&1990));
    assert_eq!(years.last(), Some(&2026));
    assert!(years.windows(2).all(|w| w[0] < w[1]));
}

#[tokio::test]
async fn year_lists_that_years_makes_and_make_id_their_models() {
    let app = TestApp::spawn().await;
    let d = data(&app, "?year=2019").await;
    assert_eq!(keys(&d), ["makes", "year"]);
    assert_eq!(d["year"], 2019);
    let makes = d["makes"].as_array().unwrap();
    assert!(makes.len() > 50, "{}", makes.len());
    let toyota = makes.iter().find(|m| m["slug"] == "toyota").unwrap();
    assert_eq!(keys(toyota), ["id", "name", "slug"]);
    assert_eq!(toyota["name"], "Toyota");
    assert!(slugs(&d["makes"]).contains(&"tesla"));
    // Tesla's first model year is 2008.
    assert!(!slugs(&data(&app, "?year=2005").await["makes"]).contains(&"tesla"));

    let id = toyota["id"].as_u64().unwrap();
    let d = data(&app, &format!("?year=2019&makeId={id}")).await;
    assert_eq!(keys(&d), ["make_id", "models", "year"]);
    assert_eq!(
        (d["year"].as_u64(), d["make_id"].as_u64()),
        (Some(2019), Some(id))
    );
    let models = d["models"].as_array().unwrap();
    let camry = models.iter().find(|m| m["slug"] == "camry").unwrap();
    assert_eq!(camry["name"], "Camry");
    assert_eq!(camry["vehicle_type"], "Passenger Car");
    // Only models of that year: the Camry Solara ended in 2009.
    assert!(!slugs(&d["models"]).contains(&"camry-solara"));
    let d = data(&app, &format!("?year=2005&makeId={id}")).await;
    assert!(slugs(&d["models"]).contains(&"camry-solara"));
}

#[tokio::test]
async fn q_searches_with_optional_year_and_limit() {
    let app = TestApp::spawn().await;
    let d = data(&app, "?q=camry").await;
    assert_eq!(keys(&d), ["query", "results"]);
    assert_eq!(d["query"], "camry");
    let results = d["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 10);
    let first = &results[0];
    assert_eq!(
        (&first["kind"], &first["make_slug"], &first["model_slug"]),
        (&"model".into(), &"toyota".into(), &"camry".into())
    );
    assert_eq!(first["match_kind"], "exact");
    assert!(first["years"].as_array().unwrap().contains(&2019.into()));

    let d = data(&app, "?q=toyota&year=2019&limit=3").await;
    assert_eq!(keys(&d), ["query", "results", "year"]);
    assert_eq!(d["year"], 2019);
    let results = d["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 3, "{results:?}");
    assert_eq!(results[0]["kind"], "make");
    assert_eq!(results[0]["make_slug"], "toyota");

    // A typo still finds it.
    let d = data(&app, "?q=porshe%20911").await;
    assert_eq!(d["results"][0]["model_slug"], "911");
    // Nothing found is an empty list, not an error.
    let d = data(&app, "?q=zzzzqqqqxxxx").await;
    assert_eq!(d["results"], serde_json::json!([]));
}

#[tokio::test]
async fn make_lists_its_models_and_make_model_the_years() {
    let app = TestApp::spawn().await;
    let d = data(&app, "?make=toyota").await;
    assert_eq!(keys(&d), ["make", "models"]);
    assert_eq!(d["make"]["slug"], "toyota");
    assert_eq!(d["make"]["name"], "Toyota");
    assert!(d["make"]["id"].as_u64().is_some());
    let all = slugs(&d["models"]);
    assert!(all.contains(&"camry") && all.contains(&"camry-solara"));

    let d = data(&app, "?make=toyota&year=2019").await;
    assert_eq!(keys(&d), ["make", "models", "year"]);
    assert_eq!(d["year"], 2019);
    let in_2019 = slugs(&d["models"]);
    assert!(in_2019.contains(&"camry") && !in_2019.contains(&"camry-solara"));

    let d = data(&app, "?make=toyota&model=camry").await;
    assert_eq!(keys(&d), ["make", "model", "years"]);
    assert_eq!(d["make"]["slug"], "toyota");
    assert_eq!(d["model"]["slug"], "camry");
    assert_eq!(d["model"]["name"], "Camry");
    let years = d["years"].as_array().unwrap();
    assert!(years.contains(&2019.into()));
    assert_eq!(years.first(), Some(&1990.into()));

    // A unique prefix of the model slug works; names and aliases of makes too.
    let d = data(&app, "?make=Toyota&model=camry-sol").await;
    assert_eq!(d["model"]["slug"], "camry-solara");
    assert_eq!(d["years"].as_array().unwrap().last(), Some(&2009.into()));
}

#[tokio::test]
async fn every_bad_parameter_is_a_400_naming_it() {
    let app = TestApp::spawn().await;
    let long_q = format!("q={}", "a".repeat(201));
    for (query, param) in [
        ("year=1989", "year"),
        ("year=2028", "year"),
        ("year=soon", "year"),
        ("year=2019&makeId=abc", "makeId"),
        ("year=2019&makeId=-4", "makeId"),
        ("makeId=448", "makeId"),
        ("q=", "q"),
        (long_q.as_str(), "q"),
        ("q=camry&limit=0", "limit"),
        ("q=camry&limit=26", "limit"),
        ("limit=5", "limit"),
        ("model=camry", "model"),
        ("q=camry&make=toyota", "make"),
        ("q=camry&makeId=448", "makeId"),
        ("make=toyota&makeId=448", "makeId"),
        ("make=toyota&model=camry&year=2019", "year"),
        ("make=", "make"),
        ("brand=toyota", "brand"),
        ("year=2019&year=2020", "year"),
    ] {
        let body = problem(app.get(&format!("/api/v1/vehicles?{query}")).await, 400).await;
        assert_eq!(body["param"], param, "{query}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains(param),
            "{query}: {body}"
        );
    }
    // The bounds themselves are accepted.
    for query in [
        "year=1990",
        "year=2027",
        "q=camry&limit=1",
        "q=camry&limit=25",
    ] {
        assert_eq!(
            app.get(&format!("/api/v1/vehicles?{query}")).await.status(),
            200,
            "{query}"
        );
    }
    let ok_q = format!("/api/v1/vehicles?q={}", "a".repeat(200));
    assert_eq!(app.get(&ok_q).await.status(), 200);
}

#[tokio::test]
async fn unknown_makes_models_and_make_ids_are_404s_naming_them() {
    let app = TestApp::spawn().await;
    for (query, param, named) in [
        ("make=notamake", "make", "notamake"),
        ("make=notamake&model=camry", "make", "notamake"),
        ("make=toyota&model=zzzz", "model", "zzzz"),
        ("year=2019&makeId=999999999", "makeId", "999999999"),
    ] {
        let body = problem(app.get(&format!("/api/v1/vehicles?{query}")).await, 404).await;
        assert_eq!(body["param"], param, "{query}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains(named),
            "{query}: {body}"
        );
    }
    // An ambiguous model prefix names the candidates.
    let body = problem(app.get("/api/v1/vehicles?make=toyota&model=ca").await, 404).await;
    assert_eq!(body["param"], "model");
    let candidates = body["candidates"].as_array().unwrap();
    assert!(candidates.contains(&"camry".into()), "{body}");
}

#[tokio::test]
async fn responses_are_cacheable_for_a_day_with_a_strong_etag() {
    let app = TestApp::spawn().await;
    let r = app.get("/api/v1/vehicles?make=toyota&model=camry").await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "public, max-age=86400");
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() > 10,
        "{etag}"
    );
    // The same query gives the same tag; another query another tag.
    let again = app.get("/api/v1/vehicles?make=toyota&model=camry").await;
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    let other = app.get("/api/v1/vehicles?make=toyota").await;
    assert_ne!(other.headers()["etag"].to_str().unwrap(), etag);

    let weak = format!("W/{etag}");
    for inm in [
        etag.clone(),
        weak,
        format!("\"nope\", {etag}"),
        "*".to_owned(),
    ] {
        let r = app
            .client
            .get(app.url("/api/v1/vehicles?make=toyota&model=camry"))
            .header("if-none-match", &inm)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 304, "{inm}");
        assert_eq!(r.headers()["etag"].to_str().unwrap(), etag);
        assert_eq!(r.headers()["cache-control"], "public, max-age=86400");
        assert!(r.bytes().await.unwrap().is_empty());
    }
    let r = app
        .client
        .get(app.url("/api/v1/vehicles?make=toyota&model=camry"))
        .header("if-none-match", "\"something-else\"")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn the_endpoint_is_public_with_cors() {
    let app = TestApp::spawn().await;
    let r = app
        .client
        .get(app.url("/api/v1/vehicles?year=2019"))
        .header("origin", "https://example.org")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    let exposed = r.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(exposed.contains("etag"), "{exposed}");
    // Preflight.
    let r = app
        .client
        .request(reqwest::Method::OPTIONS, app.url("/api/v1/vehicles"))
        .header("origin", "https://example.org")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn other_names_of_a_model_find_the_one_model() {
    let app = TestApp::spawn().await;
    // Search by an alias: the folded model, matched exactly.
    let d = data(&app, "?q=miata").await;
    let first = &d["results"][0];
    assert_eq!(
        (
            &first["make_slug"],
            &first["model_slug"],
            &first["model_name"]
        ),
        (&"mazda".into(), &"mx-5".into(), &"MX-5".into()),
        "{d}"
    );
    assert_eq!(first["match_kind"], "exact");
    let found: Vec<&str> = d["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["model_slug"].as_str())
        .collect();
    assert!(!found.contains(&"miata"), "{found:?}");
    for (q, model) in [
        ("mx5%20miata", "mx-5"),
        ("mazda%203", "mazda3"),
        ("polestar%20ps2", "polestar-2"),
    ] {
        let d = data(&app, &format!("?q={q}")).await;
        assert_eq!(d["results"][0]["model_slug"], model, "{q}: {d}");
    }
    // A year only the alias had is a year of the model.
    let d = data(&app, "?q=miata&year=2016").await;
    assert_eq!(d["results"][0]["model_slug"], "mx-5", "{d}");

    // make + model by an alias or an old slug: the folded model and all its years.
    for model in ["miata", "Miata", "mx5-miata", "roadster", "mx-5"] {
        let d = data(&app, &format!("?make=mazda&model={model}")).await;
        assert_eq!(d["model"]["slug"], "mx-5", "{model}: {d}");
        assert_eq!(d["model"]["name"], "MX-5");
        let years = d["years"].as_array().unwrap();
        assert!(years.contains(&2014.into()) && years.contains(&1990.into()));
    }
    let d = data(&app, "?make=mazda&model=3").await;
    assert_eq!(
        (&d["model"]["slug"], &d["model"]["name"]),
        (&"mazda3".into(), &"Mazda3".into())
    );
    // The make's model list has one MX-5 and no Miata.
    let all = data(&app, "?make=mazda").await;
    let models = slugs(&all["models"]);
    assert!(models.contains(&"mx-5") && !models.contains(&"miata") && !models.contains(&"3"));
}

#[tokio::test]
async fn folded_makes_keep_resolving_as_the_make_they_went_into() {
    let app = TestApp::spawn().await;
    // A model line filed as a make is a model of its make; the old slug still answers.
    let d = data(&app, "?make=range-rover").await;
    assert_eq!(d["make"]["slug"], "land-rover", "{d}");
    assert!(slugs(&d["models"]).contains(&"range-rover-evoque"));
    for (query, make, model, year) in [
        (
            "make=range-rover&model=evoque",
            "land-rover",
            "range-rover-evoque",
            2012,
        ),
        (
            "make=range-rover&model=vogue",
            "land-rover",
            "range-rover-vogue",
            2016,
        ),
        (
            "make=range-rover&model=sport",
            "land-rover",
            "range-rover-sport",
            2019,
        ),
        ("make=corvette&model=c6", "chevrolet", "corvette", 2008),
        ("make=chevrolet-gmc&model=tahoe", "chevrolet", "tahoe", 2010),
        ("make=toyota-lexus&model=gs300", "lexus", "gs-300", 2005),
    ] {
        let d = data(&app, &format!("?{query}")).await;
        assert_eq!(
            (&d["make"]["slug"], &d["model"]["slug"]),
            (&make.into(), &model.into()),
            "{query}: {d}"
        );
        assert!(
            d["years"].as_array().unwrap().contains(&year.into()),
            "{query}: {d}"
        );
    }
    // The folded makes are no makes of their own in the year lists.
    let d = data(&app, "?year=2010").await;
    let makes = slugs(&d["makes"]);
    for gone in ["range-rover", "corvette", "chevrolet-gmc", "toyota-lexus"] {
        assert!(!makes.contains(&gone), "{gone}");
    }
    // The old make id lists the models of the make it went into.
    let lr = data(&app, "?make=land-rover").await["make"]["id"].clone();
    let d = data(&app, "?year=2016&makeId=100107").await;
    assert_eq!(d["make_id"], 100107);
    assert!(slugs(&d["models"]).contains(&"range-rover-vogue"), "{d}");
    assert_ne!(lr, 100107);
}
