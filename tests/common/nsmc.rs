//! NSMC reviews from ../shared, for the benches that time a stage on real text (included
//! with `#[path]`, as `fuzz.rs` is, so the crates' benches share one reader).

/// Every review text of `corpora/nsmc/raw/*.json`: files in name order, reviews in file
/// order (the same input on every machine).
pub(crate) fn reviews() -> Vec<String> {
    let dir = kcurate_core::shared_dir().join("corpora/nsmc/raw");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("nsmc raw")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let v: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(f).expect("read")).expect("json");
        out.extend(
            v.into_iter()
                .filter_map(|r| r["review"].as_str().map(String::from)),
        );
    }
    out
}
