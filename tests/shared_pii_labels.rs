//! The PII part of the labelled real-text set (run by `make test-shared`):
//! tests/fixtures/curation/pii_labels.jsonl names 320 NSMC reviews (file + review_id) and 52
//! Korean Wikinews articles (article URL) in ../shared/corpora, each with the PII spans a
//! reader found in it as character offsets into the review text or the article body (`내용`),
//! never the strings. Most hold none. The NSMC + Wikinews chain of configs/nsmc-wikinews.toml
//! (its `pii` stage: review-site user ids on; article URLs left in Wikinews ids) runs
//! over them with the real binary. Then: no labelled original is left in any output file
//! (a sentence that holds one may also leave by another stage's drop), and at most one PII
//! edit falls on a document the reader found free of PII.

mod common;
use common::*;
use kcurate_core::shared_dir as shared;
use std::collections::{BTreeMap, BTreeSet};

struct Labelled {
    /// Document id in the release (`nsmc-<review_id>`, `wikinews-<url>`).
    doc: String,
    /// The original strings of its labelled spans, read from the corpus.
    originals: Vec<(String, String)>,
}

fn recipe(dir: &std::path::Path, nsmc: &std::path::Path) -> std::path::PathBuf {
    let base = std::fs::read_to_string(repo().join("configs/nsmc-wikinews.toml")).unwrap();
    let wikinews = shared().join("corpora/wikinews/wikinews.csv");
    let text = base
        .replace(
            "path = \"../../shared/corpora/nsmc/raw\"\nformat = \"json\"",
            &format!("path = \"{}\"\nformat = \"jsonl\"", nsmc.display()),
        )
        .replace(
            "path = \"../../shared/corpora/wikinews/wikinews.csv\"",
            &format!("path = \"{}\"", wikinews.display()),
        );
    // The shipped recipe's own pii stage: user ids on, article URLs left in ids.
    assert!(text.contains(
        "name = \"pii\"\nkey_env = \"KCURATE_PII_KEY\"\nuser_ids = true\nid_allow = [\"url\"]"
    ));
    assert!(text.contains("format = \"jsonl\""));
    let p = dir.join("recipe.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// A labelled NSMC review: its record, as the corpus file has it, and its labelled spans'
/// original strings (offsets into the review text).
fn nsmc_labelled(
    l: &serde_json::Value,
    files: &mut BTreeMap<String, Vec<serde_json::Value>>,
) -> (serde_json::Value, Labelled) {
    let file = l["file"].as_str().unwrap().to_string();
    let reviews = files.entry(file.clone()).or_insert_with(|| {
        serde_json::from_slice(&std::fs::read(shared().join("corpora").join(&file)).unwrap())
            .unwrap()
    });
    let id = l["review_id"].as_str().unwrap();
    let r = reviews
        .iter()
        .find(|r| r["review_id"] == id)
        .unwrap_or_else(|| panic!("{file}: no review {id}"));
    let text: Vec<char> = r["review"].as_str().unwrap().chars().collect();
    let originals = l["pii"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let (a, b) = (s["start"].as_u64().unwrap(), s["end"].as_u64().unwrap());
            (
                s["type"].as_str().unwrap().to_string(),
                text[a as usize..b as usize].iter().collect(),
            )
        })
        .collect();
    let doc = format!("nsmc-{id}");
    (r.clone(), Labelled { doc, originals })
}

/// A labelled Wikinews article, its spans as `start..end` until [`resolve_wikinews`] reads
/// the bodies (kcurate reads them from the CSV).
fn wikinews_labelled(l: &serde_json::Value) -> Labelled {
    let url = l["url"].as_str().unwrap();
    Labelled {
        doc: format!("wikinews-{url}"),
        originals: l["pii"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["type"].as_str().unwrap().to_string(),
                    format!("{}..{}", s["start"], s["end"]),
                )
            })
            .collect(),
    }
}

/// The fixture's documents, with the labelled NSMC reviews written as JSONL to `nsmc`.
fn read_labels(nsmc: &std::path::Path) -> Vec<Labelled> {
    let fixture =
        std::fs::read_to_string(repo().join("tests/fixtures/curation/pii_labels.jsonl")).unwrap();
    let mut nsmc_lines = String::new();
    let mut files: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
    let mut labelled = Vec::new();
    let mut wiki_urls = BTreeSet::new();
    for line in fixture.lines() {
        let l: serde_json::Value = serde_json::from_str(line).unwrap();
        if l["corpus"] == "nsmc" {
            let (record, doc) = nsmc_labelled(&l, &mut files);
            nsmc_lines.push_str(&serde_json::to_string(&record).unwrap());
            nsmc_lines.push('\n');
            labelled.push(doc);
        } else {
            wiki_urls.insert(l["url"].as_str().unwrap().to_string());
            labelled.push(wikinews_labelled(&l));
        }
    }
    let n_nsmc = labelled
        .iter()
        .filter(|l| l.doc.starts_with("nsmc-"))
        .count();
    assert!(
        n_nsmc >= 300 && wiki_urls.len() >= 50,
        "{n_nsmc} reviews, {} articles",
        wiki_urls.len()
    );
    std::fs::write(nsmc, nsmc_lines).unwrap();
    labelled
}

/// Turns the Wikinews offsets into the original strings, from the bodies as kcurate ingests
/// them with `recipe` (the CSV's quoted multi-line fields).
fn resolve_wikinews(labelled: &mut [Labelled], recipe: &std::path::Path, tmp: &std::path::Path) {
    let ingest = assert_cmd::Command::cargo_bin("kcurate")
        .unwrap()
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args([
            "ingest",
            recipe.to_str().unwrap(),
            "--decisions",
            tmp.join("ingest-decisions.jsonl").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(ingest.status.success(), "{}", stderr(&ingest));
    let mut bodies: BTreeMap<String, Vec<char>> = BTreeMap::new();
    for l in stdout(&ingest).lines() {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        let id = r["id"].as_str().unwrap();
        if id.starts_with("wikinews-") {
            bodies.insert(
                id.to_string(),
                r["text"].as_str().unwrap().chars().collect(),
            );
        }
    }
    for l in labelled
        .iter_mut()
        .filter(|l| l.doc.starts_with("wikinews-"))
    {
        let body = bodies
            .get(&l.doc)
            .unwrap_or_else(|| panic!("{}: not in the Wikinews CSV", l.doc));
        for (_, o) in l.originals.iter_mut() {
            let (a, b) = o.split_once("..").unwrap();
            let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
            *o = body[a..b].iter().collect();
        }
    }
}

/// Asserts that no labelled original is left in any output file of the release at `dir`.
fn assert_no_labelled_original_left(labelled: &[Labelled], dir: &std::path::Path) {
    let mut outputs = String::new();
    for (rel, bytes) in tree(dir) {
        if rel.ends_with(".jsonl") || rel.ends_with(".md") || rel.ends_with(".html") {
            outputs.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    let mut left = Vec::new();
    let mut spans = 0;
    for l in labelled {
        for (kind, orig) in &l.originals {
            spans += 1;
            if outputs.contains(orig.as_str()) {
                left.push(format!(
                    "{}: {kind} ({} chars)",
                    l.doc,
                    orig.chars().count()
                ));
            }
        }
    }
    println!(
        "labelled PII spans: {spans}; left in the release: {}",
        left.len()
    );
    assert!(
        left.is_empty(),
        "labelled PII left in the release:\n{}",
        left.join("\n")
    );
}

/// Asserts that at most one PII decision of the release at `dir` falls on a document the
/// reader found free of PII.
fn assert_clean_documents_left_alone(labelled: &[Labelled], dir: &std::path::Path) {
    let clean: BTreeSet<&str> = labelled
        .iter()
        .filter(|l| l.originals.is_empty())
        .map(|l| l.doc.as_str())
        .collect();
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let mut false_edits = Vec::new();
    for line in decisions.lines() {
        let d: serde_json::Value = serde_json::from_str(line).unwrap();
        if d["stage"] != "pii" {
            continue;
        }
        let item = d["item"].as_str().unwrap();
        let doc = item.rsplit_once("-s").map_or(item, |(a, _)| a);
        if clean.contains(doc) {
            false_edits.push(format!("{} {}: {}", d["rule"], item, d["detail"]));
        }
    }
    println!(
        "documents without PII: {}; PII decisions on them: {}",
        clean.len(),
        false_edits.len()
    );
    for e in &false_edits {
        println!("  {e}");
    }
    assert!(false_edits.len() <= 1, "{}", false_edits.join("\n"));
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn labelled_pii_leaves_the_release_and_clean_documents_are_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let nsmc_path = tmp.path().join("nsmc.jsonl");
    let mut labelled = read_labels(&nsmc_path);
    let recipe = recipe(tmp.path(), &nsmc_path);
    resolve_wikinews(&mut labelled, &recipe, tmp.path());
    let out = tmp.path().join("out");
    let o = run_rooted(&recipe, &out);
    assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(&o));
    let dir = out.join("nsmc-wikinews-sentences/1.0.0");
    assert_no_labelled_original_left(&labelled, &dir);
    assert_clean_documents_left_alone(&labelled, &dir);
}
