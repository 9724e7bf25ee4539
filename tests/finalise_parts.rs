//! `kcurate finalise` builds the release from parts an engine staged, and the bytes equal a
//! local `kcurate run`: here the engine is this test, running `kcurate stage --before-corpus`
//! over 4 partitions of `kcurate ingest`'s records by hand (what the Spark driver in
//! integrations/spark does through `rdd.pipe`), with the records shuffled across the
//! partitions and the parts named against input order, so nothing rests on arrival order.

mod common;
use common::*;
use std::path::Path;

/// The exit status of a finalise that refuses what it was given (README, Exit status).
const REFUSED: i32 = 4;

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
    assert_eq!(code, Some(REFUSED), "{err}");
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
    assert_eq!(code, Some(REFUSED), "{err}");
    assert!(
        err.contains("edited.jsonl:2:") && err.contains("not a record kept before it"),
        "{err}"
    );
    // A line that is no verdict; a near drop below the recipe's threshold.
    let (code, err) = finalise_verdicts(w, p, &format!("{text}{{\"id\":1}}\n"));
    assert_eq!(code, Some(REFUSED), "{err}");
    assert!(
        err.contains(&format!("edited.jsonl:{n}: not a verdict")),
        "{err}"
    );
    let low = format!(
        "{}\n",
        serde_json::json!({"id": first["id"], "rule": "dedup.near", "twin": first["twin"], "score": 0.5})
    );
    let (code, err) = finalise_verdicts(w, p, &low);
    assert_eq!(code, Some(REFUSED), "{err}");
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
    let recipe = default_without_dedup(work.path());
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

/// `finalise` over `part` as its only part (without decisions), refused (exit 4): its
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
    assert_eq!(o.status.code(), Some(REFUSED), "{}", stderr(&o));
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

/// The default recipe without its dedup stage, written into `dir` (paths made absolute).
fn default_without_dedup(dir: &Path) -> std::path::PathBuf {
    let mut text = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    let start = text.find("[[stage]]\nname = \"dedup\"").unwrap();
    let end = start + text[start..].find("\n\n").unwrap() + 2;
    text.replace_range(start..end, "");
    let text = text.replace("\"../", &format!("\"{}/", repo().display()));
    let recipe = dir.join("no-dedup.toml");
    std::fs::write(&recipe, text).unwrap();
    recipe
}

#[test]
fn parts_of_another_chain_are_refused() {
    // Without dedup, the recipe's per-record stages before its first whole-corpus stage
    // include toxicity and pii: `run` of the default recipe runs them after dedup, so
    // finalise cannot take such a part (nor one of `stage` without --before-corpus).
    let work = tempfile::tempdir().unwrap();
    let recipe = "configs/default.toml";
    let recs = ingest(recipe, work.path());
    let other = default_without_dedup(work.path());
    let part = stage(other.to_str().unwrap(), &recs, &[]);
    let err = refused(recipe, work.path(), &part);
    assert!(
        err.contains("the parts ran the stages [normalize, noise, split, filter, toxicity, pii]")
            && err.contains(
                "before its first whole-corpus stage are [normalize, noise, split, filter]"
            ),
        "{err}"
    );
}

#[test]
fn emptied_or_cut_verdicts_are_refused_naming_a_record_left_without_one() {
    let (work, parts, text) = staged_with_verdicts();
    let (w, p) = (work.path(), parts.as_path());
    let drops = text.lines().count();
    for (kept, cut) in [
        (0, String::new()),
        (
            3,
            text.lines().take(3).collect::<Vec<_>>().join("\n") + "\n",
        ),
    ] {
        let (code, err) = finalise_verdicts(w, p, &cut);
        assert_eq!(code, Some(REFUSED), "{err}");
        // The record whose verdict is missing, by its part and line.
        assert!(
            err.contains("part-00000:")
                && err.contains("edited.jsonl has no verdict for it")
                && err.contains(&format!(
                    "{} of {drops} drop(s) without a verdict",
                    drops - kept
                )),
            "{err}"
        );
        assert!(
            !w.join("r/kcurate-samples/1.0.0").exists(),
            "nothing written"
        );
    }
}

/// The ids of the part's records that dedup is given (they have a key line), in order.
fn keyed_ids(part: &Path) -> Vec<String> {
    std::fs::read_to_string(part)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("{\"dedup\":"))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["dedup"]["id"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn a_forged_verdict_on_two_different_texts_is_refused_naming_its_line() {
    let (work, parts, text) = staged_with_verdicts();
    let named: std::collections::BTreeSet<String> = text
        .lines()
        .flat_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            [
                v["id"].as_str().unwrap().to_string(),
                v["twin"].as_str().unwrap().to_string(),
            ]
        })
        .collect();
    // Two records dedup keeps (named by no verdict), the first before the second: the
    // forged verdict passes the check of ids and twins, and only their texts tell.
    let kept: Vec<String> = keyed_ids(&parts.join("part-00000"))
        .into_iter()
        .filter(|id| !named.contains(id))
        .take(2)
        .collect();
    let forged =
        serde_json::json!({"id": kept[1], "rule": "dedup.exact", "twin": kept[0], "score": 1.0});
    let n = text.lines().count() + 1;
    let (code, err) = finalise_verdicts(work.path(), &parts, &format!("{text}{forged}\n"));
    assert_eq!(code, Some(REFUSED), "{err}");
    assert!(
        err.contains(&format!(
            "edited.jsonl:{n}: {} is dropped as dedup.exact of {}",
            kept[1], kept[0]
        )) && err.contains("their texts differ"),
        "{err}"
    );
}

/// The default recipe's records staged as one part (with key lines): (work dir, part).
fn one_part() -> (tempfile::TempDir, Vec<u8>) {
    let work = tempfile::tempdir().unwrap();
    let recipe = "configs/default.toml";
    let recs = ingest(recipe, work.path());
    let part = stage(recipe, &recs, &["--dedup-keys"]);
    (work, part)
}

/// finalise (without verdicts) over `parts`, each (name, bytes): its exit status and stderr.
fn finalise_parts(work: &Path, parts: &[(&str, &[u8])]) -> (Option<i32>, String) {
    let dir = work.join("parts");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in parts {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let o = kcurate(&[
        "finalise",
        "configs/default.toml",
        "--parts",
        dir.to_str().unwrap(),
        "--decisions",
        work.join("ingest.jsonl").to_str().unwrap(),
        "--out",
        work.join("r").to_str().unwrap(),
    ]);
    assert!(
        !work.join("r/kcurate-samples/1.0.0").exists(),
        "nothing written"
    );
    (o.status.code(), stderr(&o))
}

/// The 1-based line of the part's first record (not a decision or key line), and the line.
fn first_record(part: &str) -> (usize, &str) {
    part.lines()
        .enumerate()
        .find(|(_, l)| !l.starts_with("{\"decision\":") && !l.starts_with("{\"dedup\":"))
        .map(|(i, l)| (i + 1, l))
        .unwrap()
}

#[test]
fn a_part_given_twice_is_refused_naming_both_places() {
    let (work, part) = one_part();
    let (code, err) = finalise_parts(work.path(), &[("part-00000", &part), ("part-00001", &part)]);
    assert_eq!(code, Some(REFUSED), "{err}");
    // The first item of the second copy, found already in the first (a drop or a record).
    let text = String::from_utf8(part).unwrap();
    let first_item = text
        .lines()
        .position(|l| {
            !l.starts_with("{\"dedup\":")
                && (!l.starts_with("{\"decision\":") || l.contains("\"action\":\"drop\""))
        })
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!("part-00001:{first_item}: "))
            && err.contains(&format!(
                "again (first at {}",
                work.path().join("parts/part-00000").display()
            ))
            && err.contains("a part given twice"),
        "{err}"
    );
}

#[test]
fn a_part_whose_stats_line_was_edited_is_refused_naming_the_line() {
    let (work, part) = one_part();
    let text = String::from_utf8(part).unwrap();
    let n = text.lines().count();
    let (body, stats) = text.trim_end().rsplit_once('\n').unwrap();
    let mut v: serde_json::Value = serde_json::from_str(stats).unwrap();
    let items_in = v["stats"][0]["stats"]["items_in"].as_u64().unwrap();
    v["stats"][0]["stats"]["items_in"] = (items_in * 100).into();
    let edited = format!("{body}\n{v}\n");
    let (code, err) = finalise_parts(work.path(), &[("part-00000", edited.as_bytes())]);
    assert_eq!(code, Some(REFUSED), "{err}");
    assert!(
        err.contains(&format!(
            "part-00000:{n}: the stats line says stage normalize took in {}",
            items_in * 100
        )),
        "{err}"
    );
}

#[test]
fn a_record_injected_into_a_part_is_refused_naming_the_file_and_line() {
    let (work, part) = one_part();
    let text = String::from_utf8(part).unwrap();
    let n = text.lines().count();
    let (body, stats) = text.trim_end().rsplit_once('\n').unwrap();
    let (at, line) = first_record(&text);
    // A copy of a record: the same id a second time.
    let copied = format!("{body}\n{line}\n{stats}\n");
    let (code, err) = finalise_parts(work.path(), &[("part-00000", copied.as_bytes())]);
    assert_eq!(code, Some(REFUSED), "{err}");
    assert!(
        err.contains(&format!("part-00000:{n}: record "))
            && err.contains(&format!("part-00000:{at})")),
        "{err}"
    );
    // A new record: the books no longer add up (the stats line is the last line).
    let mut r: serde_json::Value = serde_json::from_str(line).unwrap();
    r["id"] = "injected-1".into();
    r["text"] = "새로 끼워 넣은 문장입니다.".into();
    let injected = format!("{body}\n{r}\n{stats}\n");
    let (code, err) = finalise_parts(work.path(), &[("part-00000", injected.as_bytes())]);
    assert_eq!(code, Some(REFUSED), "{err}");
    assert!(
        err.contains(&format!(
            "part-00000:{}: the stats line says stage filter passed on",
            n + 1
        )) && err.contains("a record injected or lost"),
        "{err}"
    );
}

#[test]
fn a_key_line_that_does_not_match_its_record_is_refused_naming_its_line() {
    let (work, parts, text) = staged_with_verdicts();
    let dropped: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let id = dropped["id"].as_str().unwrap();
    let path = parts.join("part-00000");
    let part = std::fs::read_to_string(&path).unwrap();
    // The dropped record's key line, its exact hash changed (its meet keys left as they are).
    let mut n = 0;
    let edited: Vec<String> = part
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if !l.starts_with("{\"dedup\":") || !l.contains(&format!("\"id\":\"{id}\"")) {
                return l.to_string();
            }
            n = i + 1;
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["dedup"]["exact"] = "0123456789abcdef0123456789abcdef".into();
            v.to_string()
        })
        .collect();
    assert!(n > 0, "{id} has a key line");
    std::fs::write(&path, edited.join("\n") + "\n").unwrap();
    let (code, err) = finalise_verdicts(work.path(), &parts, &text);
    assert_eq!(code, Some(REFUSED), "{err}");
    assert!(
        err.contains(&format!(
            "part-00000:{n}: the key line of {id} does not match its text"
        )),
        "{err}"
    );
}
