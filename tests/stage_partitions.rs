//! `kcurate stage` as an engine runs it: many copies at once, one per partition. Every
//! decision of every partition must survive, whichever way decisions leave the process.

mod common;
use common::{SAMPLE_KEY, kcurate, repo, stderr, stdout};
use std::io::Write;
use std::process::{Command, Stdio};

const RECIPE: &str = "configs/default.toml";

fn records() -> Vec<String> {
    let work = tempfile::tempdir().unwrap();
    let dec = work.path().join("ingest.jsonl");
    let o = kcurate(&["ingest", RECIPE, "--decisions", dec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    stdout(&o).lines().map(str::to_string).collect()
}

/// Starts one `stage` process per chunk, all at once, then waits for all of them.
fn run_partitions(chunks: &[Vec<String>], decisions: &str) -> Vec<std::process::Output> {
    let bin = assert_cmd::cargo::cargo_bin("kcurate");
    let children: Vec<_> = chunks
        .iter()
        .map(|chunk| {
            let mut c = Command::new(&bin)
                .current_dir(repo())
                .env("KCURATE_PII_KEY", SAMPLE_KEY)
                .args(["stage", "--recipe", RECIPE, "--decisions", decisions])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut input = chunk.join("\n");
            input.push('\n');
            let mut stdin = c.stdin.take().unwrap();
            std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
            c
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The single-process run: every kept record and every decision, as the reference.
fn reference(recs: &[String]) -> (Vec<String>, Vec<String>) {
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("d.jsonl");
    let outs = run_partitions(&[recs.to_vec()], path.to_str().unwrap());
    assert!(outs[0].status.success(), "{}", stderr(&outs[0]));
    let kept = stdout(&outs[0]).lines().map(str::to_string).collect();
    let decisions = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    (sorted(kept), sorted(decisions))
}

fn chunks(recs: &[String], n: usize) -> Vec<Vec<String>> {
    let size = recs.len().div_ceil(n);
    recs.chunks(size).map(<[String]>::to_vec).collect()
}

#[test]
fn eight_concurrent_partitions_with_a_partition_placeholder_lose_no_decision() {
    let recs = records();
    let (kept, decisions) = reference(&recs);
    assert!(!decisions.is_empty(), "the samples plant drops");
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("decisions-{partition}.jsonl");
    let parts = chunks(&recs, 8);
    assert_eq!(parts.len(), 8);
    let outs = run_partitions(&parts, template.to_str().unwrap());
    let mut got_kept = Vec::new();
    for o in &outs {
        assert!(o.status.success(), "{}", stderr(o));
        got_kept.extend(stdout(o).lines().map(str::to_string));
    }
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 8, "one decisions file per partition");
    let mut got = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        got.extend(text.lines().map(str::to_string));
    }
    assert_eq!(sorted(got), decisions);
    assert_eq!(sorted(got_kept), kept);
}

#[test]
fn decisions_on_stdout_are_tagged_lines_between_the_records() {
    let recs = records();
    let (kept, decisions) = reference(&recs);
    let outs = run_partitions(&chunks(&recs, 8), "-");
    let (mut got_kept, mut got_dec) = (Vec::new(), Vec::new());
    for o in &outs {
        assert!(o.status.success(), "{}", stderr(o));
        for line in stdout(o).lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("whole JSON lines");
            match v.get("decision") {
                Some(d) => got_dec.push(serde_json::to_string(d).unwrap()),
                None => got_kept.push(line.to_string()),
            }
        }
    }
    let decisions: Vec<String> = decisions
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            serde_json::to_string(&v).unwrap()
        })
        .collect();
    assert_eq!(sorted(got_dec), sorted(decisions));
    assert_eq!(sorted(got_kept), kept);
}

#[test]
fn whole_corpus_stages_are_skipped_by_default_and_named_on_stderr() {
    let recs = records();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("d.jsonl");
    let outs = run_partitions(&[recs], path.to_str().unwrap());
    assert!(outs[0].status.success(), "{}", stderr(&outs[0]));
    let err = stderr(&outs[0]);
    assert!(
        err.contains("skipping whole-corpus stage(s) dedup, assign_split"),
        "{err}"
    );
    let named = kcurate(&[
        "stage",
        "--recipe",
        RECIPE,
        "--stages",
        "normalize,dedup",
        "--decisions",
        path.to_str().unwrap(),
    ]);
    assert_eq!(named.status.code(), Some(2));
    assert!(stderr(&named).contains("dedup is a whole-corpus stage"));
}

#[test]
fn a_stage_picked_by_name_is_located_at_its_own_table_line() {
    let work = tempfile::tempdir().unwrap();
    let recipe = work.path().join("r.toml");
    std::fs::write(
        &recipe,
        "name = \"t\"\nversion = \"1\"\nseed = 1\n\n[[source]]\nid = \"a\"\npath = \"x.jsonl\"\n\
         format = \"jsonl\"\ndomain = \"news\"\nstyle = \"formal\"\nlicense = \"CC0-1.0\"\n\
         [source.fields]\ntext = \"text\"\n\n[[stage]]\nname = \"normalize\"\n\n\
         [[stage]]\nname = \"filter\"\nbogus = 3\n",
    )
    .unwrap();
    let r = recipe.to_str().unwrap();
    let o = common::kcurate_stdin(
        &["stage", "--recipe", r, "--stages", "filter"],
        b"{\"text\":\"x\"}\n",
    );
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{r}:18: ")) && err.contains("unknown field `bogus`"),
        "the filter's [[stage]] is on line 18, not the normalize table's 15: {err}"
    );
}
