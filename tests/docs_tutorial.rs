//! The docs run as written and say what the code is. The `sh` blocks of README.md,
//! docs/guide.md and docs/tutorial.md run, in order, each page in a fresh directory that
//! holds the checkout's `data-samples/`, `rules/` and `configs/`, with the built `kcurate`
//! first on PATH: a command a page shows that fails, or an output it promises that does not
//! come, fails its test. docs/stages.md and docs/rules.md are what `kcurate stages --doc` and
//! `kcurate rules` print; ARCHITECTURE.md's crate map is the crates' `Cargo.toml`
//! dependencies and its list of stages is `kcurate stages`.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::Path;

/// The `sh` code blocks of a Markdown file, in order (`bash` blocks are shown, not run).
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

/// Runs the `sh` blocks of `page` (relative to the checkout) as one script in a fresh
/// directory; returns its stdout and the directory. Fails unless the script succeeds and
/// the page has at least `min_blocks` blocks.
fn run_page(page: &str, min_blocks: usize) -> (String, tempfile::TempDir) {
    let md = std::fs::read_to_string(repo().join(page)).unwrap();
    let blocks = sh_blocks(&md);
    assert!(
        blocks.len() >= min_blocks,
        "{page}: {} sh blocks",
        blocks.len()
    );
    let work = tempfile::tempdir().unwrap();
    for d in ["data-samples", "rules", "configs"] {
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
    assert!(o.status.success(), "{page} stopped:\n{out}\n{err}");
    (out, work)
}

#[test]
fn the_tutorial_runs_command_by_command_from_a_file_to_precision_in_the_card() {
    let (out, work) = run_page("docs/tutorial.md", 6);
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

#[test]
fn the_readme_first_release_runs_as_written() {
    let (_, work) = run_page("README.md", 1);
    let release = work.path().join("releases/my-corpus/0.1.0");
    assert!(release.join("manifest.json").is_file());
    assert!(release.join("audit/decisions.jsonl").is_file());
    // The key the README makes is the one the release was pseudonymised with, and it stays
    // out of the release.
    let key = std::fs::read_to_string(work.path().join("pii.key")).unwrap();
    for (name, bytes) in tree(&release) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(key.trim()),
            "the key is in {name}"
        );
    }
}

#[test]
fn the_guide_runs_section_by_section_on_the_samples() {
    let (out, work) = run_page("docs/guide.md", 8);
    // 1: rebuild says the bytes are identical.
    assert!(
        out.contains("identical to releases/kcurate-samples/1.0.0"),
        "{out}"
    );
    // 2: the funnel, the contamination flags the guide counts, and `why` ending at dedup.
    assert!(
        out.contains("sentences: test 37, train 387, validation 28"),
        "{out}"
    );
    // (Both `audit` commands print the rows: each row counts once.)
    let rows: BTreeSet<&str> = out
        .lines()
        .filter(|l| l.starts_with("assign_split split.contamination"))
        .collect();
    let flags: u32 = rows
        .iter()
        .map(|l| l.split_whitespace().nth(5).unwrap().parse::<u32>().unwrap())
        .sum();
    assert_eq!(flags, 28, "the guide says assign_split flags 28:\n{out}");
    assert!(
        out.contains("ended   dropped at dedup by dedup.near"),
        "{out}"
    );
    // 3: the judged rules with their Wilson intervals.
    assert!(
        out.contains("rule dedup.near: 3/3 correct, precision 1.00"),
        "{out}"
    );
    // 4: the challenge release and its check batch, for two checkers.
    let flips = std::fs::read_to_string(work.path().join("flips.tsv")).unwrap();
    assert!(flips.starts_with("item\tannotator\tvalue\t"), "{flips}");
    assert!(work.path().join("flips-ls/labeling-config.xml").is_file());
    // 5: agreement, gold labels for every pilot item, and a plan.
    assert!(out.contains("alpha (nominal)"), "{out}");
    let gold = std::fs::read_to_string(work.path().join("gold.jsonl")).unwrap();
    assert_eq!(gold.lines().count(), 40);
    assert!(out.contains("Recommended: "), "{out}");
    // 6: the partitions finalised give the release `run` wrote (diff -r printed nothing).
    assert!(
        tree(&work.path().join("finalised/kcurate-samples/1.0.0"))
            == tree(&work.path().join("releases/kcurate-samples/1.0.0"))
    );
}

#[test]
fn docs_stages_md_is_what_stages_doc_prints() {
    let page = std::fs::read_to_string(repo().join("docs/stages.md")).unwrap();
    let o = kcurate(&["stages", "--doc"]);
    assert!(o.status.success());
    let body = page
        .find("\n## ")
        .map(|i| &page[i + 1..])
        .expect("docs/stages.md has a section per stage");
    assert!(
        body == stdout(&o),
        "docs/stages.md is stale: run `make gen-docs` (it keeps the opening paragraph)"
    );
}

#[test]
fn docs_rules_md_is_what_rules_prints() {
    let page = std::fs::read_to_string(repo().join("docs/rules.md")).unwrap();
    let o = kcurate(&["rules"]);
    assert!(o.status.success());
    let block = page
        .split_once("\n```text\n")
        .map(|(_, rest)| rest)
        .expect("docs/rules.md ends with a text block");
    assert!(
        block == format!("{}```\n", stdout(&o)),
        "docs/rules.md is stale: run `make gen-docs` (it keeps the opening paragraph)"
    );
}

/// The `kcurate-*` dependencies of one section (`dependencies`, `dev-dependencies`) of a
/// crate's Cargo.toml, without the prefix.
fn kcurate_deps(crate_dir: &Path, section: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    doc.get(section)
        .and_then(|t| t.as_table())
        .map(|t| {
            t.keys()
                .filter_map(|k| k.strip_prefix("kcurate-"))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn architecture_crate_map_is_the_cargo_dependencies() {
    let arch = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let map = arch
        .split_once("## Crate map")
        .and_then(|(_, rest)| rest.split_once("```text\n"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("ARCHITECTURE.md's crate map block");
    let mut named = BTreeSet::new();
    for line in map.lines() {
        let (main, dev) = line.split_once("(dev:").unwrap_or((line, ""));
        let mut words = main.split_whitespace();
        let name = words.next().unwrap().to_string();
        let deps: BTreeSet<String> = words
            .filter(|w| *w != "(none)")
            .map(str::to_string)
            .collect();
        let dev: BTreeSet<String> = dev
            .trim_end_matches(')')
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let dir = repo().join("pipeline").join(&name);
        assert_eq!(deps, kcurate_deps(&dir, "dependencies"), "{name}");
        assert_eq!(dev, kcurate_deps(&dir, "dev-dependencies"), "{name} (dev)");
        named.insert(name);
    }
    let crates: BTreeSet<String> = std::fs::read_dir(repo().join("pipeline"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(named, crates, "every crate is in the map, once");
}

#[test]
fn architecture_lists_every_stage_where_its_entry_is() {
    let arch = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let listed: Vec<(String, String)> = arch
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim().split('|').map(str::trim).collect();
            match cells.as_slice() {
                ["", stage, file, ""] if file.starts_with("`pipeline/") => Some((
                    stage.trim_matches('`').to_string(),
                    file.trim_matches('`').to_string(),
                )),
                _ => None,
            }
        })
        .collect();
    let o = kcurate(&["stages"]);
    assert!(o.status.success());
    let names: Vec<String> = stdout(&o)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let listed_names: Vec<String> = listed.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(listed_names, names, "ARCHITECTURE.md's stage table");
    for (stage, file) in &listed {
        let src = std::fs::read_to_string(repo().join(file)).unwrap();
        assert!(
            src.contains("pub const ENTRY: StageEntry"),
            "{stage}: {file} has no ENTRY"
        );
        assert!(
            src.contains(&format!("name: \"{stage}\"")),
            "{stage}: {file} names another stage"
        );
    }
}
