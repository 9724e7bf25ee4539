//! Golden files: what the default recipe makes of data-samples/, pinned. The funnel (items
//! in/out/dropped and every rule's counts per stage), the split sizes and the validation split's
//! rows are compared with tests/golden/; any change in behaviour shows up as a diff to
//! review. After an intended change, regenerate with `KCURATE_UPDATE_GOLDEN=1 cargo test
//! --test golden` and commit the new files with the change that explains them.

mod common;
use common::*;

fn check(name: &str, actual: &str) {
    let path = repo().join("tests/golden").join(name);
    if std::env::var("KCURATE_UPDATE_GOLDEN").is_ok() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (KCURATE_UPDATE_GOLDEN=1 writes it)",
            path.display()
        )
    });
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from tests/golden/{name} at line {}:\n  golden: {:?}\n  now:    {:?}\n(KCURATE_UPDATE_GOLDEN=1 regenerates it after an intended change)",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

#[test]
fn default_release_matches_the_golden_files() {
    let (_out, dir) = default_release("2");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let books = serde_json::json!({
        "stages": m["stages"],
        "splits": m["splits"],
        "by_source": m["by_source"],
        "license": m["license"],
    });
    check(
        "default-books.json",
        &(serde_json::to_string_pretty(&books).unwrap() + "\n"),
    );
    check(
        "default-validation.jsonl",
        &std::fs::read_to_string(dir.join("sentences/validation.jsonl")).unwrap(),
    );
}
