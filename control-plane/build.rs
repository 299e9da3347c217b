// `sqlx::migrate!` embeds the migrations at compile time; without this, a
// new migration file does not rebuild the crate and is silently left out.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
