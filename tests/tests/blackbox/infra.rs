//! The README's start command (`infra/run.sh`), run with a stand-in `cargo`
//! and binary: what a person sees while it builds.

use std::process::Command;

#[test]
fn run_sh_shows_the_build_progress_and_then_serves() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned();
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    let target = dir.path().join("target");
    std::fs::create_dir_all(&bin).unwrap();
    let calls = dir.path().join("cargo-args");
    // A cargo that records its arguments, reports progress on stderr as
    // cargo does, and leaves a binary that says how it was started.
    let cargo = bin.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\n\
             echo \"$@\" >> '{calls}'\n\
             echo '   Compiling control-plane v0.1.0 (stand-in)' >&2\n\
             echo '    Finished `release` profile [optimized] target(s) in 0.01s' >&2\n\
             mkdir -p \"$CARGO_TARGET_DIR/release\"\n\
             printf '#!/bin/sh\\necho \"control-plane started: $*\"\\n' > \"$CARGO_TARGET_DIR/release/control-plane\"\n\
             chmod +x \"$CARGO_TARGET_DIR/release/control-plane\"\n",
            calls = calls.display()
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&cargo)
        .status()
        .unwrap();
    // The packages it needs are installed where this suite runs
    // (infra/test.sh installs them), so nothing is installed here.
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(root.join("infra/run.sh"))
        .args(["--listen", "127.0.0.1:0"])
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("run.sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let args = std::fs::read_to_string(&calls).unwrap();
    assert!(args.contains("build"), "{args}");
    assert!(
        !args.split_whitespace().any(|a| a == "--quiet" || a == "-q"),
        "the build is not silenced: cargo {args}"
    );
    assert!(
        stderr.contains("Compiling control-plane"),
        "cargo's progress reaches the person: {stderr}"
    );
    assert!(
        stderr.contains("infra: building"),
        "it says what it is doing before the long first build: {stderr}"
    );
    assert!(
        stdout.contains("control-plane started: serve --listen 127.0.0.1:0"),
        "{stdout}"
    );
}
