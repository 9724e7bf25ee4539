//! Derived releases and split strategies: a SentiNeg challenge release from the sample
//! release (verifies, rebuilds, names its parent, inherits its licence, a decision per
//! flip and per skip); the TC recipe's date and unseen-term splits hold and every moved
//! item has a decision.

mod common;
use common::*;
use kcurate_core::recipe::TC_TOPICS;
use std::collections::BTreeSet;
use std::path::PathBuf;

#[test]
fn sentineg_challenge_release_is_derived_verifiable_and_rebuildable() {
    let (out, parent) = default_release("2");
    let (_, dir) = challenge(&parent, "configs/challenge-sentineg.toml", out.path(), &[]);
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
    let m = manifest(&dir);
    let parent_sha = kcurate_sha(&parent.join("manifest.json"));
    assert_eq!(m["parent"]["manifest_sha256"], parent_sha.as_str());
    assert_eq!(m["license"], m["parent"]["license"]);
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let mut flips = 0;
    for split in ["validation", "test"] {
        for line in std::fs::read_to_string(dir.join(format!("sentineg/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_ne!(r["label"], r["original_label"], "{r}");
            assert_ne!(r["text"], r["original"]);
            assert!(
                decisions.contains(&format!("\"item\":{}", r["id"])),
                "no decision for {}",
                r["id"]
            );
            flips += 1;
        }
    }
    assert!(flips > 0);
    assert!(
        decisions.contains("challenge.no_rule") || decisions.contains("challenge.neutral_label")
    );
    assert_rebuilds_identically(&dir);
}

fn kcurate_sha(p: &std::path::Path) -> String {
    kcurate_core::hash::sha256_file(p).unwrap().0
}

#[test]
fn tc_recipe_date_and_unseen_term_splits_hold() {
    let (_out, dir) = run_recipe("configs/klue-tc.toml", "0");
    let terms = [
        "서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "수원", "전주",
    ];
    let read = |split: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.join(format!("tc/{split}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let train = read("train");
    let train_terms: BTreeSet<&str> = terms
        .iter()
        .copied()
        .filter(|t| {
            train
                .iter()
                .any(|r| r["title"].as_str().unwrap().contains(t))
        })
        .collect();
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    for split in ["validation", "test"] {
        for r in read(split) {
            let title = r["title"].as_str().unwrap();
            assert!(r["date"].as_str().unwrap() >= "2020-01-01", "{r}");
            assert!(
                !train_terms.iter().any(|t| title.contains(t)),
                "{split} item shares a train term: {title}"
            );
            assert!(
                decisions.contains(&format!("\"item\":{},\"stage\":\"split_date\"", r["guid"])),
                "no split_date decision for {}",
                r["guid"]
            );
            assert!(TC_TOPICS.contains(&r["label"].as_str().unwrap()));
        }
    }
    // Every item the unseen-term rule moved is in train and has its decision.
    for l in decisions
        .lines()
        .filter(|l| l.contains("split.unseen_moved"))
    {
        let d: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(train.iter().any(|r| r["guid"] == d["item"]), "{d}");
    }
    let m = manifest(&dir);
    assert!(m["metrics"]["tc"]["alpha_nominal"].as_f64().is_some());
}

/// A SentiNeg release derived from the sample release and its flips' batch for two
/// checkers (`challenge export`).
struct Flips {
    out: tempfile::TempDir,
    parent: PathBuf,
    dir: PathBuf,
    /// The batch: a header, then a row per flip and checker.
    batch: String,
}

fn flips_out_for_checking() -> Flips {
    let (out, parent) = default_release("3");
    let (_, dir) = challenge(
        &parent,
        "configs/challenge-sentineg.toml",
        out.path(),
        &["--overwrite"],
    );
    let o = kcurate(&[
        "challenge",
        "export",
        dir.to_str().unwrap(),
        "--checkers",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let batch = stdout(&o);
    Flips {
        out,
        parent,
        dir,
        batch,
    }
}

/// The batch's rows (header checked and left out), split into fields, and its items in
/// order: at least four flips.
fn batch_rows(batch: &str) -> (Vec<Vec<&str>>, Vec<&str>) {
    let mut lines = batch.lines();
    assert_eq!(
        lines.next().unwrap(),
        "item\tannotator\tvalue\toriginal\toriginal_label\ttext\tlabel\tflip_rule"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    let items: Vec<&str> = rows
        .iter()
        .map(|r| r[0])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(items.len() >= 4, "{} flips", items.len());
    (rows, items)
}

/// The same batch for Label Studio: a task per flip and the accept/reject config over their
/// data.
#[test]
fn sentineg_flips_go_out_to_checkers_as_tsv_and_label_studio() {
    let f = flips_out_for_checking();
    batch_rows(&f.batch);
    let ls = f.out.path().join("ls-batch");
    let l = kcurate(&[
        "challenge",
        "export",
        f.dir.to_str().unwrap(),
        "--label-studio",
        ls.to_str().unwrap(),
    ]);
    assert!(l.status.success(), "{}", stderr(&l));
    let config = std::fs::read_to_string(ls.join("labeling-config.xml")).unwrap();
    let tasks: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(ls.join("tasks.json")).unwrap()).unwrap();
    assert_eq!(tasks.len() * 2, f.batch.lines().count() - 1);
    assert!(config.contains("<Choices name=\"verdict\""), "{config}");
    for key in tasks[0]["data"].as_object().unwrap().keys() {
        assert!(
            key == "item" || config.contains(&format!("value=\"${key}\"")),
            "{key}"
        );
    }
}

/// The checkers' verdicts: item 0 both accept; item 1 both reject; item 2 split vote;
/// item 3 unchecked (its rows are left out); one extra row carries a label that is not a
/// verdict.
fn filled_verdicts(rows: &[Vec<&str>], items: &[&str]) -> String {
    let mut filled = String::from("item\tannotator\tvalue\n");
    for r in rows {
        let k = items.iter().position(|i| *i == r[0]).unwrap();
        let v = match (k, r[1]) {
            (1, _) => "reject",
            (2, "annotator02") => "reject",
            (3, _) => continue,
            _ => "accept",
        };
        filled.push_str(&format!("{}\t{}\t{v}\n", r[0], r[1]));
    }
    filled.push_str(&format!("{}\tannotator03\tmaybe\n", items[0]));
    filled
}

/// The ids of a SentiNeg release's validation and test flips.
fn released_flips(dir: &std::path::Path) -> BTreeSet<String> {
    ["validation", "test"]
        .iter()
        .flat_map(|s| {
            std::fs::read_to_string(dir.join(format!("sentineg/{s}.jsonl")))
                .unwrap()
                .lines()
                .map(|l| {
                    serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// People check flips: the filled batch returns through `verdicts`, and the flips rejected,
/// undecided or unchecked leave with their decisions; a row with a label that is not a
/// verdict becomes a decision too, never a silent loss.
#[test]
fn sentineg_flips_checked_by_people_keep_only_accepted_ones() {
    let f = flips_out_for_checking();
    let (rows, items) = batch_rows(&f.batch);
    let verdicts = f.out.path().join("verdicts.tsv");
    std::fs::write(&verdicts, filled_verdicts(&rows, &items)).unwrap();
    let recipe = std::fs::read_to_string(repo().join("configs/challenge-sentineg.toml"))
        .unwrap()
        .replace(
            "negative = [\"1\", \"2\", \"3\", \"4\"]",
            &format!(
                "negative = [\"1\", \"2\", \"3\", \"4\"]\nverdicts = {:?}",
                verdicts.display().to_string()
            ),
        );
    assert!(recipe.contains("verdicts"));
    let checked = f.out.path().join("checked.toml");
    std::fs::write(&checked, recipe).unwrap();
    let (_, dir) = challenge(
        &f.parent,
        checked.to_str().unwrap(),
        f.out.path(),
        &["--overwrite"],
    );
    assert_eq!(dir, f.dir, "the checked release replaces the unchecked one");
    let expect: BTreeSet<String> = items
        .iter()
        .enumerate()
        .filter(|(k, _)| *k == 0 || *k >= 4)
        .map(|(_, i)| i.to_string())
        .collect();
    assert_eq!(released_flips(&dir), expect);
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    for (k, rule) in [
        (1, "challenge.rejected"),
        (2, "challenge.no_verdict"),
        (3, "challenge.unchecked"),
    ] {
        assert!(
            decisions
                .lines()
                .any(|l| l.contains(rule) && l.contains(&format!("\"item\":\"{}\"", items[k]))),
            "{rule} for {}",
            items[k]
        );
    }
    assert!(
        decisions.contains("maybe"),
        "the bad verdict row has a decision"
    );
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
}

/// The hypothesis-only-hard NLI set: derived from the sample NLI release, balanced per
/// source and label, every pair that left has a decision, and it rebuilds byte for byte.
/// The sample's hypotheses are templates a hypothesis-only model solves (98%), so its hard
/// pairs are the ones validators relabelled. With the shipped vote table (KLUE NLI dev's
/// validators, 5–11% error) too few are relabelled to fill every source and label, and the
/// set is empty (checked below). To test the mechanics, the parent here has validators who
/// err 6–8 times as often as KLUE's (a test fixture, not a realistic pool).
#[test]
fn nli_hard_challenge_set_is_balanced_and_accounts_for_every_pair() {
    let text = std::fs::read_to_string(repo().join("configs/klue-nli.toml")).unwrap();
    let noisy = text.replace("error_scale = [0.8627, 1.1294]", "error_scale = [6, 8]");
    assert_ne!(
        noisy, text,
        "the recipe's error_scale moved; update this test"
    );
    let tmp = tempfile::tempdir().unwrap();
    let recipe = tmp.path().join("klue-nli-noisy.toml");
    std::fs::write(&recipe, noisy).unwrap();
    let (out, parent) = run_config_copy(recipe.to_str().unwrap(), "0");
    let (_, dir) = challenge(&parent, "configs/challenge-nli-hard.toml", out.path(), &[]);
    let m = manifest(&dir);
    let parent_rows: usize = ["train", "validation", "test"]
        .iter()
        .map(|s| {
            std::fs::read_to_string(parent.join(format!("nli/{s}.jsonl")))
                .unwrap()
                .lines()
                .count()
        })
        .sum();
    let stage = m["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "nli_hard")
        .unwrap();
    assert_eq!(stage["items_in"], parent_rows);
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("nli/test.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!rows.is_empty());
    let mut cells: std::collections::BTreeMap<(String, String), usize> = Default::default();
    for r in &rows {
        *cells
            .entry((r["source"].to_string(), r["gold_label"].to_string()))
            .or_default() += 1;
        // Kept pairs are ones the hypothesis-only model gets wrong or is near uniform on.
        assert!(
            r["hypothesis_only_label"] != r["gold_label"]
                || r["hypothesis_only_ce"].as_f64().unwrap() <= (3f64).ln() + 0.05,
            "{r}"
        );
    }
    let n: Vec<usize> = cells.values().copied().collect();
    assert!(n.windows(2).all(|w| w[0] == w[1]), "{cells:?}");
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    assert_eq!(
        decisions.lines().count(),
        parent_rows - rows.len(),
        "one decision per pair that left"
    );
    assert_rebuilds_identically(&dir);

    // The shipped table: every pair leaves with a decision, none kept.
    let (out, parent) = run_recipe("configs/klue-nli.toml", "0");
    let (_, dir) = challenge(&parent, "configs/challenge-nli-hard.toml", out.path(), &[]);
    let kept = std::fs::read_to_string(dir.join("nli/test.jsonl")).unwrap_or_default();
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    assert_eq!(kept.lines().count(), 0);
    assert_eq!(
        decisions.lines().count(),
        ["train", "validation", "test"]
            .iter()
            .map(
                |s| std::fs::read_to_string(parent.join(format!("nli/{s}.jsonl")))
                    .unwrap()
                    .lines()
                    .count()
            )
            .sum::<usize>()
    );
}

/// A small parent release (`p` 1, 12 sentences) under `dir/out`, and a challenge recipe
/// `ch.toml` whose source block is `source` (its `[source.fields]` follow).
fn small_parent_and_challenge(dir: &std::path::Path, source: &str) -> (PathBuf, PathBuf) {
    let c = dir.join("c.jsonl");
    let mut s = String::new();
    for i in 0..12 {
        s.push_str(&format!(
            "{{\"id\":\"d{i}\",\"text\":\"오늘 {i}번째 문장은 날씨 이야기를 길게 한다.\"}}\n"
        ));
    }
    std::fs::write(&c, s).unwrap();
    let r = dir.join("r.toml");
    std::fs::write(
        &r,
        "name = \"p\"\nversion = \"1\"\nseed = 1\n\n[[source]]\nid = \"a\"\npath = \"c.jsonl\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\nid = \"id\"\n",
    )
    .unwrap();
    let o = kcurate(&[
        "run",
        r.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ch = dir.join("ch.toml");
    std::fs::write(
        &ch,
        format!("name = \"ch\"\nversion = \"1\"\nseed = 1\n\n[[source]]\n{source}\ndomain = \"news\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\nid = \"id\"\n"),
    )
    .unwrap();
    (dir.join("out/p/1"), ch)
}

#[test]
fn a_release_path_cannot_leave_the_parent_release() {
    let d = tempfile::tempdir().unwrap();
    // A file outside the parent, under no licence the gate would pass on its own.
    std::fs::write(
        d.path().join("x.jsonl"),
        "{\"id\":\"secret\",\"text\":\"공개하면 안 되는 문장이 여기에 있다.\"}\n",
    )
    .unwrap();
    let (parent, ch) = small_parent_and_challenge(
        d.path(),
        "id = \"parent\"\npath = \"release:../../../x.jsonl\"\nformat = \"jsonl\"\nlicense = \"inherit\"",
    );
    let out = d.path().join("derived");
    let o = kcurate(&[
        "challenge",
        parent.to_str().unwrap(),
        "--recipe",
        ch.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("leaves the parent release") && stderr(&o).contains("ch.toml:"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let o = kcurate(&[
        "check",
        ch.to_str().unwrap(),
        "--release",
        parent.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("leaves the parent release"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn quoted_keys_in_a_challenge_recipe_mean_what_they_mean() {
    let d = tempfile::tempdir().unwrap();
    // Valid TOML for `path = "release:..."` and `license = "inherit"`.
    let (parent, ch) = small_parent_and_challenge(
        d.path(),
        "\"id\" = \"parent\"\n\"path\" = 'release:sentences/train.jsonl'\nformat = \"jsonl\"\n\"license\"   =   \"inherit\" # the parent's",
    );
    let (o, dir) = challenge(
        &parent,
        ch.to_str().unwrap(),
        &d.path().join("derived"),
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let m = manifest(&dir);
    assert_eq!(m["license"], "CC0-1.0");
    assert_eq!(m["parent"]["license"], "CC0-1.0");
    let train = manifest(&parent)["splits"]["sentences"]["train"]
        .as_u64()
        .unwrap();
    let rows: u64 = m["splits"]["sentences"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(rows, train, "{m}");
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
}

/// Topics from keywords on the sample news: headlines whose keywords tie or are too few
/// leave with tc.weak_topic when the annotators are simulated (they only echo a topic), and
/// stay for people to decide when their annotations are imported (the row then names no
/// topic rule).
#[test]
fn tc_headlines_the_keywords_do_not_settle_are_the_annotators() {
    let work = tempfile::tempdir().unwrap();
    let rules = repo().join("rules/ynat_topics.toml");
    let base = std::fs::read_to_string(repo().join("configs/klue-tc.toml")).unwrap();
    let with_rules = |name: &str, more: &str| {
        let r = base
            .replace(
                "annotators = 3\nspammers = 0",
                &format!(
                    "topic_rules = \"{}\"\nannotators = 3\nspammers = 0{more}",
                    rules.display()
                ),
            )
            .replace("name = \"klue-tc-samples\"", &format!("name = \"{name}\""));
        let p = work.path().join(format!("{name}.toml"));
        std::fs::write(&p, r).unwrap();
        p
    };
    let simulated = with_rules("tc-rules-simulated", "");
    let (_a, dir) = run_config_copy(simulated.to_str().unwrap(), "2");
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let weak: Vec<serde_json::Value> = decisions
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|d| d["rule"] == "tc.weak_topic")
        .collect();
    assert!(!weak.is_empty(), "no headline left to the annotators");
    assert!(
        weak.iter()
            .all(|d| d["detail"].as_str().unwrap().contains("for the annotators")),
        "{weak:?}"
    );
    // People label every headline: the weak ones come back with their label.
    let mut filled = String::from("item\tannotator\tvalue\n");
    for l in std::fs::read_to_string(repo().join("data-samples/news/news.jsonl"))
        .unwrap()
        .lines()
    {
        let Ok(r) = serde_json::from_str::<serde_json::Value>(l) else {
            continue;
        };
        let Some(id) = r["id"].as_str() else { continue };
        for a in ["p1", "p2", "p3"] {
            filled.push_str(&format!("news-{id}\t{a}\t사회\n"));
        }
    }
    let ann = work.path().join("people.tsv");
    std::fs::write(&ann, filled).unwrap();
    let ip = with_rules(
        "tc-rules-people",
        &format!("\nannotations = \"{}\"", ann.display()),
    );
    let (_b, dir2) = run_config_copy(ip.to_str().unwrap(), "2");
    let decisions2 = std::fs::read_to_string(dir2.join("audit/decisions.jsonl")).unwrap();
    assert!(!decisions2.contains("tc.weak_topic"));
    let mut rows = Vec::new();
    for split in ["train", "validation", "test"] {
        for l in std::fs::read_to_string(dir2.join(format!("tc/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            rows.push(serde_json::from_str::<serde_json::Value>(l).unwrap());
        }
    }
    for d in &weak {
        let r = rows
            .iter()
            .find(|r| r["guid"] == d["item"])
            .unwrap_or_else(|| panic!("{} not released with people's labels", d["item"]));
        assert_eq!(r["label"], "사회");
        assert!(r.get("topic_rule").is_none(), "{r}");
    }
}
