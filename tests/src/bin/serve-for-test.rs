//! The real app as a process of its own, for tests that must kill a server
//! (`kill -9`) or run several control planes on one database: the real
//! renderer, on port 0.
//!
//! Usage: `serve-for-test DATA_DIR [DATABASE_URL]` (the database defaults
//! to the SQLite file in DATA_DIR). Prints `READY <base_url>` once it
//! listens.

use control_plane::config::Secret;
use control_plane::{App, Config};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: serve-for-test DATA_DIR"));
    let mut config = Config::for_tests(&dir);
    config.render.workers = 1;
    if let Some(url) = args.next() {
        config.database_url = Secret::new(url);
    }
    let app = App::build_with_backend(config, Some(vis_tests::real_renderer())).await?;
    println!("READY {}", app.base_url());
    app.run().await?;
    Ok(())
}
