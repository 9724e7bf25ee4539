//! Placeholder replaced below once the stages exist.
mod common;
fn main() {
    let _ = common::shared_dir();
}
