//! A remote render node as a process of its own, for the multi-process
//! tests (tests/tests/blackbox/nodes.rs): what `render-node run` runs, built
//! in this package so the tests can start it (and `kill -9` it).
//!
//! Usage: `node-for-test CONTROL_PLANE_URL [SLOTS]`, with the node token in
//! `VIS_NODE_TOKEN`. Exits when the control plane drains the node.

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let control_plane = args
        .next()
        .expect("usage: node-for-test CONTROL_PLANE_URL [SLOTS]");
    let slots = args.next().map_or(Ok(1), |s| s.parse())?;
    let token = std::env::var("VIS_NODE_TOKEN").expect("VIS_NODE_TOKEN is set");
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter("info")
        .init();
    let renderer = vis_render::Renderer::new(vis_render::RendererConfig {
        max_in_flight: slots as usize,
        ..Default::default()
    })?;
    tokio::runtime::Runtime::new()?.block_on(vis_render::node::run(
        renderer,
        vis_render::node::NodeOptions {
            control_plane,
            token,
            slots,
            batch: 24,
        },
    ))
}
