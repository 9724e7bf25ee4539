//! `-` reads stdin for the path arguments that take a file (issue 22): `toxicity
//! train|eval --data/--model`, `pii leak-check --key-file` and `challenge --recipe` give
//! what the same file gives; where stdin already carries something else, `-` is refused.

mod common;
use common::*;

fn with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("kcurate")
        .expect("binary built")
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("kcurate runs")
}

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
    let o = with_stdin(
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
    let got = with_stdin(
        &["toxicity", "eval", "--model", "-", "--data", data],
        &model,
    );
    assert!(got.status.success(), "{}", stderr(&got));
    assert_eq!(stdout(&got), stdout(&want));
    let got = with_stdin(
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
    let both = with_stdin(&["toxicity", "eval", "--model", "-", "--data", "-"], &bytes);
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
    let o = with_stdin(
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
    let o = with_stdin(&["pii", "pseudonymise", "--key-file", "-"], key.as_bytes());
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--key-file -"), "{}", stderr(&o));

    // The SentiNeg recipe from stdin derives the release the file derives.
    let recipe = std::fs::read(repo().join("configs/challenge-sentineg.toml")).unwrap();
    let derive = |dest: &std::path::Path, recipe_arg: &str| {
        let o = with_stdin(
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
    assert!(
        matches!(plain.status.code(), Some(0) | Some(3)),
        "{}",
        stderr(&plain)
    );
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
