//! `vis`: parses the command line, runs it, maps the outcome to an exit code
//! (docs/cli.md, Exit codes).

use std::process::ExitCode;

use clap::Parser;
use vis_cli::cli::{Cli, already_reported, run};
use vis_cli::error::exit;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("vis: error: cannot start: {e}");
            return ExitCode::from(exit::FAILURE as u8);
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if json && !already_reported(&e) {
                println!("{:#}", e.to_json());
            }
            eprintln!("vis: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
