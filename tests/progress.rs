//! The progress display: `kcurate run --progress always` names every stage of
//! the recipe on stderr with the count its books end with; `never`, and `auto` when stderr
//! is a pipe, leave nothing on stderr but log lines; the release bytes do not depend on it.

mod common;
use common::*;

/// The lines of a display drawn into a pipe: escapes removed, carriage returns and
/// newlines as line ends.
fn lines(stderr: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = stderr.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters, ended by a letter.
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(if c == '\r' { '\n' } else { c });
    }
    plain
        .lines()
        .map(|l| l.trim_end().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The count a finished stage's line shows (`normalize  1,234 documents  ... done in 1s`).
fn finished_count(lines: &[String], stage: &str) -> Option<u64> {
    lines.iter().rev().find_map(|l| {
        let mut words = l.split_whitespace();
        if words.next() != Some(stage) || !l.contains("done in") {
            return None;
        }
        words.next()?.replace(',', "").parse().ok()
    })
}

fn run(recipe: &str, progress: &str, out: &std::path::Path) -> std::process::Output {
    let o = kcurate(&[
        "run",
        recipe,
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "2",
        "--progress",
        progress,
    ]);
    assert_written(&o, recipe);
    o
}

fn stage_names(recipe: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo().join(recipe)).unwrap();
    let t: toml::Table = toml::from_str(&text).unwrap();
    t["stage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_stage_is_named_with_its_count_and_the_bytes_do_not_change() {
    let recipe = "configs/default.toml";
    let tmp = tempfile::tempdir().unwrap();
    let shown = run(recipe, "always", &tmp.path().join("always"));
    let lines = lines(&stderr(&shown));
    let release = |d: &str| tmp.path().join(d).join("kcurate-samples/1.0.0");
    let m = manifest(&release("always"));
    let names = stage_names(recipe);
    // The recipe here has per-record stages read beside the sources, an online corpus
    // stage (dedup), stages after it and a held corpus stage: each path reports.
    assert!(names.len() >= 6, "{names:?}");
    for name in &names {
        let want = m["stages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name.as_str())
            .map(|s| s["items_in"].as_u64().unwrap())
            .unwrap_or_else(|| panic!("{name} not in the manifest"));
        assert_eq!(
            finished_count(&lines, name),
            Some(want),
            "{name}: the display's count is not the books' items_in ({want})\n{}",
            lines.join("\n")
        );
    }
    // The reading pass counts the source bytes against their total, the last step the files.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("read ") && l.contains("B") && l.contains("done in")),
        "{}",
        lines.join("\n")
    );
    let files = m["outputs"].as_array().unwrap().len() as u64;
    assert_eq!(finished_count(&lines, "write"), Some(files));
    // Rates are shown with a sensible number of digits, never four decimals.
    let four = regex_free_four_decimals(&lines);
    assert!(four.is_none(), "a rate with four decimals: {four:?}");

    // `never`, and `auto` into a pipe (as here): nothing but log lines, and the same bytes.
    for mode in ["never", "auto"] {
        let quiet = run(recipe, mode, &tmp.path().join(mode));
        let err = stderr(&quiet);
        assert!(!err.contains('\x1b'), "{mode}: escapes on stderr: {err:?}");
        for l in err.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                l.starts_with("warning:") || l.contains("WARN") || l.contains("ERROR"),
                "{mode}: a line that is not a log line on stderr: {l:?}"
            );
        }
        assert_eq!(
            stdout(&quiet).replace(&format!("/{mode}/"), "/always/"),
            stdout(&shown),
            "{mode}: stdout differs"
        );
        assert_eq!(tree(&release(mode)), tree(&release("always")), "{mode}");
    }
}

/// A number with four or more decimals in a display line (the old `per_sec` format).
fn regex_free_four_decimals(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace())
        .find(|w| {
            let w = w.trim_end_matches("/s");
            w.split_once('.').is_some_and(|(a, b)| {
                !a.is_empty()
                    && a.chars().all(|c| c.is_ascii_digit() || c == ',')
                    && b.len() >= 4
                    && b.chars().all(|c| c.is_ascii_digit())
            })
        })
        .map(str::to_string)
}

#[test]
fn challenge_shares_the_display() {
    let (out, parent) = default_release("2");
    let (o, _) = challenge(
        &parent,
        "configs/challenge-sentineg.toml",
        &out.path().join("derived"),
        &["--progress", "always"],
    );
    let lines = lines(&stderr(&o));
    for name in stage_names("configs/challenge-sentineg.toml") {
        assert!(
            finished_count(&lines, &name).is_some(),
            "{name} not shown:\n{}",
            lines.join("\n")
        );
    }
}
