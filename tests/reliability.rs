//! Reliability under abuse, through the real binary: names that would write
//! outside the release, a manifest edited by hand, `--overwrite` that fails half-way, two
//! runs to one release, SIGINT, SIGPIPE, kill -9 at random points, and recipe text that
//! would inject markup into the dataset card; messages that say what happened (once, and
//! only what happened). Each test names what it guards.

mod common;
use common::*;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("kcurate")
}

/// A recipe in `dir` over a directory source `dir/src` of `files` JSONL files (made up
/// Korean sentences, 3 per file). `head` replaces the recipe's first lines (name, version,
/// description...); `tail` is appended (e.g. a `[task]` table).
fn small_recipe(dir: &Path, head: &str, tail: &str, files: usize) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for f in 0..files {
        let mut s = String::new();
        for i in 0..3 {
            s.push_str(&format!(
                "{{\"id\":\"{f}-{i}\",\"text\":\"오늘 {f}번째 파일의 {i}번째 문장은 날씨 이야기다.\"}}\n"
            ));
        }
        std::fs::write(src.join(format!("part{f}.jsonl")), s).unwrap();
    }
    let p = dir.join("r.toml");
    std::fs::write(
        &p,
        format!(
            "{head}\nseed = 1\n\n[[source]]\nid = \"a\"\npath = \"{}\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\nid = \"id\"\n{tail}",
            src.display()
        ),
    )
    .unwrap();
    p
}

fn run_to(recipe: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        recipe.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    kcurate(&args)
}

fn verify_ok(dir: &Path) -> bool {
    kcurate(&["verify", dir.to_str().unwrap()]).status.success()
}

/// Every entry of `dir` and below, relative, sorted (directories included).
fn entries(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(base).unwrap().display().to_string());
            if p.is_dir() && !p.is_symlink() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn recipe_name_and_version_cannot_leave_the_output_directory() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    // An unrelated sibling of the release, which `name = ".."` with `version = "victim"`
    // would name: --overwrite must not delete and replace it.
    let victim = work.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("keep.txt"), "precious").unwrap();
    let r = small_recipe(work.path(), "name = \"..\"\nversion = \"victim\"", "", 1);
    let c = kcurate(&["check", r.to_str().unwrap()]);
    assert_ne!(c.status.code(), Some(0), "check accepted name = \"..\"");
    assert!(stderr(&c).contains("r.toml:1: name:"), "{}", stderr(&c));
    let o = run_to(&r, &out, &["--overwrite"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("r.toml:1: name:"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(victim.join("keep.txt")).unwrap(),
        "precious"
    );
    assert_eq!(entries(&victim), ["keep.txt"]);

    let r = small_recipe(work.path(), "name = \"ok\"\nversion = \"../../x\"", "", 1);
    let o = run_to(&r, &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("r.toml:2: version:"), "{}", stderr(&o));
}

#[test]
fn task_name_cannot_write_split_files_outside_the_release() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("a/b/out");
    let r = small_recipe(
        work.path(),
        "name = \"t\"\nversion = \"1\"",
        "\n[task]\nname = \"../../../escaped\"\n",
        1,
    );
    let line = std::fs::read_to_string(&r)
        .unwrap()
        .lines()
        .position(|l| l.contains("escaped"))
        .unwrap()
        + 1;
    for cmd in ["check", "run"] {
        let o = if cmd == "check" {
            kcurate(&["check", r.to_str().unwrap()])
        } else {
            run_to(&r, &out, &[])
        };
        assert_ne!(o.status.code(), Some(0), "{cmd} accepted the task name");
        assert!(
            stderr(&o).contains(&format!("r.toml:{line}: task.name:")),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    let everything = entries(work.path());
    assert!(
        !everything.iter().any(|e| e.contains("escaped")),
        "{everything:?}"
    );
}

/// The release of `small_recipe` written to `out`, and its directory.
fn small_release(work: &Path) -> PathBuf {
    let r = small_recipe(work, "name = \"t\"\nversion = \"1\"", "", 2);
    let out = work.join("out");
    let o = run_to(&r, &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    out.join("t/1")
}

/// A directory where source `a` of [`small_recipe`] is found under the name its release
/// records (`a`: the recipe gives an absolute path, which no release file holds), for
/// `rebuild --root`.
fn rebuild_root(work: &Path) -> PathBuf {
    let root = work.join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::os::unix::fs::symlink(work.join("src"), root.join("a")).unwrap();
    root
}

fn edit_manifest(dir: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let p = dir.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    f(&mut m);
    std::fs::write(&p, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
}

#[test]
fn verify_refuses_manifest_paths_outside_the_release() {
    let work = tempfile::tempdir().unwrap();
    let dir = small_release(work.path());
    // A file outside the release, listed with its true hash: verify must not read it.
    let outside = work.path().join("outside.txt");
    std::fs::write(&outside, "not part of the release").unwrap();
    let sha = kcurate_hash(&outside);
    for path in [
        "../../../outside.txt".to_string(),
        outside.display().to_string(),
    ] {
        let backup = std::fs::read(dir.join("manifest.json")).unwrap();
        edit_manifest(&dir, |m| {
            m["outputs"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({
                    "path": path, "sha256": sha, "size": 23
                }))
        });
        let o = kcurate(&["verify", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "verify passed with {path}");
        assert!(
            stderr(&o).contains(&format!("{path}: listed in the manifest but outside")),
            "{}",
            stderr(&o)
        );
        std::fs::write(dir.join("manifest.json"), backup).unwrap();
    }
    // A symbolic link inside the release that points out of it is not followed either.
    let train = dir.join("sentences/train.jsonl");
    let bytes = std::fs::read(&train).unwrap();
    let copy = work.path().join("train-copy.jsonl");
    std::fs::write(&copy, bytes).unwrap();
    std::fs::remove_file(&train).unwrap();
    std::os::unix::fs::symlink(&copy, &train).unwrap();
    let o = kcurate(&["verify", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "verify followed a symbolic link");
    assert!(stderr(&o).contains("sentences/train.jsonl: listed in the manifest but outside"));
}

/// sha256 of a file, as hex (the tests' own, independent of the binary).
fn kcurate_hash(p: &Path) -> String {
    let o = Command::new("sha256sum").arg(p).output().unwrap();
    String::from_utf8(o.stdout).unwrap()[..64].to_string()
}

#[test]
fn verify_checks_the_manifest_against_the_release_files() {
    let work = tempfile::tempdir().unwrap();
    let dir = small_release(work.path());
    assert!(verify_ok(&dir));
    let original = std::fs::read(dir.join("manifest.json")).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            "splits.sentences.train",
            Box::new(|m| {
                let n = m["splits"]["sentences"]["train"].as_u64().unwrap();
                m["splits"]["sentences"]["train"] = (n + 5).into();
            }),
        ),
        (
            "recipe.sha256",
            Box::new(|m| m["recipe"]["sha256"] = "0".repeat(64).into()),
        ),
        ("seed", Box::new(|m| m["seed"] = 99.into())),
        ("license", Box::new(|m| m["license"] = "MIT".into())),
    ];
    for (what, edit) in cases {
        edit_manifest(&dir, edit);
        let o = kcurate(&["verify", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "verify accepted an edited {what}");
        assert!(
            stderr(&o).contains(&format!("manifest.json: {what}:")),
            "{what}: {}",
            stderr(&o)
        );
        std::fs::write(dir.join("manifest.json"), &original).unwrap();
    }
    // And the recipe copy edited along with its recorded hash: the seed still disagrees.
    let copy = std::fs::read_to_string(dir.join("recipe.toml"))
        .unwrap()
        .replace("seed = 1", "seed = 2");
    std::fs::write(dir.join("recipe.toml"), &copy).unwrap();
    let o = kcurate(&["verify", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("manifest.json: recipe.sha256:"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("manifest.json: seed:"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn rebuild_names_a_file_added_to_or_removed_from_a_directory_source() {
    let work = tempfile::tempdir().unwrap();
    let dir = small_release(work.path());
    let manifest = dir.join("manifest.json");
    let root = rebuild_root(work.path());
    let added = work.path().join("src/part9.jsonl");
    std::fs::write(
        &added,
        "{\"id\":\"9\",\"text\":\"새로 들어온 문장이다.\"}\n",
    )
    .unwrap();
    let rebuild = || {
        kcurate(&[
            "rebuild",
            manifest.to_str().unwrap(),
            "--root",
            root.to_str().unwrap(),
            "--out",
            work.path().join("re").to_str().unwrap(),
        ])
    };
    let o = rebuild();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a/part9.jsonl: added to source a"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(&added).unwrap();
    let removed = work.path().join("src/part1.jsonl");
    std::fs::remove_file(&removed).unwrap();
    let o = rebuild();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("a/part1.jsonl: removed from source a"), "{e}");
    assert!(e.contains("1 input(s) differ"), "{e}");
}

/// `--overwrite` whose final rename fails keeps the old release (deleting it first would
/// leave neither).
#[test]
fn overwrite_keeps_the_old_release_when_the_new_cannot_be_renamed_into_place() {
    let work = tempfile::tempdir().unwrap();
    let dir = small_release(work.path());
    let before = tree(&dir);
    let r = work.path().join("r.toml");
    let o = Command::new(bin())
        .args(["run", r.to_str().unwrap(), "--out"])
        .arg(work.path().join("out"))
        .arg("--overwrite")
        .env("KCURATE_FAULT", "rename-new")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("injected fault"), "{}", stderr(&o));
    assert_eq!(tree(&dir), before, "the old release changed");
    assert!(verify_ok(&dir));
    let parent = entries(&work.path().join("out/t"));
    assert_eq!(
        parent
            .iter()
            .filter(|e| e.starts_with(".tmp") || e.starts_with(".old"))
            .count(),
        0,
        "{parent:?}"
    );
}

/// A crash after the old release was moved aside leaves no half release under the real
/// name; the next run puts the old one back before anything else.
#[test]
fn a_crash_during_overwrite_leaves_the_old_release_restorable() {
    let work = tempfile::tempdir().unwrap();
    let dir = small_release(work.path());
    let before = tree(&dir);
    let r = work.path().join("r.toml");
    let o = Command::new(bin())
        .args(["run", r.to_str().unwrap(), "--out"])
        .arg(work.path().join("out"))
        .arg("--overwrite")
        .env("KCURATE_FAULT", "after-aside")
        .output()
        .unwrap();
    assert_eq!(
        o.status.signal(),
        Some(6),
        "the injected crash did not happen"
    );
    assert!(!dir.exists(), "a half release is in place");
    assert_no_false_release(&work.path().join("out"));
    let o = run_to(&r, &work.path().join("out"), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_eq!(
        tree(&dir),
        before,
        "the old release did not come back whole"
    );
    let parent = entries(&work.path().join("out/t"));
    assert!(
        !parent
            .iter()
            .any(|e| e.starts_with(".tmp") || e.starts_with(".old")),
        "{parent:?}"
    );
}

/// Every directory under `out` that holds a manifest.json (looks like a release) verifies.
fn assert_no_false_release(out: &Path) {
    for e in entries(out) {
        if e.ends_with("manifest.json") {
            let d = out.join(&e);
            let d = d.parent().unwrap();
            assert!(
                verify_ok(d),
                "{} looks like a release but does not verify",
                d.display()
            );
        }
    }
}

#[test]
fn a_second_run_to_a_release_being_written_fails_clearly() {
    let work = tempfile::tempdir().unwrap();
    let dir = small_release(work.path());
    let before = tree(&dir);
    // Another run holds the release's lock.
    let lock = std::fs::File::options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(work.path().join("out/t/.1.lock"))
        .unwrap();
    lock.lock().unwrap();
    let r = work.path().join("r.toml");
    let o = run_to(&r, &work.path().join("out"), &["--overwrite"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is being written by another kcurate run"),
        "{}",
        stderr(&o)
    );
    assert_eq!(tree(&dir), before);
    drop(lock);
    // Two real runs at once: each either succeeds or is refused with that message, and
    // what is left verifies.
    let spawn = || {
        Command::new(bin())
            .args(["run", r.to_str().unwrap(), "--overwrite", "--out"])
            .arg(work.path().join("out"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let mut ok = 0;
    for c in [a, b] {
        let o = c.wait_with_output().unwrap();
        match o.status.code() {
            Some(0) => ok += 1,
            _ => assert!(
                stderr(&o).contains("is being written by another kcurate run"),
                "{}",
                stderr(&o)
            ),
        }
    }
    assert!(ok >= 1);
    assert!(verify_ok(&dir));
    assert_no_false_release(&work.path().join("out"));
}

/// A run big enough to be interrupted.
fn big_recipe(work: &Path) -> PathBuf {
    let big = work.join("big.jsonl");
    let line = format!("{{\"text\":\"{}\"}}\n", "오늘은 날씨가 맑다. ".repeat(20));
    std::fs::write(&big, line.repeat(200_000)).unwrap();
    let recipe = work.join("big.toml");
    std::fs::write(&recipe, format!(
        "name = \"big\"\nversion = \"1\"\nseed = 1\n[[source]]\nid = \"a\"\npath = \"{}\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"x\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\n",
        big.display()
    )).unwrap();
    recipe
}

#[test]
fn sigint_removes_the_unfinished_release_and_its_lock() {
    let work = tempfile::tempdir().unwrap();
    let recipe = big_recipe(work.path());
    let out = work.path().join("out");
    let mut child = Command::new(bin())
        .args(["run", recipe.to_str().unwrap(), "--threads", "1", "--out"])
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the run writes its temporary directory.
    let parent = out.join("big");
    let started = (0..500).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::read_dir(&parent).is_ok_and(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-1-"))
        })
    });
    assert!(started, "the run did not start writing");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run finished too soon"
    );
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("interrupted (SIGINT)"),
        "{}",
        stderr(&o)
    );
    // The lock file goes too: the run held it, and removed it before exiting.
    let left: Vec<String> = entries(&parent);
    assert!(left.is_empty(), "SIGINT left {left:?}");
}

/// Runs the binary with its stdout already closed; it must end by SIGPIPE (141 in a
/// shell), not panic with 101.
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(bin())
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_audit_why_and_run_quietly() {
    let work = tempfile::tempdir().unwrap();
    let dir = small_release(work.path());
    let d = dir.to_str().unwrap();
    let r = work.path().join("r.toml");
    let out2 = work.path().join("out2");
    for args in [
        vec!["audit", d],
        vec!["why", d, "a-0-0"],
        vec!["verify", d],
        vec!["run", r.to_str().unwrap(), "--out", out2.to_str().unwrap()],
    ] {
        let o = with_closed_stdout(&args);
        assert_eq!(
            o.status.signal(),
            Some(13),
            "{}: {:?} {}",
            args[0],
            o.status,
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    // `run` wrote its release before its stdout closed.
    assert!(verify_ok(&out2.join("t/1")));
}

/// kill -9 at seeded random points of a run over data-samples: afterwards no directory
/// under --out looks like a release unless it verifies, and a rerun succeeds.
#[test]
fn kill_9_at_random_points_leaves_no_false_release() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let mut state: u64 = 0x5eed_2026;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let trials = 10;
    let mut killed = 0;
    for _ in 0..trials {
        // Up to past the end of a debug run (~2 s here), so that some kills land in the
        // finalisation and some runs finish (then later ones replace them: --overwrite).
        let delay = next() % 2500;
        let mut child = Command::new(bin())
            .current_dir(repo())
            .env("KCURATE_PII_KEY", SAMPLE_KEY)
            .args([
                "run",
                "configs/default.toml",
                "--overwrite",
                "--threads",
                "1",
                "--out",
            ])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            killed += 1;
        }
        child.wait().unwrap();
        if out.exists() {
            assert_no_false_release(&out);
        }
    }
    eprintln!(
        "kill -9 trials: {trials}, killed mid-run: {killed}, finished: {}",
        trials - killed
    );
    let o = kcurate(&[
        "run",
        "configs/default.toml",
        "--overwrite",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let dir = out.join("kcurate-samples/1.0.0");
    assert!(verify_ok(&dir));
    let parent = entries(&out.join("kcurate-samples"));
    assert!(
        !parent
            .iter()
            .any(|e| e.starts_with(".tmp") || e.starts_with(".old")),
        "{parent:?}"
    );
}

#[test]
fn the_dataset_card_escapes_recipe_text() {
    let work = tempfile::tempdir().unwrap();
    let r = small_recipe(
        work.path(),
        "name = \"t\"\nversion = \"1\"\ndescription = \"\"\"\nA set.\n---\nlicense: evil\n---\n<script>alert(1)</script>\n\"\"\"",
        "\n[task]\nname = \"sentences\"\ntask_categories = [\"text-classification\\nlicense: evil2\"]\n",
        1,
    );
    let text = std::fs::read_to_string(&r)
        .unwrap()
        .replace("domain = \"news\"", "domain = \"<b>news</b>\"")
        .replace(
            "style = \"formal\"",
            "style = \"formal\"\nattribution = \"<img src=x onerror=alert(2)> | ---\"",
        );
    std::fs::write(&r, text).unwrap();
    let out = work.path().join("out");
    let o = run_to(&r, &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let card = std::fs::read_to_string(out.join("t/1/README.md")).unwrap();
    let front = card.split("\n---\n").next().unwrap();
    assert!(
        !front.lines().any(|l| l.starts_with("license: evil")),
        "front matter injected: {front}"
    );
    assert!(
        card.lines().filter(|l| l.trim() == "---").count() == 2,
        "a `---` line from the description: {card}"
    );
    for raw in ["<script", "<img", "<b>"] {
        assert!(!card.contains(raw), "raw {raw} in the card: {card}");
    }
    assert!(
        card.contains("&lt;script&gt;") && card.contains("&lt;b&gt;news"),
        "{card}"
    );
    let report = std::fs::read_to_string(out.join("t/1/report.html")).unwrap();
    for raw in ["<script", "<img", "<b>"] {
        assert!(!report.contains(raw), "raw {raw} in report.html");
    }
}

#[test]
fn a_null_required_field_is_named_as_null_not_missing() {
    let work = tempfile::tempdir().unwrap();
    let r = small_recipe(work.path(), "name = \"t\"\nversion = \"1\"", "", 1);
    std::fs::write(
        work.path().join("src/part0.jsonl"),
        "{\"id\":null,\"text\":\"아이디가 비어 있는 문장이다.\"}\n{\"text\":\"아이디가 없는 문장이다.\"}\n",
    )
    .unwrap();
    let out = work.path().join("out");
    let o = run_to(&r, &out, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let d = std::fs::read_to_string(out.join("t/1/audit/decisions.jsonl")).unwrap();
    assert!(
        d.contains("part0.jsonl:1: id: null, but a value is required"),
        "{d}"
    );
    assert!(d.contains("part0.jsonl:2: id: missing field"), "{d}");
}

#[test]
fn split_fraction_errors_name_their_own_line() {
    let work = tempfile::tempdir().unwrap();
    let r = small_recipe(
        work.path(),
        "name = \"t\"\nversion = \"1\"",
        "\n[split]\ntrain = 1.1\ndev = -0.1\ntest = 0.0\n",
        1,
    );
    let line = std::fs::read_to_string(&r)
        .unwrap()
        .lines()
        .position(|l| l.starts_with("dev = -0.1"))
        .unwrap()
        + 1;
    let o = kcurate(&["check", r.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "r.toml:{line}: split.dev: must be a fraction between 0 and 1 (got -0.1)"
        )),
        "{e}"
    );
    assert!(!e.contains("must be 1 (got 1)"), "{e}");
}

#[test]
fn released_rows_do_not_carry_the_absolute_source_path() {
    let work = tempfile::tempdir().unwrap();
    let r = small_recipe(work.path(), "name = \"t\"\nversion = \"1\"", "", 2);
    // One malformed line, so that a decision names the file too.
    let mut f = std::fs::read_to_string(work.path().join("src/part1.jsonl")).unwrap();
    f.push_str("{\"id\":\"x\"}\n");
    std::fs::write(work.path().join("src/part1.jsonl"), f).unwrap();
    let out = work.path().join("out");
    let o = run_to(&r, &out, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let local = work.path().display().to_string();
    let dir = out.join("t/1");
    for rel in [
        "sentences/train.jsonl",
        "sentences/validation.jsonl",
        "sentences/test.jsonl",
        "audit/decisions.jsonl",
    ] {
        let text = std::fs::read_to_string(dir.join(rel)).unwrap();
        assert!(!text.contains(&local), "{rel} carries {local}: {text}");
    }
    let rows: String = ["train", "validation", "test"]
        .iter()
        .map(|s| std::fs::read_to_string(dir.join(format!("sentences/{s}.jsonl"))).unwrap())
        .collect();
    assert!(rows.contains("\"origin\":\"a/part0.jsonl:1\""), "{rows}");
    let d = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    assert!(d.contains("a/part1.jsonl:4: text: missing field"), "{d}");
    // Nor does the manifest: a rebuild finds the source under its release name (`a`) below
    // `--root`.
    let root = rebuild_root(work.path());
    let o = kcurate(&[
        "rebuild",
        dir.join("manifest.json").to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--out",
        work.path().join("re").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("identical"), "{}", stdout(&o));
}

/// Under `ulimit -v`, glibc's default arenas would abort a run at a fraction of its limit in
/// resident memory: glibc reserves 64 MiB of address space for each thread that mallocs from
/// C code (zstd on the pool threads). The binary keeps one glibc arena: the sample run
/// (about 50 MB resident; ~440 MB of address space with glibc's default arenas on 2 cores,
/// ~115 MB with one) completes under a limit of 250 MB plus 6 MB per core (thread stacks).
#[test]
fn a_run_fits_a_virtual_memory_limit_a_few_times_its_resident_size() {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let limit_kb = 250_000 + 6_144 * cores;
    let out = tempfile::tempdir().unwrap();
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v {limit_kb} && exec \"$0\" run configs/default.toml --out \"$1\""
        ))
        .arg(bin())
        .arg(out.path())
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .env_remove("MALLOC_ARENA_MAX")
        .output()
        .unwrap();
    // 3: written, with the samples' planted bad lines quarantined.
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(verify_ok(&out.path().join("kcurate-samples/1.0.0")));
}

#[test]
fn recipe_markdown_is_shown_in_the_card_not_rendered() {
    let work = tempfile::tempdir().unwrap();
    let r = small_recipe(
        work.path(),
        "name = \"t\"\nversion = \"1\"\ndescription = \"\"\"\n# Heading\nSee [x](javascript:alert(1)).\n\"\"\"",
        "",
        1,
    );
    let text = std::fs::read_to_string(&r).unwrap().replace(
        "style = \"formal\"",
        "style = \"formal\"\nattribution = \"![i](javascript:alert(2))\"",
    );
    std::fs::write(&r, text).unwrap();
    let out = work.path().join("out");
    let o = run_to(&r, &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let card = std::fs::read_to_string(out.join("t/1/README.md")).unwrap();
    assert!(
        !card.lines().any(|l| l.starts_with("# Heading")),
        "a heading from the recipe: {card}"
    );
    // Every `](` in the card is an escaped bracket, shown as text.
    assert!(
        !card.replace("\\](", "").contains("]("),
        "a link from the recipe: {card}"
    );
    assert!(card.contains("[x\\](javascript:alert(1))"), "{card}");
}

#[test]
fn stage_says_why_it_exits_when_lines_are_not_records() {
    let work = tempfile::tempdir().unwrap();
    let r = small_recipe(work.path(), "name = \"t\"\nversion = \"1\"", "", 1);
    let d = work.path().join("d.jsonl");
    let o = kcurate_stdin(
        &[
            "stage",
            "--recipe",
            r.to_str().unwrap(),
            "--decisions",
            d.to_str().unwrap(),
        ],
        b"not a record\n",
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 input line(s) could not be read as records"),
        "{}",
        stderr(&o)
    );
    assert!(
        std::fs::read_to_string(&d)
            .unwrap()
            .contains("ingest.malformed")
    );
}

#[test]
fn a_failed_run_leaves_no_lock_file() {
    let work = tempfile::tempdir().unwrap();
    let r = small_recipe(work.path(), "name = \"t\"\nversion = \"1\"", "", 1);
    // An empty source file stops the run after the release directory was prepared.
    std::fs::write(work.path().join("src/part0.jsonl"), "").unwrap();
    let out = work.path().join("out");
    let o = run_to(&r, &out, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let left = if out.join("t").exists() {
        entries(&out.join("t"))
    } else {
        Vec::new()
    };
    assert!(left.is_empty(), "a failed run left {left:?}");
}

#[test]
fn a_command_killed_while_writing_no_release_does_not_claim_to_remove_one() {
    // `agree --input -` waits on stdin: a read-only command that is still running.
    let child = Command::new(bin())
        .args(["agree", "--input", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("interrupted (SIGTERM)"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("release"), "{}", stderr(&o));
}

#[test]
fn a_pii_key_that_is_not_utf8_is_named_as_such() {
    use std::os::unix::ffi::OsStrExt;
    let o = Command::new(bin())
        .args(["pii", "pseudonymise"])
        .env(
            "KCURATE_PII_KEY",
            std::ffi::OsStr::from_bytes(b"key\xff\xfe"),
        )
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("no PII key"), "{}", stderr(&o));
}

#[test]
fn an_error_names_its_cause_once() {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    // The default recipe pseudonymises: its errors pass through the PII scrubber.
    let o = kcurate(&[
        "run",
        "configs/default.toml",
        "--out",
        file.join("x").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("(os error 20)").count(), 1, "{err}");
}
