//! `kcurate finalise` builds the release from parts an engine staged, and the bytes equal a
//! local `kcurate run`: here the engine is this test, running `kcurate stage --before-corpus`
//! over 4 partitions of `kcurate ingest`'s records by hand (what the Spark driver in
//! integrations/spark does through `rdd.pipe`), with the records shuffled across the
//! partitions and the parts named against input order, so nothing rests on arrival order.

mod common;
use common::*;
use std::path::Path;

/// `kcurate ingest`: the records (one JSON line each) and the decisions file.
fn ingest(recipe: &str, work: &Path) -> Vec<String> {
    let dec = work.join("ingest.jsonl");
    let o = kcurate(&["ingest", recipe, "--decisions", dec.to_str().unwrap()]);
    assert_written(&o, "ingest");
    stdout(&o).lines().map(str::to_string).collect()
}

/// One `stage --before-corpus --decisions -` process per partition; its stdout is the part.
fn stage(recipe: &str, partition: &[String], more: &[&str]) -> Vec<u8> {
    let mut input = partition.join("\n");
    input.push('\n');
    stage_part_with(recipe, input.as_bytes(), more)
}

/// A fixed shuffle (by a hash of the line), so partitions mix records from everywhere.
fn shuffled(mut recs: Vec<String>) -> Vec<String> {
    use sha2::{Digest, Sha256};
    recs.sort_by_cached_key(|l| Sha256::digest(l.as_bytes()).to_vec());
    recs
}

/// Stages `recipe` over `n` partitions into `<work>/parts` (part names count down, against
/// input order) and finalises it; returns the release directory. With `shuffle`, the parts
/// carry dedup's key lines and finalise takes dedup's verdicts from [`shuffle_verdicts`].
fn finalise(recipe: &str, n: usize, work: &Path, shuffle: bool) -> std::path::PathBuf {
    let recs = shuffled(ingest(recipe, work));
    let parts = work.join("parts");
    std::fs::create_dir_all(&parts).unwrap();
    let size = recs.len().div_ceil(n);
    let more: &[&str] = if shuffle { &["--dedup-keys"] } else { &[] };
    for (i, chunk) in recs.chunks(size).enumerate() {
        let name = format!("part-{:05}", n - i);
        std::fs::write(parts.join(name), stage(recipe, chunk, more)).unwrap();
    }
    let out = work.join("release");
    let mut args = vec![
        "finalise".to_string(),
        recipe.to_string(),
        "--parts".into(),
        parts.display().to_string(),
        "--decisions".into(),
        work.join("ingest.jsonl").display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    if shuffle {
        let v = shuffle_verdicts(recipe, &parts, work);
        args.extend(["--dedup-verdicts".into(), v.display().to_string()]);
    }
    let o = kcurate(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_written(&o, "finalise");
    release_dir(&out, &repo().join(recipe))
}

/// What the Spark driver's shuffle does, by hand: the parts' key lines grouped by each
/// `meet` key; the records in a group of two or more go to `kcurate dedup-verdicts`, whose
/// verdicts it returns (a file). Checks that the shuffle left records out (the distinct
/// ones) and that dedup drops some.
fn shuffle_verdicts(recipe: &str, parts: &Path, work: &Path) -> std::path::PathBuf {
    let mut lines = Vec::new();
    for e in std::fs::read_dir(parts).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        lines.extend(
            text.lines()
                .filter(|l| l.starts_with("{\"dedup\":"))
                .map(str::to_string),
        );
    }
    let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, l) in lines.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        for k in v["dedup"]["meet"].as_array().unwrap() {
            groups
                .entry(k.as_str().unwrap().into())
                .or_default()
                .push(i);
        }
    }
    let colliding: std::collections::BTreeSet<usize> = groups
        .values()
        .filter(|g| g.len() > 1)
        .flatten()
        .copied()
        .collect();
    assert!(
        !colliding.is_empty() && colliding.len() < lines.len(),
        "{recipe}: {} of {}",
        colliding.len(),
        lines.len()
    );
    let keys = work.join("colliding.jsonl");
    let body: String = colliding
        .iter()
        .rev()
        .map(|&i| format!("{}\n", lines[i]))
        .collect();
    std::fs::write(&keys, body).unwrap();
    let verdicts = work.join("verdicts.jsonl");
    let o = kcurate(&[
        "dedup-verdicts",
        recipe,
        "--keys",
        keys.to_str().unwrap(),
        "--out",
        verdicts.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !std::fs::read_to_string(&verdicts).unwrap().is_empty(),
        "{recipe}: dedup drops some records"
    );
    verdicts
}

fn assert_same_release(recipe: &str) {
    assert_same_release_by(recipe, false);
}

fn assert_same_release_by(recipe: &str, shuffle: bool) {
    let work = tempfile::tempdir().unwrap();
    let got = finalise(recipe, 4, work.path(), shuffle);
    let (_keep, want) = run_recipe(recipe, "2");
    let (got, want) = (tree(&got), tree(&want));
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want), "{recipe}: the same files");
    for ((name, a), (_, b)) in got.iter().zip(&want) {
        assert!(a == b, "{recipe}: {name} differs from the local run's");
    }
}

#[test]
fn four_partitions_finalised_equal_a_local_run_of_the_default_recipe() {
    assert_same_release("configs/default.toml");
}

#[test]
fn four_partitions_finalised_equal_a_local_run_of_a_task_recipe() {
    // Dedup, the STS builder and its annotations (refused rows are decisions of the run).
    assert_same_release("configs/klue-sts.toml");
}

#[test]
fn dedup_by_shuffle_and_verdicts_equals_a_local_run() {
    assert_same_release_by("configs/default.toml", true);
    assert_same_release_by("configs/klue-sts.toml", true);
}

/// Stages the default recipe with key lines in one part and returns (work dir, parts dir,
/// the verdicts the shuffle gives).
fn staged_with_verdicts() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let work = tempfile::tempdir().unwrap();
    let recipe = "configs/default.toml";
    let recs = ingest(recipe, work.path());
    let parts = work.path().join("parts");
    std::fs::create_dir_all(&parts).unwrap();
    std::fs::write(
        parts.join("part-00000"),
        stage(recipe, &recs, &["--dedup-keys"]),
    )
    .unwrap();
    let v = shuffle_verdicts(recipe, &parts, work.path());
    let text = std::fs::read_to_string(v).unwrap();
    (work, parts, text)
}

/// finalise with the verdicts file `text`: its exit status and stderr.
fn finalise_verdicts(work: &Path, parts: &Path, text: &str) -> (Option<i32>, String) {
    let v = work.join("edited.jsonl");
    std::fs::write(&v, text).unwrap();
    let o = kcurate(&[
        "finalise",
        "configs/default.toml",
        "--parts",
        parts.to_str().unwrap(),
        "--decisions",
        work.join("ingest.jsonl").to_str().unwrap(),
        "--dedup-verdicts",
        v.to_str().unwrap(),
        "--out",
        work.join("r").to_str().unwrap(),
        "--overwrite",
    ]);
    (o.status.code(), stderr(&o))
}

#[test]
fn dedup_verdicts_are_checked_not_trusted() {
    let (work, parts, text) = staged_with_verdicts();
    let (w, p) = (work.path(), parts.as_path());
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let n = text.lines().count() + 1;
    // A verdict for a record no part has.
    let unknown = format!(
        "{text}{}\n",
        r#"{"id":"no-such-record","rule":"dedup.exact","twin":"x","score":1.0}"#
    );
    let (code, err) = finalise_verdicts(w, p, &unknown);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("edited.jsonl:{n}: a verdict for no-such-record"))
            && err.contains("unknown id"),
        "{err}"
    );
    // A twin that is itself dropped (not kept before it).
    let id = first["id"].as_str().unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    let twin_dropped = serde_json::json!({
        "id": second["id"], "rule": second["rule"], "twin": id, "score": second["score"]
    })
    .to_string();
    lines[1] = &twin_dropped;
    let (code, err) = finalise_verdicts(w, p, &(lines.join("\n") + "\n"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("edited.jsonl:2:") && err.contains("not a record kept before it"),
        "{err}"
    );
    // A line that is no verdict; a near drop below the recipe's threshold.
    let (code, err) = finalise_verdicts(w, p, &format!("{text}{{\"id\":1}}\n"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("edited.jsonl:{n}: not a verdict")),
        "{err}"
    );
    let low = format!(
        "{}\n",
        serde_json::json!({"id": first["id"], "rule": "dedup.near", "twin": first["twin"], "score": 0.5})
    );
    let (code, err) = finalise_verdicts(w, p, &low);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("edited.jsonl:1: a near drop scoring 0.5"),
        "{err}"
    );
    // The verdicts as given: the release is written.
    let (code, err) = finalise_verdicts(w, p, &text);
    assert!(matches!(code, Some(0) | Some(3)), "{err}");
}

#[test]
fn four_partitions_finalised_equal_a_local_run_without_dedup() {
    // assign_split as the first whole-corpus stage: `run` keys it as the sources are read,
    // in input order (not id order, so its outputs go through sorted runs); `finalise`
    // holds the records for it. Paths made absolute: the recipe is written elsewhere.
    let work = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    let start = text.find("[[stage]]\nname = \"dedup\"").unwrap();
    let end = start + text[start..].find("\n\n").unwrap() + 2;
    text.replace_range(start..end, "");
    let text = text.replace("\"../", &format!("\"{}/", repo().display()));
    let recipe = work.path().join("no-dedup.toml");
    std::fs::write(&recipe, text).unwrap();
    assert_same_release(recipe.to_str().unwrap());
}

/// The part of one partition holding every record, without its last line (the stats line).
fn part_without_stats(recipe: &str, work: &Path) -> Vec<u8> {
    let recs = ingest(recipe, work);
    let mut part = stage(recipe, &recs, &[]);
    let last = part[..part.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    part.truncate(last + 1);
    part
}

/// `finalise` over `part` as its only part (without decisions), refused (exit 2): its
/// stderr.
fn refused(recipe: &str, work: &Path, part: &[u8]) -> String {
    let parts = work.join("parts");
    std::fs::create_dir_all(&parts).unwrap();
    std::fs::write(parts.join("part-00000"), part).unwrap();
    let o = kcurate(&[
        "finalise",
        recipe,
        "--parts",
        parts.to_str().unwrap(),
        "--out",
        work.join("r").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn a_part_cut_short_is_refused_naming_the_file() {
    let work = tempfile::tempdir().unwrap();
    let recipe = "configs/default.toml";
    let cut = part_without_stats(recipe, work.path());
    let err = refused(recipe, work.path(), &cut);
    assert!(err.contains("part-00000:0: no stats line"), "{err}");
    assert!(!work.path().join("r/kcurate-samples").exists());
}

#[test]
fn parts_staged_without_before_corpus_are_refused() {
    // `stage` without --before-corpus runs toxicity and pii before dedup: not what `run`
    // does, so finalise cannot take its output.
    let work = tempfile::tempdir().unwrap();
    let recipe = "configs/default.toml";
    let mut part = part_without_stats(recipe, work.path());
    // A stats line naming every per-record stage, as a part of the whole chain would have.
    let names = ["normalize", "noise", "split", "filter", "toxicity", "pii"];
    let stats: Vec<String> = names
        .iter()
        .map(|n| format!(r#"{{"name":"{n}","stats":{{"items_in":0,"items_out":0,"dropped":0,"rules":{{}}}}}}"#))
        .collect();
    part.extend(format!("{{\"stats\":[{}]}}\n", stats.join(",")).bytes());
    let err = refused(recipe, work.path(), &part);
    assert!(
        err.contains("before its first whole-corpus stage are [normalize, noise, split, filter]"),
        "{err}"
    );
}
