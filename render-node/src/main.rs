fn main() {
    eprintln!("render-node: not built yet");
    std::process::exit(2);
}
