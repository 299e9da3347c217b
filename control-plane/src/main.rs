//! `control-plane`: serve the API, migrate the database, and operator commands.

use std::process::ExitCode;

fn main() -> ExitCode {
    control_plane::cli::main()
}
