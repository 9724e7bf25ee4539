//! Comments say why the code is as it is. History (which issue asked for a change, which
//! session made it, what the code did before) belongs in commit messages: a comment naming
//! an issue number or a session is stale the day the issue closes. This test reads every
//! source, script and build file of the repository and fails on such a comment, naming
//! file, line and the words found.

use std::path::{Path, PathBuf};

/// The repository root (this crate's tests/ is a link to the repository's tests/).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Directories and files whose comments are checked, relative to the repository.
const CHECKED: &[&str] = &[
    "pipeline",
    "tests",
    "bench",
    "tools",
    "integrations",
    "Makefile",
    ".ci",
    "Cargo.toml",
    "clippy.toml",
];

/// Whether `path` is a source, script or build file (data fixtures are not code).
fn is_code(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    matches!(ext, "rs" | "py" | "sh" | "toml") || matches!(name, "Makefile" | "run")
}

/// Every code file under `path`, without following links (`pipeline/cli/tests` is a link to
/// `tests/`) and without build output or virtual environments.
fn code_files(path: &Path, out: &mut Vec<PathBuf>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_file() {
        if is_code(path) {
            out.push(path.to_path_buf());
        }
        return;
    }
    if !meta.is_dir() {
        return;
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name == "target" || name.starts_with(".venv") || name == "__pycache__" {
        return;
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for e in entries {
        code_files(&e, out);
    }
}

/// The comment part of a line: after `//` in Rust, after a `#` that starts a word in the
/// other files; Python lines are checked whole (docstrings are comments too).
fn comment(line: &str, path: &Path) -> Option<String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let at = match ext {
        "rs" => line.find("//"),
        "py" => Some(0),
        _ => line
            .char_indices()
            .find(|&(i, c)| c == '#' && (i == 0 || line[..i].ends_with(char::is_whitespace)))
            .map(|(i, _)| i),
    };
    at.map(|i| line[i..].to_lowercase())
}

/// What in a comment points at the work's history: an issue by number (`issue 21`,
/// `issue #21`, `#35`, "the issue's target") or a session (`session 9`, "that session").
fn history(text: &str) -> Option<&'static str> {
    let b = text.as_bytes();
    let digits_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    for (i, _) in text.match_indices("issue") {
        let mut j = i + "issue".len();
        if text[j..].starts_with("'s") {
            return Some("the issue's");
        }
        // A separator first: `--issue19` is a flag's name, not a reference.
        let mut sep = false;
        while b.get(j) == Some(&b' ') {
            j += 1;
            sep = true;
        }
        if b.get(j) == Some(&b'#') {
            j += 1;
            sep = true;
        }
        if sep && digits_at(j) {
            return Some("an issue number");
        }
    }
    for (i, _) in text.match_indices('#') {
        let before = text[..i].chars().next_back();
        let starts = before.is_none_or(|c| c.is_whitespace() || c == '(');
        if starts && digits_at(i + 1) && digits_at(i + 2) {
            return Some("an issue number (#NN)");
        }
    }
    for (i, _) in text.match_indices("session") {
        let j = i + "session".len();
        let numbered = matches!(b.get(j), Some(b' ' | b'-')) && digits_at(j + 1);
        let named = ["this ", "that ", "earlier ", "previous ", "last "]
            .iter()
            .any(|w| text[..i].ends_with(w));
        if numbered || named {
            return Some("a session");
        }
    }
    None
}

#[test]
fn no_comment_names_an_issue_or_a_session() {
    let root = repo();
    let mut files = Vec::new();
    for p in CHECKED {
        code_files(&root.join(p), &mut files);
    }
    assert!(files.len() > 100, "found only {} files", files.len());
    let mut found = Vec::new();
    // This file quotes what it looks for.
    files.retain(|f| !f.ends_with("tests/comments.rs"));
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if let Some(what) = comment(line, f).as_deref().and_then(history) {
                let rel = f.strip_prefix(&root).unwrap_or(f).display();
                found.push(format!("{rel}:{}: {what}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "comments that point at history instead of saying why:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_each_kind_of_history() {
    let rs = Path::new("x.rs");
    for (line, kind) in [
        ("    // Issue 25 item 2: dev+test", "an issue number"),
        ("// see issue #19", "an issue number"),
        ("/// below the issue's 0.95", "the issue's"),
        ("// fixed in #35", "an issue number (#NN)"),
        ("// read in session 9", "a session"),
        ("// before any change of that session", "a session"),
    ] {
        assert_eq!(
            comment(line, rs).as_deref().and_then(history),
            Some(kind),
            "{line}"
        );
    }
    for line in [
        "    let s = \"issue 21\"; // a string, not a comment",
        "/// `&#45;` is a hyphen; `reviews/#3` the third file",
        "// the session cookie of Label Studio",
    ] {
        assert_eq!(
            comment(line, rs).as_deref().and_then(history),
            None,
            "{line}"
        );
    }
    let sh = Path::new("x.sh");
    assert_eq!(
        comment("echo x # issue 20 finding 5", sh)
            .as_deref()
            .and_then(history),
        Some("an issue number")
    );
    assert_eq!(comment("a=\"#12\"", sh).as_deref().and_then(history), None);
}
