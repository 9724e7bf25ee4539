//! `kcurate run --memory`: the whole-corpus stages hold records in memory under the budget
//! and spill past it, and the release is the same either way: every file byte for byte, on
//! one thread and on two.

mod common;

use common::*;
use std::path::Path;

/// Korean review-like texts: words drawn by a fixed generator, with exact and near
/// duplicates, two-sentence records (the split stage), an address and a phone number (pii).
fn records(n: usize, shuffled: bool) -> String {
    const WORDS: [&str; 24] = [
        "영화가",
        "정말",
        "재밌어요",
        "배우들의",
        "연기가",
        "훌륭했고",
        "음악도",
        "좋았다",
        "스토리가",
        "지루했다",
        "결말이",
        "마음에",
        "들었음",
        "다시",
        "보고",
        "싶네요",
        "감독의",
        "연출이",
        "아쉬웠어요",
        "최고의",
        "작품",
        "시간",
        "가는",
        "줄",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m as u64) as usize
    };
    let mut texts: Vec<String> = Vec::new();
    let mut out = String::new();
    for i in 0..n {
        let text = match i % 10 {
            // An exact copy of an earlier text.
            3 | 7 if !texts.is_empty() => texts[next(texts.len())].clone(),
            // A near copy: an earlier text with one more word.
            5 if !texts.is_empty() => format!("{} {}", texts[next(texts.len())], WORDS[next(24)]),
            _ => {
                let mut t: Vec<&str> = (0..4 + next(8)).map(|_| WORDS[next(24)]).collect();
                if i % 13 == 0 {
                    t.push("연락은 010-1234-5678 로 주세요.");
                }
                if i % 4 == 0 {
                    t.push("그리고 두 번째 문장입니다.");
                }
                t.join(" ")
            }
        };
        texts.push(text.clone());
        let id = if shuffled { (i * 7919) % n } else { i };
        let line = serde_json::json!({"id": format!("r{id:06}"), "text": text, "rating": (i % 10).to_string()});
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// The default recipe's stages over one JSONL source at `input`.
fn recipe(input: &Path) -> String {
    let text = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    // The stages, task and split; the shipped release motivation is not this data's.
    let (release, task) = (
        text.find("\n[release]").unwrap(),
        text.find("\n[task]").unwrap(),
    );
    let stages = format!(
        "{}{}",
        &text[text.find("[[stage]]").unwrap()..release],
        &text[task..]
    );
    let stages = stages.replace("\"../", &format!("\"{}/", repo().display()));
    format!(
        "name = \"budget\"\nversion = \"1\"\nseed = 42\non_error = \"quarantine\"\n\n\
         [[source]]\nid = \"rev\"\npath = \"{}\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\n\
         domain = \"reviews\"\nstyle = \"colloquial\"\nattribution = \"generated\"\n\
         [source.fields]\ntext = \"text\"\nid = \"id\"\nlabel = \"rating\"\n\n{stages}",
        input.display()
    )
}

/// Runs the recipe with `--memory <memory>` on `threads`; returns every file of the release
/// and the run's debug log.
fn run(dir: &Path, memory: &str, threads: &str) -> (Vec<(String, Vec<u8>)>, String) {
    let out = dir.join(format!("out-{memory}-{threads}"));
    let recipe = dir.join("budget.toml");
    let o = kcurate(&[
        "run",
        recipe.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--threads",
        threads,
        "--memory",
        memory,
        "--log",
        "debug",
    ]);
    assert_written(&o, &format!("--memory {memory} --threads {threads}"));
    (tree(&out.join("budget/1")), stderr(&o))
}

fn same_release_whatever_the_budget(shuffled: bool, threads: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("reviews.jsonl");
    std::fs::write(&input, records(3000, shuffled)).unwrap();
    std::fs::write(dir.path().join("budget.toml"), recipe(&input)).unwrap();
    let (want, log) = run(dir.path(), "4G", threads[0]);
    assert!(
        log.contains("from_disk=false") && log.contains("spilled=false"),
        "4 GiB holds dedup's survivors and the keyed stage's records: {log}"
    );
    assert!(want.len() > 10, "a release: {:?}", want.len());
    for t in threads {
        let (got, log) = run(dir.path(), "1", t);
        assert!(
            log.contains("from_disk=true") && log.contains("spilled=true"),
            "one byte holds nothing: {log}"
        );
        assert_eq!(
            got.iter().map(|f| &f.0).collect::<Vec<_>>(),
            want.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "the same files"
        );
        for ((name, a), (_, b)) in got.iter().zip(&want) {
            assert!(a == b, "{name} differs (--memory 1 vs 4G, {t} threads)");
        }
    }
}

/// Records in id order: the keyed stage's direct path.
#[test]
fn budget_changes_no_byte_ids_in_order() {
    same_release_whatever_the_budget(false, &["1", "2"]);
}

/// Records out of id order: the keyed stage's sorted runs, spilled and in memory.
#[test]
fn budget_changes_no_byte_ids_out_of_order() {
    same_release_whatever_the_budget(true, &["2", "1"]);
}

#[test]
fn memory_sizes_are_checked() {
    let o = kcurate(&["run", "configs/default.toml", "--memory", "lots"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a memory size"), "{}", stderr(&o));
}
