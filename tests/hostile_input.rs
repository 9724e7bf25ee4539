//! Hostile input ends quickly and clearly: a release whose files are links to devices,
//! FIFOs or of another size than its manifest records; settings past their ranges; ids that
//! collide across sources, normalise equal or carry control characters; files a directory
//! source or an annotation export holds in shapes a reader skipped.

mod common;

use common::*;
use std::path::Path;
use std::time::Duration;

/// `kcurate ARGS`, killed after `secs` seconds (a hang fails the test instead of the suite).
fn kcurate_within(secs: u64, args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("kcurate")
        .unwrap()
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args(args)
        .timeout(Duration::from_secs(secs))
        .output()
        .unwrap()
}

/// A copy of release `dir` under `work/name`.
fn copy_release(dir: &Path, work: &Path, name: &str) -> std::path::PathBuf {
    let to = work.join(name);
    for (rel, bytes) in tree(dir) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    to
}

/// The id of the first row of a release's test split.
fn some_row_id(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("sentences/test.jsonl")).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["id"].as_str().unwrap().to_string()
}

/// Every command that reads a release, on release `bad`, must fail within a few seconds
/// with `expect` and the name of the train split file on stderr.
fn every_reader_refuses(good: &Path, bad: &Path, expect: &str) {
    let id = some_row_id(good);
    let bad_s = bad.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["verify", bad_s],
        vec!["audit", bad_s],
        vec!["why", bad_s, &id],
        vec!["pii", "leak-check", bad_s],
        vec!["diff", good.to_str().unwrap(), bad_s],
    ];
    for args in commands {
        let o = kcurate_within(20, &args);
        let err = stderr(&o);
        assert!(
            o.status.code().is_some_and(|c| c != 0),
            "{args:?}: {:?}\n{err}",
            o.status
        );
        assert!(
            err.contains("sentences/train.jsonl") && err.contains(expect),
            "{args:?}: {err}"
        );
    }
}

#[test]
#[allow(unsafe_code)]
fn release_readers_refuse_a_link_to_a_device_and_a_fifo_without_hanging() {
    let (_out, dir) = default_release("2");
    let work = tempfile::tempdir().unwrap();
    let zero = copy_release(&dir, work.path(), "zero");
    let train = zero.join("sentences/train.jsonl");
    std::fs::remove_file(&train).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &train).unwrap();
    // verify names it as outside the release; the others refuse to read it.
    let o = kcurate_within(20, &["verify", zero.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let id = some_row_id(&dir);
    for args in [
        vec!["audit", zero.to_str().unwrap()],
        vec!["why", zero.to_str().unwrap(), &id],
        vec!["pii", "leak-check", zero.to_str().unwrap()],
        vec!["diff", dir.to_str().unwrap(), zero.to_str().unwrap()],
    ] {
        let o = kcurate_within(20, &args);
        let err = stderr(&o);
        assert!(o.status.code().is_some_and(|c| c != 0), "{args:?}: {err}");
        assert!(err.contains("leading out of"), "{args:?}: {err}");
    }

    let fifo = copy_release(&dir, work.path(), "fifo");
    let train = fifo.join("sentences/train.jsonl");
    std::fs::remove_file(&train).unwrap();
    let c = std::ffi::CString::new(train.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path `c` owns, alive for the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    every_reader_refuses(&dir, &fifo, "a FIFO, not a regular file");
}

#[test]
fn release_readers_refuse_a_file_whose_size_is_not_the_recorded_one() {
    let (_out, dir) = default_release("2");
    let work = tempfile::tempdir().unwrap();
    let grown = copy_release(&dir, work.path(), "grown");
    let train = grown.join("sentences/train.jsonl");
    let mut bytes = std::fs::read(&train).unwrap();
    bytes.extend_from_slice(&std::fs::read(&train).unwrap());
    std::fs::write(&train, bytes).unwrap();
    let bad = grown.to_str().unwrap();
    let id = some_row_id(&dir);
    for args in [
        vec!["audit", bad],
        vec!["why", bad, &id],
        vec!["pii", "leak-check", bad],
        vec!["diff", dir.to_str().unwrap(), bad],
    ] {
        let o = kcurate_within(20, &args);
        let err = stderr(&o);
        assert!(o.status.code().is_some_and(|c| c != 0), "{args:?}: {err}");
        assert!(
            err.contains("sentences/train.jsonl") && err.contains("the manifest records"),
            "{args:?}: {err}"
        );
    }
    // verify reads at most one byte past the recorded size and names the file as changed.
    let o = kcurate_within(20, &["verify", bad]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("sentences/train.jsonl")
            || stderr(&o).contains("sentences/train.jsonl")
    );
}

/// A recipe `work/r.toml` over sources `(id, file name, JSONL lines)`, each written beside
/// it, with `stages` appended (`[[stage]]` tables).
fn recipe_over(work: &Path, sources: &[(&str, &str, &str)], stages: &str) -> std::path::PathBuf {
    let mut r = String::from("name = \"hostile\"\nversion = \"1\"\nseed = 1\n");
    for (id, file, lines) in sources {
        std::fs::write(work.join(file), lines).unwrap();
        r.push_str(&format!(
            "\n[[source]]\nid = \"{id}\"\npath = \"{}\"\nformat = \"jsonl\"\n\
             license = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n\
             [source.fields]\ntext = \"text\"\nid = \"id\"\n",
            work.join(file).display()
        ));
    }
    r.push_str(stages);
    let p = work.join("r.toml");
    std::fs::write(&p, r).unwrap();
    p
}

const FIVE: &str = "{\"id\":\"1\",\"text\":\"오늘은 날씨가 정말 좋아서 산책을 했다.\"}\n\
                    {\"id\":\"2\",\"text\":\"내일은 비가 온다고 하니 우산을 챙기자.\"}\n\
                    {\"id\":\"3\",\"text\":\"이 영화는 배우들의 연기가 훌륭했다.\"}\n\
                    {\"id\":\"4\",\"text\":\"주말에는 가족과 함께 시장에 갔다.\"}\n\
                    {\"id\":\"5\",\"text\":\"새로 연 식당의 국밥이 아주 맛있었다.\"}\n";

#[test]
fn threads_past_a_few_per_core_are_a_usage_error() {
    let work = tempfile::tempdir().unwrap();
    let r = recipe_over(work.path(), &[("a", "a.jsonl", FIVE)], "");
    let out = work.path().join("out");
    let o = kcurate_within(
        30,
        &[
            "run",
            r.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "100000",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("at most"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn check_refuses_settings_past_their_documented_ranges() {
    let work = tempfile::tempdir().unwrap();
    for (stage, expect) in [
        (
            "name = \"dedup\"\nnum_perm = 100000000\nbands = 16",
            "num_perm must be at most 1024",
        ),
        (
            "name = \"dedup\"\nngram = 100000",
            "ngram must be from 1 to 64",
        ),
        ("name = \"filter\"\nmax_cjk = -2", "max_cjk"),
    ] {
        let r = recipe_over(
            work.path(),
            &[("a", "a.jsonl", FIVE)],
            &format!("\n[[stage]]\n{stage}\n"),
        );
        let o = kcurate_within(30, &["check", r.to_str().unwrap()]);
        assert!(!o.status.success(), "{stage}: {}", stdout(&o));
        assert!(stderr(&o).contains(expect), "{stage}: {}", stderr(&o));
    }
}

#[test]
fn check_refuses_a_device_or_an_oversized_file_as_a_recipe() {
    let o = kcurate_within(20, &["check", "/dev/zero"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    let work = tempfile::tempdir().unwrap();
    let big = work.path().join("big.toml");
    std::fs::write(&big, "#".repeat(5 << 20)).unwrap();
    let o = kcurate_within(20, &["check", big.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("this reader accepts"), "{}", stderr(&o));
}

/// The released ids of release `dir`'s split files, sorted.
fn released_ids(dir: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for (rel, bytes) in tree(dir) {
        if rel.ends_with(".jsonl") && !rel.starts_with("audit") {
            for l in String::from_utf8(bytes).unwrap().lines() {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                ids.push(v["id"].as_str().unwrap().to_string());
            }
        }
    }
    ids.sort();
    ids
}

fn run_into(recipe: &Path, out: &Path) -> std::process::Output {
    kcurate_within(
        60,
        &[
            "run",
            recipe.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    )
}

#[test]
fn ids_of_two_sources_cannot_meet_when_a_source_id_holds_the_separator() {
    let work = tempfile::tempdir().unwrap();
    let r = recipe_over(
        work.path(),
        &[
            (
                "s",
                "s.jsonl",
                "{\"id\":\"a-b\",\"text\":\"오늘은 날씨가 정말 좋아서 산책을 했다.\"}\n",
            ),
            (
                "s-a",
                "sa.jsonl",
                "{\"id\":\"b\",\"text\":\"내일은 비가 온다고 하니 우산을 챙기자.\"}\n",
            ),
        ],
        "",
    );
    let out = work.path().join("out");
    let o = run_into(&r, &out);
    assert_written(&o, "two sources");
    let ids = released_ids(&out.join("hostile/1"));
    assert_eq!(ids, ["s-a-b", "s.a-b"], "{ids:?}");
}

/// The decisions of release `dir` with rule `rule`.
fn decisions_with(dir: &Path, rule: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("audit/decisions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|d| d["rule"] == rule)
        .collect()
}

#[test]
fn ids_equal_after_normalisation_are_duplicates_and_empty_or_control_ids_are_decisions() {
    let work = tempfile::tempdir().unwrap();
    let lines = [
        ("caf\u{e9}", "오늘은 날씨가 정말 좋아서 산책을 했다."),
        ("cafe\u{301}", "내일은 비가 온다고 하니 우산을 챙기자."),
        ("\u{ff41}1", "이 영화는 배우들의 연기가 훌륭했다."),
        ("a1", "주말에는 가족과 함께 시장에 갔다."),
        ("", "새로 연 식당의 국밥이 아주 맛있었다."),
        ("x\ny", "아침마다 공원에서 달리기를 한다."),
        ("tab\there", "저녁에는 친구와 영화를 보았다."),
        ("ok", "도서관에서 빌린 책을 다 읽었다."),
    ]
    .iter()
    .map(|(id, text)| serde_json::json!({"id": id, "text": text}).to_string() + "\n")
    .collect::<String>();
    let r = recipe_over(work.path(), &[("s", "s.jsonl", &lines)], "");
    let out = work.path().join("out");
    let o = run_into(&r, &out);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let dir = out.join("hostile/1");
    assert_eq!(released_ids(&dir), ["s-caf\u{e9}", "s-ok", "s-\u{ff41}1"]);
    let dups = decisions_with(&dir, "ingest.duplicate_id");
    assert_eq!(dups.len(), 2, "{dups:?}");
    let bad = decisions_with(&dir, "ingest.bad_id");
    assert_eq!(bad.len(), 3, "{bad:?}");
    let rules = stdout(&kcurate(&["rules"]));
    assert!(rules.contains("ingest.bad_id"), "{rules}");
}

#[test]
fn linked_files_of_a_directory_source_are_read_and_a_dangling_link_is_named() {
    let work = tempfile::tempdir().unwrap();
    let real = work.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::write(real.join("one.jsonl"), FIVE).unwrap();
    let links = work.path().join("links");
    std::fs::create_dir(&links).unwrap();
    std::os::unix::fs::symlink(real.join("one.jsonl"), links.join("a.jsonl")).unwrap();
    let r = work.path().join("r.toml");
    std::fs::write(
        &r,
        format!(
            "name = \"hostile\"\nversion = \"1\"\nseed = 1\n[[source]]\nid = \"s\"\n\
             path = \"{}\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"news\"\n\
             style = \"formal\"\n[source.fields]\ntext = \"text\"\nid = \"id\"\n",
            links.display()
        ),
    )
    .unwrap();
    let out = work.path().join("out");
    let o = run_into(&r, &out);
    assert_written(&o, "a directory of links");
    assert_eq!(released_ids(&out.join("hostile/1")).len(), 5);

    std::os::unix::fs::symlink(work.path().join("gone.jsonl"), links.join("b.jsonl")).unwrap();
    let o = run_into(&r, &work.path().join("out2"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("b.jsonl"), "{}", stderr(&o));
}

#[test]
fn conflicting_judgements_of_one_decision_are_an_error_naming_both_lines() {
    let (_out, dir) = default_release("2");
    let d = decisions_with(&dir, "filter.too_short_v2")
        .into_iter()
        .chain(decisions_with(&dir, "noise.hashtag"))
        .next()
        .expect("a decision to judge");
    let (item, rule) = (d["item"].as_str().unwrap(), d["rule"].as_str().unwrap());
    let work = tempfile::tempdir().unwrap();
    let labels = work.path().join("sample.tsv");
    std::fs::write(
        &labels,
        format!("item\trule\tjudgement\n{item}\t{rule}\tcorrect\n{item}\t{rule}\twrong\n"),
    )
    .unwrap();
    let o = kcurate_within(
        30,
        &[
            "audit",
            "precision",
            dir.to_str().unwrap(),
            "--labels",
            labels.to_str().unwrap(),
        ],
    );
    let err = stderr(&o);
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(
        err.contains("correct at line 2 and wrong at line 3"),
        "{err}"
    );
}

/// `kcurate ARGS` under an address-space limit of `mib` MiB (`ulimit -v`).
#[allow(unsafe_code)]
fn kcurate_limited(mib: u64, args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("kcurate"));
    c.current_dir(repo()).args(args);
    let bytes = mib << 20;
    // SAFETY: setrlimit is async-signal-safe and touches no state of the parent.
    unsafe {
        c.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().unwrap()
}

#[test]
fn a_run_out_of_address_space_stops_naming_the_limit_and_removes_its_release() {
    let work = tempfile::tempdir().unwrap();
    let limits = "\n[limits]\nmax_line_bytes = 268435456\nmax_record_bytes = 268435456\n\
                  \n[[stage]]\nname = \"dedup\"\n";
    // The least limit (from a few) a small run of this binary passes under, then a record
    // that needs more than 100 MiB beyond it.
    let small = recipe_over(work.path(), &[("a", "a.jsonl", FIVE)], limits);
    let out = work.path().join("out");
    let base = [128u64, 192, 256, 384, 512]
        .into_iter()
        .find(|&mib| {
            let _ = std::fs::remove_dir_all(&out);
            let o = kcurate_limited(
                mib,
                &[
                    "run",
                    small.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                    "--threads",
                    "1",
                ],
            );
            o.status.code() == Some(0)
        })
        .expect("a small run passes under 512 MiB");
    let text = "가나다라마바사 ".repeat(120_000_000 / 22);
    let line = serde_json::json!({"id": "1", "text": text}).to_string() + "\n";
    let big = recipe_over(work.path(), &[("a", "a.jsonl", &line)], limits);
    let _ = std::fs::remove_dir_all(&out);
    let o = kcurate_limited(
        base + 64,
        &[
            "run",
            big.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "1",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("out of memory") && err.contains("ulimit -v"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(out.join("hostile"))
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter().all(|n| n.to_string_lossy().ends_with(".lock")),
        "left behind: {left:?}"
    );
}
