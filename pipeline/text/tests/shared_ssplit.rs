//! The splitter on `../shared/reference/ssplit`: boundary F1 per style on the visible gold
//! (the scorer's rule: whitespace-free character offsets), against the README's targets,
//! and every probe.

use std::collections::BTreeSet;

use kcurate_core::shared_dir as shared;

fn load(name: &str) -> Vec<serde_json::Value> {
    let p = shared().join("reference/ssplit").join(name);
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("gold line"))
        .collect()
}

/// Start offsets (in whitespace-free chars) of the 2nd..nth sentence.
fn bounds<'a>(sents: impl Iterator<Item = &'a str>) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut off = 0usize;
    for (i, s) in sents.enumerate() {
        let n = s.chars().filter(|c| !c.is_whitespace()).count();
        if n == 0 {
            continue;
        }
        if i > 0 && off > 0 {
            out.insert(off);
        }
        off += n;
    }
    out
}

#[derive(Default, Debug)]
struct Acc {
    gold: usize,
    pred: usize,
    tp: usize,
    items: usize,
    exact_items: usize,
}

impl Acc {
    fn f1(&self) -> f64 {
        let p = if self.pred == 0 {
            1.0
        } else {
            self.tp as f64 / self.pred as f64
        };
        let r = if self.gold == 0 {
            1.0
        } else {
            self.tp as f64 / self.gold as f64
        };
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn gold_visible_f1_meets_targets() {
    let mut formal = Acc::default();
    let mut colloquial = Acc::default();
    for g in load("gold_visible.jsonl") {
        let text = g["text"].as_str().expect("text");
        let gold = bounds(
            g["sentences"]
                .as_array()
                .expect("sentences")
                .iter()
                .map(|s| s.as_str().expect("str")),
        );
        let pred = bounds(kcurate_text::split_str(text).into_iter());
        let acc = if g["style"] == "formal" {
            &mut formal
        } else {
            &mut colloquial
        };
        acc.gold += gold.len();
        acc.pred += pred.len();
        acc.tp += gold.intersection(&pred).count();
        acc.items += 1;
        acc.exact_items += usize::from(gold == pred);
    }
    println!(
        "formal {:.4} {formal:?}\ncolloquial {:.4} {colloquial:?}",
        formal.f1(),
        colloquial.f1()
    );
    // README targets: best KSS backend per style (kss-punct 0.9971, kss-fast-py 0.9162);
    // Kiwi (0.990 / 0.9446) is the stretch goal.
    assert!(formal.f1() >= 0.9971, "formal F1 {:.4}", formal.f1());
    assert!(
        colloquial.f1() >= 0.9446,
        "colloquial F1 {:.4}",
        colloquial.f1()
    );
    // The figures the informal-ending work must keep: formal 0.9990, colloquial
    // 0.9764 before and after the rules for glued digits, -이지 and commas after -더라.
    assert!(
        formal.f1() >= 0.9989,
        "formal F1 dropped: {:.4}",
        formal.f1()
    );
    assert!(
        colloquial.f1() >= 0.9763,
        "colloquial F1 dropped: {:.4}",
        colloquial.f1()
    );
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn every_probe_passes() {
    let mut failed = Vec::new();
    for g in load("probes.jsonl") {
        let text = g["text"].as_str().expect("text");
        let gold: Vec<&str> = g["sentences"]
            .as_array()
            .expect("sentences")
            .iter()
            .map(|s| s.as_str().expect("str"))
            .collect();
        let pred = kcurate_text::split_str(text);
        if pred != gold {
            failed.push(format!("{}: {pred:?} != {gold:?}", g["id"]));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn split_jsonl_reads_the_gold_file() {
    let p = shared().join("reference/ssplit/gold_visible.jsonl");
    let f = std::io::BufReader::new(std::fs::File::open(&p).expect("open"));
    let mut out = Vec::new();
    let rep = kcurate_text::split_jsonl(f, &mut out).expect("split");
    assert!(rep.bad.is_empty());
    assert_eq!(rep.written, 899);
    let first: serde_json::Value =
        serde_json::from_slice(out.split(|&b| b == b'\n').next().expect("a line")).expect("json");
    assert_eq!(first["id"], "pud-0000");
    assert!(first["sentences"].as_array().is_some_and(|a| a.len() == 4));
}
