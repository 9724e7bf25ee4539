//! Shared helpers for the benches: where ../shared is, and the peak RSS.

use std::path::PathBuf;

pub(crate) fn shared_dir() -> PathBuf {
    std::env::var("KCURATE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")))
}

/// `bench_text.jsonl` texts.
#[allow(dead_code)]
pub(crate) fn bench_texts() -> Vec<String> {
    let p = shared_dir().join("reference/ssplit/bench_text.jsonl");
    let data = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    data.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", p.display(), i + 1));
            v["text"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

/// Peak resident set size in kB (`VmHWM` of /proc/self/status), if the OS reports it.
#[allow(dead_code)]
pub(crate) fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
