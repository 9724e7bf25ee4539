//! Paths in recipes and releases: a recipe's relative paths resolve against its own
//! directory; no file of a release carries an absolute path of the machine that built it,
//! and a release moved with a checkout to another directory rebuilds byte-identically;
//! `-` reads a recipe from stdin.

mod common;
use common::*;
use std::path::Path;

/// A checkout-like tree: `cfg/r.toml` whose source, noise rules and toxicity lexicon are
/// relative paths (`../data/...`, `../rules/...`).
fn checkout(dir: &Path) {
    std::fs::create_dir_all(dir.join("cfg")).unwrap();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::write(
        dir.join("data/a.jsonl"),
        "{\"id\":\"d1\",\"text\":\"첫 문장은 충분히 길다. 두 번째 문장도 충분히 길다.\"}\n\
         {\"id\":\"d2\",\"text\":\"세 번째 문서의 문장이다.\"}\n\
         {\"id\":\"d3\",\"text\":\n",
    )
    .unwrap();
    std::fs::copy(
        repo().join("rules/noise.toml"),
        dir.join("rules/noise.toml"),
    )
    .unwrap();
    std::fs::write(
        dir.join("cfg/r.toml"),
        "name = \"p\"\nversion = \"1\"\nseed = 1\n\n[[source]]\nid = \"a\"\n\
         path = \"../data/a.jsonl\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\n\
         domain = \"news\"\nstyle = \"formal\"\n[source.fields]\nid = \"id\"\ntext = \"text\"\n\n\
         [[stage]]\nname = \"noise\"\nrules = \"../rules/noise.toml\"\n\n\
         [[stage]]\nname = \"split\"\n",
    )
    .unwrap();
}

fn kcurate_in(cwd: &Path, args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("kcurate")
        .unwrap()
        .current_dir(cwd)
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args(args)
        .output()
        .unwrap()
}

/// Every file of `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    tree(dir)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn no_release_file_names_an_absolute_path_of_the_build_machine() {
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    checkout(&home);
    let out = work.path().join("out");
    // The recipe named by its absolute path, run from elsewhere (the repository root).
    let recipe = home.join("cfg/r.toml");
    let o = kcurate(&[
        "run",
        recipe.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let rel = out.join("p/1");
    assert!(rel.join("manifest.json").exists());
    let needle = work.path().to_str().unwrap();
    assert_eq!(files_containing(&rel, needle), Vec::<String>::new());
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rel.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["recipe"]["path"], "r.toml");
    let paths: Vec<&str> = m["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["../data/a.jsonl", "../rules/noise.toml"]);
    // The quarantined line is named by the path the recipe gives.
    let decisions = std::fs::read_to_string(rel.join("audit/decisions.jsonl")).unwrap();
    assert!(
        decisions.contains("\"origin\":\"../data/a.jsonl:3\""),
        "{decisions}"
    );
}

#[test]
fn a_release_moved_with_its_checkout_rebuilds_identically() {
    let work = tempfile::tempdir().unwrap();
    let first = work.path().join("machine-a");
    checkout(&first);
    let o = kcurate_in(&first, &["run", "cfg/r.toml", "--out", "releases"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let built = first.join("releases/p/1");
    assert_eq!(
        files_containing(&built, work.path().to_str().unwrap()),
        Vec::<String>::new()
    );
    // Another machine: a fresh checkout under another directory, the release copied in.
    let second = work.path().join("machine-b/elsewhere");
    checkout(&second);
    let moved = second.join("got/p/1");
    for (name, bytes) in tree(&built) {
        let p = moved.join(&name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let o = kcurate_in(
        &second,
        &["rebuild", "got/p/1/manifest.json", "--out", "again"],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("identical"), "{}", stdout(&o));
    assert_eq!(tree(&built), tree(&second.join("again/p/1")));
    // From another working directory, --root names the recipe's directory.
    let o = kcurate(&[
        "rebuild",
        moved.join("manifest.json").to_str().unwrap(),
        "--out",
        work.path().join("third").to_str().unwrap(),
        "--root",
        second.join("cfg").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

/// `-` reads the recipe from stdin; its relative paths resolve against the working
/// directory (it has no file of its own).
#[test]
fn a_recipe_from_stdin_is_checked_and_run() {
    let work = tempfile::tempdir().unwrap();
    checkout(work.path());
    let text = std::fs::read_to_string(work.path().join("cfg/r.toml")).unwrap();
    let cfg = work.path().join("cfg");
    let run_stdin = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("kcurate")
            .unwrap()
            .current_dir(&cfg)
            .args(args)
            .write_stdin(text.clone())
            .output()
            .unwrap()
    };
    let o = run_stdin(&["check", "-"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("-: ok"), "{}", stdout(&o));
    let o = run_stdin(&["run", "-", "--out", "../out"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(work.path().join("out/p/1/manifest.json").exists());
    // A broken recipe on stdin is named `-` with its line.
    let o = assert_cmd::Command::cargo_bin("kcurate")
        .unwrap()
        .args(["check", "-"])
        .write_stdin("name = \"p\"\nversion = 1\n")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("-:"), "{}", stderr(&o));
}

/// `-` reads stdin where a command takes an input file: `agree --input -` (TSV, JSONL),
/// naming its rows `-:LINE`; `simulate --input -`; `sts gsm --input -`.
#[test]
fn a_dash_reads_stdin_where_a_command_takes_an_input_file() {
    let with_stdin = |args: &[&str], input: &str| {
        assert_cmd::Command::cargo_bin("kcurate")
            .unwrap()
            .args(args)
            .write_stdin(input.to_string())
            .output()
            .unwrap()
    };
    let votes =
        "item\tannotator\tlabel\nq1\ta1\tyes\nq1\ta2\tyes\nq1\ta2\tno\nq2\ta1\tno\nq2\ta2\tno\n";
    let o = with_stdin(
        &["agree", "--input", "-", "--json", "--bootstrap", "0"],
        votes,
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("agree.duplicate: -:4: annotator \"a2\" already labelled item \"q1\""),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rejected_rows"], 1);
    let jsonl = "{\"item\":\"q1\",\"annotator\":\"a1\",\"label\":\"yes\"}\n{\"item\":\"q1\",\"annotator\":\"a2\",\"label\":\"yes\"}\n";
    let o = with_stdin(&["agree", "--input", "-", "--aggregate", "majority"], jsonl);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "{\"item\":\"q1\",\"label\":\"yes\"}");
    let o = with_stdin(
        &[
            "simulate",
            "--input",
            "-",
            "--kind",
            "nominal",
            "--labels",
            "yes,no",
            "--annotators",
            "2",
            "--spammers",
            "0",
        ],
        "{\"id\":\"q1\",\"label\":\"yes\"}\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 3, "{}", stdout(&o));
    let o = with_stdin(
        &["sts", "gsm", "--input", "-"],
        "{\"id\":\"a\",\"text\":\"오늘 날씨가 좋다\"}\n{\"id\":\"b\",\"text\":\"오늘 날씨가 맑다\"}\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"a\"") && stdout(&o).contains("\"b\""),
        "{}",
        stdout(&o)
    );
}

/// Every file of `dir` whose bytes, or (for Parquet, ZSTD-compressed) whose decoded rows,
/// contain `needle`.
fn release_files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = files_containing(dir, needle);
    for (name, _) in tree(dir) {
        if !name.ends_with(".parquet") || found.contains(&name) {
            continue;
        }
        let f = std::fs::File::open(dir.join(&name)).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
            .unwrap()
            .build()
            .unwrap();
        let mut w = arrow::json::LineDelimitedWriter::new(Vec::new());
        for b in reader {
            w.write(&b.unwrap()).unwrap();
        }
        w.finish().unwrap();
        if String::from_utf8_lossy(&w.into_inner()).contains(needle) {
            found.push(name);
        }
    }
    found
}

/// A recipe over `dir/src` (a directory source) with a pii stage; `path` is the source path
/// as the recipe gives it and `rules` the noise rules' path.
fn pii_name_recipe(path: &str, rules: &str) -> String {
    format!(
        "name = \"p\"\nversion = \"1\"\nseed = 1\n\n[[source]]\nid = \"s\"\npath = \"{path}\"\n\
         format = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n\
         [source.fields]\nid = \"id\"\ntext = \"text\"\n\n\
         [[stage]]\nname = \"noise\"\nrules = \"{rules}\"\n\n[[stage]]\nname = \"pii\"\n"
    )
}

/// A source directory whose first file (in listing order) has a phone number and an email in
/// its name, and a malformed line (quoted back in its decision).
fn pii_named_files(src: &Path) -> &'static str {
    let name = "010-4321-8765 hong.gildong@example.com.jsonl";
    std::fs::create_dir_all(src).unwrap();
    std::fs::write(
        src.join("a.jsonl"),
        "{\"id\":\"a1\",\"text\":\"첫 번째 파일의 문장은 충분히 길다.\"}\n",
    )
    .unwrap();
    std::fs::write(
        src.join(name),
        "{\"id\":\"b1\",\"text\":\"두 번째 파일의 문장도 충분히 길다.\"}\n{\"id\":\"b2\",\"text\":\n",
    )
    .unwrap();
    name
}

#[test]
fn a_file_name_holding_personal_data_reaches_no_release_file() {
    let work = tempfile::tempdir().unwrap();
    let cfg = work.path().join("cfg");
    pii_named_files(&work.path().join("src"));
    std::fs::create_dir_all(&cfg).unwrap();
    let rules = repo().join("rules/noise.toml");
    std::fs::copy(&rules, work.path().join("noise.toml")).unwrap();
    std::fs::write(
        cfg.join("r.toml"),
        pii_name_recipe("../src", "../noise.toml"),
    )
    .unwrap();
    let out = work.path().join("out");
    let o = kcurate_in(
        work.path(),
        &["run", "cfg/r.toml", "--out", out.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let rel = out.join("p/1");
    // Every spelling of the name's parts, in every file (Parquet bytes too: the old name
    // was found in train.parquet).
    for needle in ["010-4321", "4321-8765", "hong", "gildong", "example.com"] {
        assert_eq!(
            release_files_containing(&rel, needle),
            Vec::<String>::new(),
            "{needle}"
        );
    }
    // The decoded Parquet rows do carry the origins, under the safe name.
    let named = release_files_containing(&rel, "s/#1:1");
    assert!(
        named.iter().any(|f| f.ends_with(".jsonl"))
            && named.iter().any(|f| f.ends_with(".parquet")),
        "{named:?}"
    );
    let m = manifest(&rel);
    let inputs: Vec<&str> = m["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(inputs, ["s/#1", "../src/a.jsonl", "../noise.toml"]);
    let rows = std::fs::read_to_string(rel.join("sentences/train.jsonl")).unwrap()
        + &std::fs::read_to_string(rel.join("sentences/test.jsonl")).unwrap()
        + &std::fs::read_to_string(rel.join("sentences/validation.jsonl")).unwrap();
    assert!(rows.contains("\"origin\":\"s/#1:1\""), "{rows}");
    assert!(rows.contains("\"origin\":\"../src/a.jsonl:1\""), "{rows}");
    // The quarantined line of the renamed file is named by its release name and quoted.
    let decisions = std::fs::read_to_string(rel.join("audit/decisions.jsonl")).unwrap();
    let quarantined = decisions
        .lines()
        .find(|l| l.contains("ingest.malformed"))
        .unwrap();
    assert!(
        quarantined.contains("\"origin\":\"s/#1:2\""),
        "{quarantined}"
    );
    assert!(
        quarantined.contains("\"text\":\"{\\\"id\\\":\\\"b2\\\""),
        "{quarantined}"
    );
    let o = kcurate_in(work.path(), &["verify", rel.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A rebuild finds the file by its place in the listing.
    let again = work.path().join("again");
    let o = kcurate_in(
        work.path(),
        &[
            "rebuild",
            rel.join("manifest.json").to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
            "--root",
            "cfg",
        ],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(tree(&rel), tree(&again.join("p/1")));
}

#[test]
fn absolute_source_and_stage_paths_reach_no_release_file_and_rebuild_under_their_names() {
    let work = tempfile::tempdir().unwrap();
    let data = work.path().join("home/user/corpus");
    pii_named_files(&data);
    let rules = work.path().join("home/user/noise.toml");
    std::fs::copy(repo().join("rules/noise.toml"), &rules).unwrap();
    let cfg = work.path().join("cfg");
    std::fs::create_dir_all(&cfg).unwrap();
    let recipe = cfg.join("r.toml");
    std::fs::write(
        &recipe,
        pii_name_recipe(data.to_str().unwrap(), rules.to_str().unwrap()),
    )
    .unwrap();
    // The recipe named by its absolute path, run from elsewhere.
    let out = work.path().join("out");
    let o = kcurate(&[
        "run",
        recipe.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let rel = out.join("p/1");
    for needle in [work.path().to_str().unwrap(), "home/user", "4321-8765"] {
        assert_eq!(
            release_files_containing(&rel, needle),
            Vec::<String>::new(),
            "{needle}"
        );
    }
    let m = manifest(&rel);
    let inputs: Vec<&str> = m["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(inputs, ["s/#1", "s/a.jsonl", "stage/noise.toml"]);
    let copy = std::fs::read_to_string(rel.join("recipe.toml")).unwrap();
    assert!(copy.contains("path = \"s\"\n"), "{copy}");
    assert!(copy.contains("rules = \"stage/noise.toml\"\n"), "{copy}");
    // Elsewhere, the inputs under the names the release gives them rebuild it.
    let elsewhere = work.path().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("stage")).unwrap();
    pii_named_files(&elsewhere.join("s"));
    std::fs::copy(&rules, elsewhere.join("stage/noise.toml")).unwrap();
    let again = work.path().join("again");
    let o = kcurate(&[
        "rebuild",
        rel.join("manifest.json").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
        "--root",
        elsewhere.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(tree(&rel), tree(&again.join("p/1")));
}
