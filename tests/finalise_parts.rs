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
fn stage(recipe: &str, partition: &[String]) -> Vec<u8> {
    let mut input = partition.join("\n");
    input.push('\n');
    stage_part(recipe, input.as_bytes())
}

/// A fixed shuffle (by a hash of the line), so partitions mix records from everywhere.
fn shuffled(mut recs: Vec<String>) -> Vec<String> {
    use sha2::{Digest, Sha256};
    recs.sort_by_cached_key(|l| Sha256::digest(l.as_bytes()).to_vec());
    recs
}

/// Stages `recipe` over `n` partitions into `<work>/parts` (part names count down, against
/// input order) and finalises it; returns the release directory.
fn finalise(recipe: &str, n: usize, work: &Path) -> std::path::PathBuf {
    let recs = shuffled(ingest(recipe, work));
    let parts = work.join("parts");
    std::fs::create_dir_all(&parts).unwrap();
    let size = recs.len().div_ceil(n);
    for (i, chunk) in recs.chunks(size).enumerate() {
        let name = format!("part-{:05}", n - i);
        std::fs::write(parts.join(name), stage(recipe, chunk)).unwrap();
    }
    let out = work.join("release");
    let o = kcurate(&[
        "finalise",
        recipe,
        "--parts",
        parts.to_str().unwrap(),
        "--decisions",
        work.join("ingest.jsonl").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_written(&o, "finalise");
    release_dir(&out, &repo().join(recipe))
}

fn assert_same_release(recipe: &str) {
    let work = tempfile::tempdir().unwrap();
    let got = finalise(recipe, 4, work.path());
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
    let mut part = stage(recipe, &recs);
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
