//! The real `control-plane` command (its `main`, unchanged), built in this
//! package so that tests can run it as a process of its own: `serve`,
//! `migrate`, `prewarm` and the operator commands, configured by flags and
//! `VIS_*` variables exactly as in production (tests/tests/farm.rs).

fn main() -> std::process::ExitCode {
    control_plane::cli::main()
}
