//! `-` reads stdin for the path arguments that take a file: `toxicity
//! train|eval --data/--model`, `pii leak-check --key-file` and `challenge --recipe` give
//! what the same file gives; where stdin already carries something else, `-` is refused.

mod common;
use common::*;

#[test]
fn toxicity_reads_data_and_model_from_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    let data = "data-samples/toxicity/labeled.tsv";
    let bytes = std::fs::read(repo().join(data)).unwrap();
    let (a, b) = (tmp.path().join("a.model"), tmp.path().join("b.model"));
    let o = kcurate(&[
        "toxicity",
        "train",
        "--data",
        data,
        "--out",
        a.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = kcurate_stdin(
        &[
            "toxicity",
            "train",
            "--data",
            "-",
            "--out",
            b.to_str().unwrap(),
        ],
        &bytes,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let want = kcurate(&[
        "toxicity",
        "eval",
        "--model",
        a.to_str().unwrap(),
        "--data",
        data,
    ]);
    assert!(want.status.success(), "{}", stderr(&want));
    let model = std::fs::read(&a).unwrap();
    let got = kcurate_stdin(
        &["toxicity", "eval", "--model", "-", "--data", data],
        &model,
    );
    assert!(got.status.success(), "{}", stderr(&got));
    assert_eq!(stdout(&got), stdout(&want));
    let got = kcurate_stdin(
        &[
            "toxicity",
            "eval",
            "--model",
            a.to_str().unwrap(),
            "--data",
            "-",
        ],
        &bytes,
    );
    assert_eq!(stdout(&got), stdout(&want));
    let both = kcurate_stdin(&["toxicity", "eval", "--model", "-", "--data", "-"], &bytes);
    assert!(!both.status.success());
    assert!(
        stderr(&both).contains("cannot both be -"),
        "{}",
        stderr(&both)
    );
}

#[test]
fn pii_key_file_and_challenge_recipe_read_stdin() {
    let (out, parent) = default_release("2");
    let key = format!("{SAMPLE_KEY}\n");
    let o = kcurate_stdin(
        &[
            "pii",
            "leak-check",
            parent.to_str().unwrap(),
            "--key-file",
            "-",
            "--key-env",
            "KCURATE_NO_SUCH_VARIABLE",
        ],
        key.as_bytes(),
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // pseudonymise reads its records from stdin: the key cannot come from there too.
    let o = kcurate_stdin(&["pii", "pseudonymise", "--key-file", "-"], key.as_bytes());
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--key-file -"), "{}", stderr(&o));

    // The SentiNeg recipe from stdin derives the release the file derives.
    let recipe = std::fs::read(repo().join("configs/challenge-sentineg.toml")).unwrap();
    let derive = |dest: &std::path::Path, recipe_arg: &str| {
        let o = kcurate_stdin(
            &[
                "challenge",
                parent.to_str().unwrap(),
                "--recipe",
                recipe_arg,
                "--out",
                dest.to_str().unwrap(),
            ],
            &recipe,
        );
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        dest.join("challenge-sentineg/1.0.0")
    };
    let from_file = derive(&out.path().join("file"), "configs/challenge-sentineg.toml");
    let from_stdin = derive(&out.path().join("stdin"), "-");
    let rows = |d: &std::path::Path| {
        tree(d)
            .into_iter()
            .filter(|(n, _)| n.starts_with("sentineg/") || n.starts_with("audit/"))
            .collect::<Vec<_>>()
    };
    assert!(!rows(&from_file).is_empty());
    assert_eq!(rows(&from_file), rows(&from_stdin));
}

/// `ingest --decisions -`: the decisions on stdout when the records go to a file with
/// `--out`; with the records on stdout too, a usage error naming both flags (exit 2).
#[test]
fn ingest_decisions_to_stdout_beside_records_in_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let recipe = "configs/default.toml";
    let dec = tmp.path().join("decisions.jsonl");
    let plain = kcurate(&["ingest", recipe, "--decisions", dec.to_str().unwrap()]);
    assert_written(&plain, "ingest");
    let recs = tmp.path().join("records.jsonl");
    let swapped = kcurate(&[
        "ingest",
        recipe,
        "--out",
        recs.to_str().unwrap(),
        "--decisions",
        "-",
    ]);
    assert_eq!(
        swapped.status.code(),
        plain.status.code(),
        "{}",
        stderr(&swapped)
    );
    assert!(!plain.stdout.is_empty());
    assert_eq!(std::fs::read(&recs).unwrap(), plain.stdout);
    assert_eq!(swapped.stdout, std::fs::read(&dec).unwrap());
    // The sample sources hold quarantined lines: the decisions are not empty.
    assert!(
        stdout(&swapped).contains("ingest.malformed"),
        "{}",
        stdout(&swapped)
    );

    for args in [
        vec!["ingest", recipe, "--decisions", "-"],
        vec!["ingest", recipe, "--decisions", "-", "--out", "-"],
    ] {
        let both = kcurate(&args);
        assert_eq!(both.status.code(), Some(2), "{args:?}");
        assert!(both.stdout.is_empty(), "{args:?}: wrote to stdout");
        let err = stderr(&both);
        assert!(
            err.contains("--decisions -") && err.contains("--out"),
            "{args:?}: {err}"
        );
    }
    // One file for both is refused too (the records would be overwritten).
    let same = kcurate(&[
        "ingest",
        recipe,
        "--out",
        recs.to_str().unwrap(),
        "--decisions",
        recs.to_str().unwrap(),
    ]);
    assert_eq!(same.status.code(), Some(2));
    assert!(stderr(&same).contains("same file"), "{}", stderr(&same));
}

/// `finalise --parts -` (one part on stdin) and `--decisions -` give the release the files
/// give; both on stdin at once is refused naming them.
#[test]
fn finalise_reads_a_part_or_the_decisions_from_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    let p = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    let recipe = "configs/default.toml";
    let o = kcurate(&[
        "ingest",
        recipe,
        "--out",
        &p("records.jsonl"),
        "--decisions",
        &p("ingest.jsonl"),
    ]);
    assert_written(&o, "ingest");
    let records = std::fs::read(p("records.jsonl")).unwrap();
    let part = stage_part(recipe, &records);
    std::fs::write(p("part-00001"), &part).unwrap();
    let finalise = |parts: &str, decisions: &str, out: &str, input: &[u8]| {
        let o = kcurate_stdin(
            &[
                "finalise",
                recipe,
                "--parts",
                parts,
                "--decisions",
                decisions,
                "--out",
                out,
            ],
            input,
        );
        assert_written(&o, "finalise");
        tree(&tmp.path().join(out).join("kcurate-samples/1.0.0"))
    };
    let files = finalise(&p("part-00001"), &p("ingest.jsonl"), &p("files"), b"");
    assert!(!files.is_empty());
    let part_in = finalise("-", &p("ingest.jsonl"), &p("part-stdin"), &part);
    assert!(part_in == files, "--parts - differs from the part's file");
    let dec = std::fs::read(p("ingest.jsonl")).unwrap();
    let dec_in = finalise(&p("part-00001"), "-", &p("dec-stdin"), &dec);
    assert!(
        dec_in == files,
        "--decisions - differs from the decisions file"
    );
    let both = kcurate_stdin(
        &[
            "finalise",
            recipe,
            "--parts",
            "-",
            "--decisions",
            "-",
            "--out",
            &p("x"),
        ],
        b"",
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("--parts, --decisions cannot all be -"),
        "{}",
        stderr(&both)
    );
}

/// `toxicity train --out -`: the model on stdout (the summary on stderr), the bytes of the
/// model file.
#[test]
fn toxicity_train_writes_the_model_to_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a.model");
    let data = "data-samples/toxicity/labeled.tsv";
    let o = kcurate(&[
        "toxicity",
        "train",
        "--data",
        data,
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = kcurate(&["toxicity", "train", "--data", data, "--out", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, std::fs::read(&file).unwrap());
    assert!(stderr(&o).contains("model trained on"), "{}", stderr(&o));
}

/// A directory (or a file read back or located by its directory) cannot be `-`: a usage
/// error naming the flag, exit 2, and no directory named `-`.
#[test]
fn directories_refuse_dash() {
    let tmp = tempfile::tempdir().unwrap();
    let (_out, release) = default_release("2");
    let r = release.to_str().unwrap();
    for (args, flag) in [
        (vec!["run", "configs/default.toml", "--out", "-"], "--out"),
        (vec!["run", "configs/default.toml", "--root", "-"], "--root"),
        (vec!["verify", "-"], "RELEASE"),
        (vec!["audit", "-"], "RELEASE"),
        (vec!["diff", r, "-"], "<B>"),
        (vec!["rebuild", "-", "--out", "x"], "MANIFEST"),
        (vec!["audit", "sample", r, "--out", "-"], "--out"),
        (
            vec!["sts", "export", r, "--label-studio", "-"],
            "--label-studio",
        ),
        (vec!["rules", "--dir", "-"], "--dir"),
        (vec!["man", "--dir", "-"], "--dir"),
    ] {
        let o = assert_cmd::Command::cargo_bin("kcurate")
            .unwrap()
            .current_dir(tmp.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("cannot be one") && err.contains(flag),
            "{args:?}: {err}"
        );
        assert!(!tmp.path().join("-").exists(), "{args:?} made ./-");
    }
}

/// `audit precision --labels -` reads the judgements from stdin: the report the file gives.
#[test]
fn audit_precision_reads_judgements_from_stdin() {
    let (out, release) = default_release("2");
    let r = release.to_str().unwrap();
    let sample = out.path().join("sample");
    let o = kcurate(&[
        "audit",
        "sample",
        r,
        "--per-rule",
        "3",
        "--out",
        sample.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tsv = sample.join("sample.tsv");
    let bytes = std::fs::read(&tsv).unwrap();
    let from_file = kcurate(&[
        "audit",
        "precision",
        r,
        "--labels",
        tsv.to_str().unwrap(),
        "--json",
    ]);
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    let from_stdin = kcurate_stdin(
        &["audit", "precision", r, "--labels", "-", "--json"],
        &bytes,
    );
    assert!(from_stdin.status.success(), "{}", stderr(&from_stdin));
    assert!(!from_file.stdout.is_empty());
    assert_eq!(stdout(&from_stdin), stdout(&from_file));
}
