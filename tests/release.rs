//! The spine's acceptance: the default recipe on data-samples gives byte-identical releases
//! on 1 and 4 threads; verify catches any flipped byte; rebuild reproduces the bytes; the
//! books balance; a killed run leaves no release behind.

mod common;
use common::*;

#[test]
fn threads_do_not_change_a_byte_and_verify_and_rebuild_agree() {
    let (_a, one) = default_release("1");
    let (_b, four) = default_release("4");
    let t1 = tree(&one);
    assert_eq!(t1, tree(&four), "1-thread and 4-thread releases differ");
    let names: Vec<&str> = t1.iter().map(|(n, _)| n.as_str()).collect();
    for want in [
        "manifest.json",
        "README.md",
        "recipe.toml",
        "audit/decisions.parquet",
        "sentences/train.jsonl",
        "sentences/train.parquet",
        "sentences/validation.jsonl",
        "sentences/test.parquet",
    ] {
        assert!(names.contains(&want), "missing {want} in {names:?}");
    }

    let o = kcurate(&["verify", one.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));

    // Rebuild from the manifest reproduces every byte.
    assert_rebuilds_identically(&one);
}

#[test]
fn verify_names_each_file_whose_byte_was_flipped() {
    let (_a, dir) = default_release("2");
    let files: Vec<String> = tree(&dir)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n != "manifest.json")
        .collect();
    for f in &files {
        let p = dir.join(f);
        let mut bytes = std::fs::read(&p).unwrap();
        let i = bytes.len() / 2;
        bytes[i] ^= 0x01;
        std::fs::write(&p, &bytes).unwrap();
        let o = kcurate(&["verify", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "verify passed with {f} flipped");
        assert!(
            stderr(&o).contains(f.as_str()),
            "verify did not name {f}: {}",
            stderr(&o)
        );
        bytes[i] ^= 0x01;
        std::fs::write(&p, &bytes).unwrap();
    }
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
}

#[test]
fn rebuild_refuses_when_an_input_changed() {
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("in.jsonl");
    std::fs::write(&src, "{\"text\":\"첫 문장이다.\"}\n").unwrap();
    let recipe = work.path().join("r.toml");
    std::fs::write(&recipe, format!(
        "name = \"t\"\nversion = \"1\"\nseed = 1\n[[source]]\nid = \"a\"\npath = \"{}\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"x\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\n",
        src.display()
    )).unwrap();
    let out = work.path().join("out");
    let o = kcurate(&[
        "run",
        recipe.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&src, "{\"text\":\"바뀐 문장이다.\"}\n").unwrap();
    let o = kcurate(&[
        "rebuild",
        out.join("t/1/manifest.json").to_str().unwrap(),
        "--out",
        work.path().join("re").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("in.jsonl"), "{}", stderr(&o));
}

#[test]
fn an_existing_release_is_never_overwritten_silently() {
    let (a, _dir) = default_release("1");
    let o = kcurate(&[
        "run",
        "configs/default.toml",
        "--out",
        a.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
}

#[test]
fn the_books_balance_and_the_licence_gate_refuses_the_nc_source() {
    let (_a, dir) = default_release("1");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    for st in m["stages"].as_array().unwrap() {
        let (i, o, d) = (
            st["items_in"].as_u64().unwrap(),
            st["items_out"].as_u64().unwrap(),
            st["dropped"].as_u64().unwrap(),
        );
        // `split` turns one document into several sentences; every other stage conserves.
        if st["name"] != "split" {
            assert_eq!(i, o + d, "stage {} does not balance", st["name"]);
        }
        let rule_drops: u64 = st["rules"]
            .as_object()
            .unwrap()
            .values()
            .map(|r| r["drop"].as_u64().unwrap())
            .sum();
        assert_eq!(
            rule_drops, d,
            "stage {}: drops without a decision",
            st["name"]
        );
    }
    let restricted = m["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "restricted")
        .unwrap();
    assert!(
        restricted["status"]
            .as_str()
            .unwrap()
            .starts_with("refused")
    );
    assert_eq!(m["license"], "CC0-1.0");
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    assert!(
        decisions
            .lines()
            .any(|l| l.contains("\"license.not_allowed\"") && l.contains("CC-BY-NC-4.0"))
    );
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        card.starts_with("---\nlicense: cc0-1.0\nlanguage:\n- ko\n"),
        "{card}"
    );
    assert!(card.contains("## Preprocessing") && card.contains("ingest.malformed"));
}

#[test]
fn check_reports_unknown_keys_with_file_line_and_key() {
    let work = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("configs/default.toml"))
        .unwrap()
        .replacen(
            "format = \"jsonl\"",
            "format = \"jsonl\"\nfromat = \"x\"",
            1,
        );
    let line = text.lines().position(|l| l.starts_with("fromat")).unwrap() + 1;
    let p = work.path().join("bad.toml");
    std::fs::write(&p, text).unwrap();
    let o = kcurate(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("bad.toml:{line}:")) && e.contains("fromat"),
        "{e}"
    );
    let o = kcurate(&["check", "configs/default.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: ") && stderr(&o).contains("source[4].license"),
        "the NC source should be reported by check as a warning"
    );
    let strict = kcurate(&["check", "--strict", "configs/default.toml"]);
    assert_eq!(
        strict.status.code(),
        Some(1),
        "--strict fails on the warning"
    );
}

/// Every recipe the project ships passes `check`: those over ../shared when it is there,
/// challenge recipes with their `release:` paths noted (and checked against a parent).
#[test]
fn check_passes_on_every_shipped_recipe() {
    let shared = repo().join("../shared").is_dir();
    let mut checked = 0;
    for e in std::fs::read_dir(repo().join("configs")).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        if text.contains("\"../shared/") && !shared {
            continue;
        }
        // A recipe over a slice a shared test writes under target/ (its test runs it).
        if text.contains("\"../target/") {
            continue;
        }
        let rel = format!("configs/{}", p.file_name().unwrap().to_str().unwrap());
        let o = kcurate(&["check", &rel]);
        assert_eq!(o.status.code(), Some(0), "{rel}: {}", stderr(&o));
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} recipes checked");
    let (_tmp, parent) = default_release("0");
    let o = kcurate(&[
        "check",
        "configs/challenge-sentineg.toml",
        "--release",
        parent.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("note:"), "{}", stderr(&o));
}

#[test]
fn a_killed_run_leaves_no_release_directory() {
    let work = tempfile::tempdir().unwrap();
    let big = work.path().join("big.jsonl");
    let line = format!("{{\"text\":\"{}\"}}\n", "오늘은 날씨가 맑다. ".repeat(20));
    std::fs::write(&big, line.repeat(200_000)).unwrap();
    let recipe = work.path().join("r.toml");
    std::fs::write(&recipe, format!(
        "name = \"big\"\nversion = \"1\"\nseed = 1\n[[source]]\nid = \"a\"\npath = \"{}\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"x\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\n",
        big.display()
    )).unwrap();
    let out = work.path().join("out");
    let bin = assert_cmd::cargo::cargo_bin("kcurate");
    let mut child = std::process::Command::new(bin)
        .args([
            "run",
            recipe.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "1",
        ])
        .spawn()
        .unwrap();
    // Wait until the run has started writing, then kill it.
    let writing = || {
        std::fs::read_dir(out.join("big")).is_ok_and(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-1-"))
        })
    };
    for _ in 0..200 {
        if writing() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run finished before it could be killed; make the input bigger"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !out.join("big/1").exists(),
        "a killed run left a release directory"
    );
}

#[test]
fn no_pii_original_survives_in_the_sample_release() {
    let (_a, dir) = default_release("2");
    let o = kcurate(&["pii", "leak-check", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // The samples plant PII: the stage must have acted on it, and no decision may hold an original.
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    assert!(
        decisions.contains("\"pii.phone\"") && decisions.contains("\"pii.email\""),
        "{decisions}"
    );
    for planted in [
        "010-2345-6789",
        "kim.minjun@example.org",
        "review.fan@example.com",
        "02-2100-3456",
    ] {
        for f in tree(&dir) {
            assert!(
                !String::from_utf8_lossy(&f.1).contains(planted),
                "{planted} found in {}",
                f.0
            );
        }
    }
    // A different key is a different mapping: the check then finds pseudonyms it cannot vouch for.
    let o = assert_cmd::Command::cargo_bin("kcurate")
        .unwrap()
        .env("KCURATE_PII_KEY", "another-key")
        .args(["pii", "leak-check", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        o.status.success() || stderr(&o).contains("unprocessed"),
        "{}",
        stderr(&o)
    );
}

/// The contamination check: in the sample release no dev/test sentence has a train twin,
/// exactly or near (the same check, rerun over the written splits, finds nothing), and
/// every sentence the split stage moved to train has a decision naming its twin.
#[test]
fn no_dev_or_test_sentence_has_a_twin_in_train() {
    let (_out, dir) = default_release("2");
    let rows = |split: &str| -> Vec<(String, String)> {
        std::fs::read_to_string(dir.join(format!("sentences/{split}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["id"].as_str().unwrap().into(),
                    v["text"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let train = rows("train");
    let mut eval = rows("validation");
    eval.extend(rows("test"));
    let near = kcurate_text::dedup::NearConfig {
        threshold: 0.6,
        ..Default::default()
    };
    let found = kcurate_text::dedup::contamination(
        train.iter().map(|(i, t)| (i.as_str(), t.as_str())),
        eval.iter().map(|(i, t)| (i.as_str(), t.as_str())),
        42,
        Some(near),
    );
    assert!(found.is_empty(), "{found:?}");
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let moved: Vec<serde_json::Value> = decisions
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|d| d["stage"] == "assign_split")
        .collect();
    assert!(
        !moved.is_empty(),
        "the samples hold near twins across splits"
    );
    for d in &moved {
        let id = d["item"].as_str().unwrap();
        assert!(
            train.iter().any(|(i, _)| i == id),
            "{id} was moved to train"
        );
        assert!(d["detail"].as_str().unwrap().contains("duplicate of train"));
    }
}

/// The reader hashes the JSON-array files it reads whole, the manifest takes those hashes,
/// and every other input (a file too large to parse, one of a refused source) is hashed
/// from the file: each input's hash and size are its file's, whoever computed them.
#[test]
fn every_input_is_listed_with_its_own_files_hash() {
    let d = tempfile::tempdir().unwrap();
    let (json, refused) = (d.path().join("arrays"), d.path().join("refused"));
    std::fs::create_dir_all(&json).unwrap();
    std::fs::create_dir_all(&refused).unwrap();
    std::fs::write(json.join("a.json"), r#"[{"text": "첫 문장이다."}]"#).unwrap();
    // Larger than 4 × max_record_bytes: refused unread, as one malformed item.
    std::fs::write(
        json.join("b.json"),
        format!(r#"[{{"text": "{}"}}]"#, "가".repeat(200)),
    )
    .unwrap();
    std::fs::write(json.join("c.json"), b"[{\"text\": \"\xff\"}]").unwrap();
    std::fs::write(refused.join("d.json"), r#"[{"text": "닫힌 글"}]"#).unwrap();
    let recipe = d.path().join("r.toml");
    let source = |id: &str, dir: &std::path::Path, license: &str| {
        format!(
            "[[source]]\nid = \"{id}\"\npath = \"{}\"\nformat = \"json\"\nlicense = \"{license}\"\n\
             domain = \"x\"\nstyle = \"formal\"\nmax_record_bytes = 100\n[source.fields]\ntext = \"text\"\n",
            dir.display()
        )
    };
    std::fs::write(
        &recipe,
        format!(
            "name = \"hashes\"\nversion = \"1\"\nseed = 1\n{}{}",
            source("arrays", &json, "CC0-1.0"),
            source("refused", &refused, "CC-BY-ND-4.0")
        ),
    )
    .unwrap();
    let (_out, dir) = run_recipe(recipe.to_str().unwrap(), "2");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let inputs = manifest["inputs"].as_array().unwrap();
    let files = [
        json.join("a.json"),
        json.join("b.json"),
        json.join("c.json"),
        refused.join("d.json"),
    ];
    assert_eq!(inputs.len(), files.len(), "{inputs:?}");
    for (input, file) in inputs.iter().zip(&files) {
        let (sha256, size) = kcurate_core::hash::sha256_file(file).unwrap();
        assert_eq!(input["sha256"], sha256.as_str(), "{}", file.display());
        assert_eq!(input["size"], size, "{}", file.display());
    }
}
