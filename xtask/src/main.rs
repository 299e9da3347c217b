//! `cargo xtask <task>`: developer chores that are not part of the product.

mod catalog;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Developer tasks for the vehicle image service")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Regenerate `catalog/data/catalog.json` from the pinned npm packages.
    Catalog(catalog::Args),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.task {
        Task::Catalog(args) => catalog::run(args),
    }
}
