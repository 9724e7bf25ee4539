//! Curation of real text, over labelled sets built by
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

/// The labelled articles' records, as `kcurate ingest` reads them from the shipped recipe,
/// through `normalize,noise` (`kcurate stage`): the text each comes out with, by input line,
/// and the decisions file (in a temporary directory that lives as long as the first).
fn labelled_through_noise(
    by_line: &BTreeMap<u64, &serde_json::Value>,
) -> (BTreeMap<u64, String>, tempfile::TempDir) {
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
    (texts, dir)
}

/// How many labelled noise strings there are, how many are left in `texts`, and where.
fn noise_left(
    by_line: &BTreeMap<u64, &serde_json::Value>,
    texts: &BTreeMap<u64, String>,
) -> (usize, usize, Vec<String>) {
    let (mut labelled, mut left) = (0usize, 0usize);
    let mut still = Vec::new();
    for (line, o) in by_line {
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
    (labelled, left, still)
}

/// The noise stage's edits in `decisions` (noise.blank aside), and those that remove no
/// labelled noise string of their article.
fn false_noise_edits(
    decisions: &std::path::Path,
    by_line: &BTreeMap<u64, &serde_json::Value>,
) -> (usize, Vec<String>) {
    let mut edits = 0usize;
    let mut false_edits = Vec::new();
    for l in std::fs::read_to_string(decisions).unwrap().lines() {
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
    (edits, false_edits)
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
    let (texts, dir) = labelled_through_noise(&by_line);
    assert_eq!(texts.len(), fx.len(), "every labelled article comes out");
    let (labelled, left, still) = noise_left(&by_line, &texts);
    let (edits, false_edits) = false_noise_edits(&dir.path().join("decisions.jsonl"), &by_line);
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

/// The text of a labelled item: an NSMC review (`movie`, `review_id`) or a news comment of
/// korean-hate-speech (`line` of `labeled/train.tsv`, header = line 1; a quoted field is
/// unquoted as a CSV reader does).
fn labelled_text(
    o: &serde_json::Value,
    files: &mut BTreeMap<String, Vec<serde_json::Value>>,
    comments: &[String],
) -> (String, String) {
    if let Some(line) = o["line"].as_u64() {
        let f = comments[line as usize - 1]
            .split('\t')
            .next()
            .expect("field");
        let t = match f.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
            Some(q) => q.replace("\"\"", "\""),
            None => f.to_string(),
        };
        return (format!("comment:{line}"), t);
    }
    let raw = kcurate_core::shared_dir().join("corpora/nsmc/raw");
    let movie = o["movie"].as_str().unwrap().to_string();
    let reviews = files.entry(movie.clone()).or_insert_with(|| {
        serde_json::from_slice(&std::fs::read(raw.join(format!("{movie}.json"))).unwrap()).unwrap()
    });
    let text = reviews
        .iter()
        .find(|r| r["review_id"] == o["review_id"])
        .and_then(|r| r["review"].as_str())
        .expect("review in its movie file")
        .to_string();
    (
        format!("{movie}:{}", o["review_id"].as_str().unwrap()),
        text,
    )
}

/// Start offsets (chars) of the 2nd..nth sentence `kcurate text split` finds in each text.
fn split_starts(texts: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<usize>> {
    let mut input = String::new();
    for (id, text) in texts {
        input.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        input.push('\n');
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
    pred
}

/// The splitter's boundary precision, recall and F1 on a fixture of NSMC reviews or news
/// comments with gold cut offsets (chars) labelled by reading.
fn labelled_boundaries(name: &str) -> (usize, usize, f64, f64, f64) {
    let fx = fixture(name);
    let tsv = std::fs::read_to_string(
        kcurate_core::shared_dir().join("corpora/korean-hate-speech/labeled/train.tsv"),
    )
    .expect("comments");
    let comments: Vec<String> = tsv.split('\n').map(str::to_string).collect();
    let mut files = BTreeMap::new();
    let mut texts = BTreeMap::new();
    let mut ids = Vec::new();
    for o in &fx {
        let (id, text) = labelled_text(o, &mut files, &comments);
        texts.insert(id.clone(), text);
        ids.push(id);
    }
    let pred = split_starts(&texts);
    let (mut tp, mut fp, mut fneg) = (0usize, 0usize, 0usize);
    for (o, id) in fx.iter().zip(&ids) {
        let gold: BTreeSet<usize> = o["cuts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap() as usize)
            .collect();
        let p = &pred[id];
        tp += p.intersection(&gold).count();
        fp += p.difference(&gold).count();
        fneg += gold.difference(p).count();
    }
    let prec = tp as f64 / (tp + fp) as f64;
    let rec = tp as f64 / (tp + fneg) as f64;
    let f1 = 2.0 * prec * rec / (prec + rec);
    println!(
        "{name}: {} items, {} gold boundaries, P {prec:.4} R {rec:.4} F1 {f1:.4}",
        fx.len(),
        tp + fneg
    );
    (fx.len(), tp + fneg, prec, rec, f1)
}

/// 112 multi-sentence NSMC reviews labelled by reading; the splitter's rules were adjusted
/// while reading its errors on them. Before that work: P 0.8792, R 0.8626, F1 0.8708; at
/// e6eebb2 P 0.9744 R 0.9005 F1 0.9360; after the informal-ending rules (branch cur-split)
/// P 0.9662 R 0.9479 F1 0.9569; after the glued-digit, -이지 and nominal-sentence rules
/// (branch split) P 0.9668 R 0.9668 F1 0.9668.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn nsmc_review_boundaries_by_reading() {
    let (n, _, prec, _, f1) = labelled_boundaries("nsmc_ssplit.jsonl");
    assert!(n >= 100);
    assert!(f1 >= 0.966, "F1 {f1:.4}");
    assert!(prec >= 0.966, "P {prec:.4}");
}

/// 65 further reviews of the same shuffle, labelled after the rules of e6eebb2 were fixed.
/// Before that work: P 0.9189, R 0.8160, F1 0.8644; at e6eebb2 P 0.9237 R 0.8720 F1 0.8971.
/// Its errors were read while writing the informal-ending rules (cur-split), so it is no
/// longer held out: P 0.9669 R 0.9360 F1 0.9512 after them.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn nsmc_held_out_review_boundaries_by_reading() {
    let (_, _, prec, _, f1) = labelled_boundaries("nsmc_ssplit_heldout.jsonl");
    assert!(f1 >= 0.94, "F1 {f1:.4}");
    assert!(prec >= 0.95, "P {prec:.4}");
}

/// Tuning sets of the informal-ending rules (cur-split): 61 NSMC reviews and 23 news
/// comments. Before: reviews P 0.9825 R 0.8750 F1 0.9256, comments P 0.8056 R 0.6744
/// F1 0.7342; after: P 0.9916 R 0.9219 F1 0.9555, P 0.9714 R 0.7907 F1 0.8718; after the
/// glued-digit, -이지 and nominal-sentence rules (branch split): P 0.9919 R 0.9531 F1 0.9721,
/// P 0.9737 R 0.8605 F1 0.9136.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn informal_tuning_boundaries_by_reading() {
    let (n, _, prec, _, f1) = labelled_boundaries("nsmc_ssplit_dev.jsonl");
    assert!(n >= 60);
    assert!(f1 >= 0.97, "reviews F1 {f1:.4}");
    assert!(prec >= 0.99, "reviews P {prec:.4}");
    let (n, _, prec, _, f1) = labelled_boundaries("comments_ssplit_dev.jsonl");
    assert!(n >= 20);
    assert!(f1 >= 0.91, "comments F1 {f1:.4}");
    assert!(prec >= 0.97, "comments P {prec:.4}");
}

/// The held-out set of the informal-ending rules (cur-split), labelled before any of them was
/// written: 157 NSMC reviews and 63 news comments (blog/tweet-like text). The target is
/// F1 0.95, not met: the comments score F1 0.8583 (P 0.8790 R 0.8385). Only the comments
/// are held out: their errors were never read. The reviews' errors were read to write rules
/// (they are a tuning set), so their P 0.9435 R 0.8530 F1 0.8960 is not a held-out figure
/// and is not asserted.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn informal_held_out_boundaries_by_reading() {
    let (n, _, prec, _, f1) = labelled_boundaries("nsmc_ssplit_heldout2.jsonl");
    assert!(n >= 150);
    assert!(f1 >= 0.895, "reviews F1 {f1:.4}");
    assert!(prec >= 0.94, "reviews P {prec:.4}");
    let (n, _, prec, _, f1) = labelled_boundaries("comments_ssplit_heldout.jsonl");
    assert!(n >= 60);
    assert!(f1 >= 0.855, "comments F1 {f1:.4}");
    assert!(prec >= 0.875, "comments P {prec:.4}");
}

/// The third held-out set (branch split): 117 NSMC reviews labelled by reading before the
/// errors of heldout2 were read, never tuned on: F1 0.9216 (P 0.9604 R 0.8858), below the
/// target of 0.95; the rules written from heldout2's errors do not move it (they did not
/// transfer).
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn third_held_out_review_boundaries_by_reading() {
    let (n, _, prec, _, f1) = labelled_boundaries("nsmc_ssplit_heldout3.jsonl");
    assert!(n >= 110);
    assert!(f1 >= 0.92, "F1 {f1:.4}");
    assert!(prec >= 0.96, "P {prec:.4}");
}

/// Wikinews cuts with no punctuation before them that fell inside a sentence (of the 8
/// such cuts at e6eebb2, read: all 8 wrong); origin line of the article in
/// `corpora/wikinews/wikinews.csv` and the char offset in its text: `대중가요` read as `-요`,
/// a range `25 ~ 30`, a quotation without `고` (`있다 판결했다`), the adverb `아예`,
/// `-ㄹ까 아쉽다`. None may be a sentence start.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn wikinews_no_cut_inside_a_sentence() {
    let want: &[(u64, usize)] = &[(145, 11), (194, 378), (265, 755), (518, 835), (944, 6410)];
    let ingest = kcurate(&["ingest", "configs/nsmc-wikinews.toml"]);
    assert!(ingest.status.code() == Some(0), "{}", stderr(&ingest));
    let mut texts = BTreeMap::new();
    for l in stdout(&ingest).lines() {
        let r: serde_json::Value = serde_json::from_str(l).expect("record");
        let line = r["origin"]["line"].as_u64().unwrap_or(0);
        if r["source"] == "wikinews" && want.iter().any(|w| w.0 == line) {
            texts.insert(line.to_string(), r["text"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(texts.len(), want.len());
    let pred = split_starts(&texts);
    for (line, at) in want {
        let p = &pred[&line.to_string()];
        assert!(
            !p.contains(at),
            "line {line}: a sentence starts at char {at}"
        );
    }
}

/// The fourth held-out pair: 124 NSMC reviews and 71 news comments labelled by
/// reading before the splitter rules they measure were written, so never tuned on
/// (`tools/ssplit_heldout4_select.py` selects them).
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn fourth_held_out_boundaries_by_reading() {
    let (n, _, _, _, f1) = labelled_boundaries("nsmc_ssplit_heldout4.jsonl");
    assert!(n >= 120);
    assert!(f1 >= 0.876, "reviews F1 {f1:.4}");
    let (n, _, _, _, f1) = labelled_boundaries("comments_ssplit_heldout4.jsonl");
    assert!(n >= 70);
    assert!(f1 >= 0.832, "comments F1 {f1:.4}");
}
