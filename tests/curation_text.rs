//! Curation of real text (issue 19, item 3: noise and split), over labelled sets built by
//! reading ../shared corpora (fixtures in tests/fixtures/curation, see README.md there).
//! Run by `make test-shared`.

mod common;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

fn fixture(name: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(repo().join("tests/fixtures/curation").join(name))
        .expect("fixture")
        .lines()
        .map(|l| serde_json::from_str(l).expect("fixture line"))
        .collect()
}

fn run_with_stdin(args: &[&str], input: &str) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kcurate"))
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .env("KCURATE_SHARED", kcurate_core::shared_dir())
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kcurate runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("kcurate ends");
    writer.join().expect("writer").expect("stdin written");
    out
}

/// The origin line of a decision (`file:line`).
fn origin_line(v: &serde_json::Value) -> u64 {
    match &v["origin"] {
        serde_json::Value::String(s) => s.rsplit(':').next().and_then(|x| x.parse().ok()),
        o => o["line"].as_u64(),
    }
    .expect("origin line")
}

/// 59 Wikinews articles with their noise strings labelled by reading: the noise stage
/// leaves at most 5% of the labelled noise, and at most 2 of its edits remove none.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn wikinews_labelled_noise_is_removed_without_false_edits() {
    let fx = fixture("wikinews_noise.jsonl");
    assert!(fx.len() >= 50);
    let by_line: BTreeMap<u64, &serde_json::Value> = fx
        .iter()
        .map(|o| (o["line"].as_u64().expect("line"), o))
        .collect();
    let ingest = kcurate(&["ingest", "configs/nsmc-wikinews.toml"]);
    assert!(ingest.status.code() == Some(0), "{}", stderr(&ingest));
    let mut input = String::new();
    for l in stdout(&ingest).lines() {
        let r: serde_json::Value = serde_json::from_str(l).expect("record");
        if r["source"] == "wikinews" && by_line.contains_key(&r["origin"]["line"].as_u64().unwrap())
        {
            input.push_str(l);
            input.push('\n');
        }
    }
    let dir = tempfile::tempdir().expect("tmp");
    let dec = dir.path().join("decisions.jsonl");
    let out = run_with_stdin(
        &[
            "stage",
            "--recipe",
            "configs/nsmc-wikinews.toml",
            "--stages",
            "normalize,noise",
            "--decisions",
            dec.to_str().unwrap(),
        ],
        &input,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut texts: BTreeMap<u64, String> = BTreeMap::new();
    for l in stdout(&out).lines() {
        let r: serde_json::Value = serde_json::from_str(l).expect("record");
        texts.insert(
            r["origin"]["line"].as_u64().unwrap(),
            r["text"].as_str().unwrap().to_string(),
        );
    }
    assert_eq!(texts.len(), fx.len(), "every labelled article comes out");
    let (mut labelled, mut left) = (0usize, 0usize);
    let mut still = Vec::new();
    for (line, o) in &by_line {
        let mut want: BTreeMap<&str, usize> = BTreeMap::new();
        for n in o["noise"].as_array().unwrap() {
            *want.entry(n.as_str().unwrap()).or_default() += 1;
        }
        for (s, k) in want {
            labelled += k;
            let n = texts[line].matches(s).count().min(k);
            if n > 0 {
                still.push(format!("line {line}: {s:?} x{n}"));
            }
            left += n;
        }
    }
    let mut edits = 0usize;
    let mut false_edits = Vec::new();
    for l in std::fs::read_to_string(&dec).unwrap().lines() {
        let d: serde_json::Value = serde_json::from_str(l).expect("decision");
        if d["stage"] != "noise" || d["action"] != "edit" || d["rule"] == "noise.blank" {
            continue;
        }
        edits += 1;
        let before = d["span"]["before"].as_str().unwrap().trim();
        let noise = by_line[&origin_line(&d)]["noise"].as_array().unwrap();
        let hits = noise.iter().any(|n| {
            let n = n.as_str().unwrap();
            !before.is_empty() && (n.contains(before) || before.contains(n))
        });
        if !hits {
            false_edits.push(format!("{} {before:?}", d["rule"]));
        }
    }
    println!(
        "wikinews noise: {} articles, {labelled} labelled noise strings, {left} left ({:.1}%); {edits} noise edits, {} remove no labelled noise: {false_edits:?}",
        fx.len(),
        100.0 * left as f64 / labelled as f64,
        false_edits.len()
    );
    assert!(labelled >= 50);
    assert!(left * 20 <= labelled, "labelled noise left: {still:?}");
    assert!(false_edits.len() <= 2, "{false_edits:?}");
}

/// The splitter's boundary precision, recall and F1 on a fixture of NSMC reviews with gold
/// cut offsets (chars) labelled by reading.
fn nsmc_boundaries(name: &str) -> (usize, usize, f64, f64, f64) {
    let fx = fixture(name);
    let raw = kcurate_core::shared_dir().join("corpora/nsmc/raw");
    let mut files: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
    let mut input = String::new();
    let mut texts = BTreeMap::new();
    for o in &fx {
        let movie = o["movie"].as_str().unwrap().to_string();
        let reviews = files.entry(movie.clone()).or_insert_with(|| {
            serde_json::from_slice(&std::fs::read(raw.join(format!("{movie}.json"))).unwrap())
                .unwrap()
        });
        let id = format!("{movie}:{}", o["review_id"].as_str().unwrap());
        let text = reviews
            .iter()
            .find(|r| r["review_id"] == o["review_id"])
            .and_then(|r| r["review"].as_str())
            .expect("review in its movie file")
            .to_string();
        input.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        input.push('\n');
        texts.insert(id, text);
    }
    let out = run_with_stdin(&["text", "split"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut pred: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for l in stdout(&out).lines() {
        let r: serde_json::Value = serde_json::from_str(l).expect("split line");
        let id = r["id"].as_str().unwrap().to_string();
        let text = &texts[&id];
        let mut pos = 0usize;
        let mut starts = BTreeSet::new();
        for (i, s) in r["sentences"].as_array().unwrap().iter().enumerate() {
            let s = s.as_str().unwrap();
            let at = pos + text[pos..].find(s).expect("sentence in text");
            if i > 0 {
                starts.insert(text[..at].chars().count());
            }
            pos = at + s.len();
        }
        pred.insert(id, starts);
    }
    let (mut tp, mut fp, mut fneg) = (0usize, 0usize, 0usize);
    for o in &fx {
        let id = format!(
            "{}:{}",
            o["movie"].as_str().unwrap(),
            o["review_id"].as_str().unwrap()
        );
        let gold: BTreeSet<usize> = o["cuts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap() as usize)
            .collect();
        let p = &pred[&id];
        tp += p.intersection(&gold).count();
        fp += p.difference(&gold).count();
        fneg += gold.difference(p).count();
    }
    let prec = tp as f64 / (tp + fp) as f64;
    let rec = tp as f64 / (tp + fneg) as f64;
    let f1 = 2.0 * prec * rec / (prec + rec);
    println!(
        "{name}: {} reviews, {} gold boundaries, P {prec:.4} R {rec:.4} F1 {f1:.4}",
        fx.len(),
        tp + fneg
    );
    (fx.len(), tp + fneg, prec, rec, f1)
}

/// 112 multi-sentence NSMC reviews labelled by reading; the splitter's rules were adjusted
/// while reading its errors on them. Before that work: P 0.8792, R 0.8626, F1 0.8708.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn nsmc_review_boundaries_by_reading() {
    let (n, _, prec, _, f1) = nsmc_boundaries("nsmc_ssplit.jsonl");
    assert!(n >= 100);
    assert!(f1 >= 0.93, "F1 {f1:.4}");
    assert!(prec >= 0.96, "P {prec:.4}");
}

/// 65 further reviews of the same shuffle, labelled after the rules were fixed and not
/// tuned on. Before this work: P 0.9189, R 0.8160, F1 0.8644.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn nsmc_held_out_review_boundaries_by_reading() {
    let (_, _, prec, _, f1) = nsmc_boundaries("nsmc_ssplit_heldout.jsonl");
    assert!(f1 >= 0.89, "F1 {f1:.4}");
    assert!(prec >= 0.92, "P {prec:.4}");
}
