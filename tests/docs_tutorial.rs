//! docs/tutorial.md runs as written: its `sh` blocks, in order, in a fresh directory that
//! holds the checkout's `data-samples/` and `rules/`, with the built `kcurate` first on
//! PATH. A command the tutorial shows that fails, or a step whose output the tutorial
//! promises and does not come, fails this test.

mod common;
use common::*;

/// The `sh` code blocks of a Markdown file, in order.
fn sh_blocks(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in md.lines() {
        match (&mut cur, line.trim_end()) {
            (None, "```sh") => cur = Some(String::new()),
            (Some(b), "```") => {
                out.push(std::mem::take(b));
                cur = None;
            }
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    out
}

#[test]
fn the_tutorial_runs_command_by_command_from_a_file_to_precision_in_the_card() {
    let md = std::fs::read_to_string(repo().join("docs/tutorial.md")).unwrap();
    let blocks = sh_blocks(&md);
    assert!(blocks.len() >= 6, "{} sh blocks", blocks.len());
    let work = tempfile::tempdir().unwrap();
    for d in ["data-samples", "rules"] {
        std::os::unix::fs::symlink(repo().join(d), work.path().join(d)).unwrap();
    }
    let bin = assert_cmd::cargo::cargo_bin("kcurate");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = format!("set -euxo pipefail\n{}", blocks.join("\n"));
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(work.path())
        .env("PATH", path)
        .env_remove("KCURATE_PII_KEY")
        .output()
        .unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "the tutorial stopped:\n{out}\n{err}");
    // The last step prints the card's precision lines for the judged rules.
    assert!(out.contains("Rule precision"), "{out}");
    assert!(out.contains("- rule noise."), "{out}");
    let card =
        std::fs::read_to_string(work.path().join("releases/my-news/0.1.1/README.md")).unwrap();
    assert!(
        card.contains("A tutorial release"),
        "the motivation given reaches the card"
    );
}
