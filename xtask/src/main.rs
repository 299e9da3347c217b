//! `cargo xtask <task>`: developer chores that are not part of the product.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Developer tasks for the vehicle image service")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.task {}
}
