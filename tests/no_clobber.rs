//! No command destroys its inputs: a command never writes to a path it reads (the same
//! file by name, symlink or hard link), never into a release other than the one it writes,
//! and never replaces a file a person filled in without `--overwrite` (and then keeps it).

mod common;
use common::*;
use std::path::{Path, PathBuf};

/// A corpus `c.jsonl` and a recipe `r.toml` over it in `dir` (release `p` version `1`).
fn corpus(dir: &Path) -> (PathBuf, PathBuf) {
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
    (c, r)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The release of `corpus`'s recipe under `dir/out`.
fn release(dir: &Path, r: &Path) -> PathBuf {
    let o = kcurate(&["run", s(r), "--out", s(&dir.join("out"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    dir.join("out/p/1")
}

#[test]
fn ingest_never_writes_over_the_corpus_or_the_recipe_it_reads() {
    let d = tempfile::tempdir().unwrap();
    let (c, r) = corpus(d.path());
    std::fs::hard_link(&c, d.path().join("hard.jsonl")).unwrap();
    std::os::unix::fs::symlink(&c, d.path().join("soft.jsonl")).unwrap();
    let (corpus_bytes, recipe_bytes) = (std::fs::read(&c).unwrap(), std::fs::read(&r).unwrap());
    let other = d.path().join("other.jsonl");
    for (flag, target) in [
        ("--out", c.clone()),
        ("--out", r.clone()),
        ("--out", d.path().join("hard.jsonl")),
        ("--out", d.path().join("soft.jsonl")),
        ("--decisions", c.clone()),
        ("--decisions", d.path().join("hard.jsonl")),
    ] {
        let (out, dec) = if flag == "--out" {
            (target.clone(), other.clone())
        } else {
            (other.clone(), target.clone())
        };
        let o = kcurate(&["ingest", s(&r), "--out", s(&out), "--decisions", s(&dec)]);
        assert_eq!(o.status.code(), Some(2), "{flag} {}", target.display());
        assert!(
            stderr(&o).contains("this command reads it"),
            "{}",
            stderr(&o)
        );
        assert_eq!(
            std::fs::read(&c).unwrap(),
            corpus_bytes,
            "{flag} {target:?}"
        );
        assert_eq!(
            std::fs::read(&r).unwrap(),
            recipe_bytes,
            "{flag} {target:?}"
        );
    }
    // Anywhere else is fine.
    let o = kcurate(&[
        "ingest",
        s(&r),
        "--out",
        s(&other),
        "--decisions",
        s(&d.path().join("d.jsonl")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn toxicity_train_never_writes_over_its_training_data() {
    let d = tempfile::tempdir().unwrap();
    let data = d.path().join("labeled.tsv");
    std::fs::copy(repo().join("data-samples/toxicity/labeled.tsv"), &data).unwrap();
    std::os::unix::fs::symlink(&data, d.path().join("link.tsv")).unwrap();
    let before = std::fs::read(&data).unwrap();
    for out in [data.clone(), d.path().join("link.tsv")] {
        let o = kcurate(&["toxicity", "train", "--data", s(&data), "--out", s(&out)]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
        assert_eq!(std::fs::read(&data).unwrap(), before);
    }
}

#[test]
fn audit_sample_keeps_a_filled_in_sheet_and_never_writes_into_a_release() {
    let d = tempfile::tempdir().unwrap();
    let (_, r) = corpus(d.path());
    let rel = release(d.path(), &r);
    let sheet_dir = d.path().join("judge");
    let sample = |extra: &[&str]| {
        let mut args = vec!["audit", "sample", s(&rel), "--out", s(&sheet_dir)];
        args.extend_from_slice(extra);
        kcurate(&args)
    };
    assert_eq!(sample(&[]).status.code(), Some(0));
    // The same sample again changes nothing and is fine.
    assert_eq!(sample(&[]).status.code(), Some(0));
    let tsv = sheet_dir.join("sample.tsv");
    let filled = format!(
        "{}# judged by a curator\n",
        std::fs::read_to_string(&tsv).unwrap()
    );
    std::fs::write(&tsv, &filled).unwrap();
    let o = sample(&["--seed", "7"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--overwrite"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&tsv).unwrap(), filled);
    // With --overwrite the judgements are kept next to the new sheet.
    let o = sample(&["--seed", "7", "--overwrite"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(sheet_dir.join("sample.tsv.bak")).unwrap(),
        filled
    );
    // Into the release: refused, and the release still verifies.
    let o = kcurate(&["audit", "sample", s(&rel), "--out", s(&rel.join("audit"))]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a release"), "{}", stderr(&o));
    assert!(kcurate(&["verify", s(&rel)]).status.success());
}

#[test]
fn challenge_never_replaces_its_own_parent_release() {
    let d = tempfile::tempdir().unwrap();
    let (_, r) = corpus(d.path());
    let parent = release(d.path(), &r);
    let before = tree(&parent);
    // A derived recipe with the parent's own name and version.
    let ch = d.path().join("ch.toml");
    std::fs::write(
        &ch,
        "name = \"p\"\nversion = \"1\"\nseed = 1\n\n[[source]]\nid = \"parent\"\npath = \"release:sentences/train.jsonl\"\nformat = \"jsonl\"\nlicense = \"inherit\"\ndomain = \"news\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\nid = \"id\"\n",
    )
    .unwrap();
    let o = kcurate(&[
        "challenge",
        s(&parent),
        "--recipe",
        s(&ch),
        "--out",
        s(&d.path().join("out")),
        "--overwrite",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("that this command reads"),
        "{}",
        stderr(&o)
    );
    assert_eq!(tree(&parent), before);
    assert!(kcurate(&["verify", s(&parent)]).status.success());
}

#[test]
fn run_never_writes_a_release_over_its_inputs_or_inside_another_release() {
    let d = tempfile::tempdir().unwrap();
    let (c, r) = corpus(d.path());
    let rel = release(d.path(), &r);
    // --out inside a release.
    let o = kcurate(&["run", s(&r), "--out", s(&rel.join("nested"))]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a release"), "{}", stderr(&o));
    assert!(!rel.join("nested").exists());
    // A recipe whose corpus lies in the release it would replace.
    let inside = rel.join("sentences/train.jsonl");
    let r2 = d.path().join("r2.toml");
    std::fs::write(
        &r2,
        std::fs::read_to_string(&r)
            .unwrap()
            .replace("c.jsonl", s(&inside)),
    )
    .unwrap();
    let before = tree(&rel);
    let o = kcurate(&[
        "run",
        s(&r2),
        "--out",
        s(&d.path().join("out")),
        "--overwrite",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(tree(&rel), before);
    assert!(c.exists());
}

#[test]
fn stage_never_writes_decisions_over_its_input_and_writes_to_dev_null() {
    let d = tempfile::tempdir().unwrap();
    let (_, r) = corpus(d.path());
    let records = d.path().join("records.jsonl");
    let o = kcurate(&[
        "ingest",
        s(&r),
        "--out",
        s(&records),
        "--decisions",
        s(&d.path().join("d.jsonl")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(&records).unwrap();
    let stage = |decisions: &Path| {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("kcurate"))
            .args(["stage", "--recipe", s(&r), "--decisions", s(decisions)])
            .stdin(std::fs::File::open(&records).unwrap())
            .output()
            .unwrap()
    };
    // Decisions over the file stdin reads.
    let o = stage(&records);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&records).unwrap(), bytes);
    // A device is a fine place for decisions nobody keeps.
    let o = stage(Path::new("/dev/null"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 12, "{}", stdout(&o));
}

#[test]
fn batches_for_people_are_never_written_into_a_release() {
    let d = tempfile::tempdir().unwrap();
    let (_, r) = corpus(d.path());
    let rel = release(d.path(), &r);
    let pairs = d.path().join("pairs.jsonl");
    std::fs::write(
        &pairs,
        "{\"id\":\"a\",\"premise\":\"비가 온다.\",\"hypothesis\":\"날씨가 맑다.\",\"label\":\"contradiction\"}\n",
    )
    .unwrap();
    let o = kcurate(&[
        "nli",
        "export-validators",
        "--input",
        s(&pairs),
        "--label-studio",
        s(&rel.join("batch")),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!rel.join("batch").exists());
    assert!(kcurate(&["verify", s(&rel)]).status.success());
}

#[test]
fn stdout_appended_to_an_input_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let (c, r) = corpus(d.path());
    let before = std::fs::read(&c).unwrap();
    // `kcurate ingest r.toml >> c.jsonl`: records appended to the corpus being read.
    let appended = std::fs::OpenOptions::new().append(true).open(&c).unwrap();
    let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("kcurate"))
        .args(["ingest", s(&r), "--decisions", s(&d.path().join("d.jsonl"))])
        .stdout(appended)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stdout is a file this command reads"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&c).unwrap(), before);
}
