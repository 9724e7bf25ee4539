//! Helpers shared by the integration tests: run the real binary from the repository root.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

/// The key the sample recipe's PII stage uses in tests (Makefile's sample key).
pub(crate) const SAMPLE_KEY: &str = "kcurate-samples-not-secret";

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

pub(crate) fn kcurate(args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("kcurate")
        .expect("binary built")
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args(args)
        .output()
        .expect("kcurate runs")
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every file under `dir` with its bytes, sorted by relative path.
pub(crate) fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(base: &Path, d: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Runs `recipe` into a fresh temporary directory and returns it with the release directory
/// (`<name>/<version>` read back from the recipe). Status 3 = written with quarantined input.
///
/// A shipped recipe (`configs/…`) is run once per binary, thread count and state of the files
/// it can read, and each caller gets its own copy ([`shipped_release`]): several test
/// binaries build the same release of a real corpus, minutes each in a debug build.
pub(crate) fn run_recipe(recipe: &str, threads: &str) -> (tempfile::TempDir, PathBuf) {
    let out = tempfile::tempdir().unwrap();
    if recipe.starts_with("configs/") {
        copy_tree(&shipped_release(recipe, threads), out.path());
    } else {
        run_into(recipe, threads, out.path(), &[]);
    }
    let dir = release_dir(out.path(), &repo().join(recipe));
    (out, dir)
}

/// The output directory of `kcurate run <recipe> --threads <threads>` for a shipped recipe,
/// kept under the target directory. Its name hashes everything the run reads from the
/// repository (the binary's size and time, the recipe's path, `configs/`, `rules/`,
/// `data-samples/` and `tests/fixtures/`) so an edit anywhere there runs it afresh; corpora
/// under ../shared are read-only inputs. A lock file keeps two tests from building one twice.
/// Releases are grouped by binary, and a new binary's first build removes the others'.
pub(crate) fn shipped_release(recipe: &str, threads: &str) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let bin = assert_cmd::cargo::cargo_bin("kcurate");
    let meta = std::fs::metadata(&bin).expect("binary built");
    let mut h = std::hash::DefaultHasher::new();
    (meta.len(), meta.modified().unwrap()).hash(&mut h);
    let binary = format!("{:016x}", h.finish());
    (recipe, threads).hash(&mut h);
    for sub in ["configs", "rules", "data-samples", "tests/fixtures"] {
        let root = repo().join(sub);
        if root.is_dir() {
            tree(&root).hash(&mut h);
        }
    }
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shipped-releases");
    let cache = root.join(&binary);
    std::fs::create_dir_all(&cache).unwrap();
    let done = cache.join(format!("{:016x}", h.finish()));
    let lock = std::fs::File::create(done.with_extension("lock")).unwrap();
    lock.lock().unwrap();
    if !done.is_dir() {
        // Releases of earlier binaries are never read again: they go, so the cache holds
        // one binary's releases.
        for e in std::fs::read_dir(&root).unwrap().flatten() {
            if e.file_name() != binary.as_str() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        build_once(&done, |partial| run_into(recipe, threads, partial, &[]));
    }
    done
}

/// Builds the directory `done` through `build` into a partial directory of this process's
/// own, then renames it into place in one step: two test binaries building one release at
/// once never write into or remove each other's half-built copy, and a reader sees either no
/// `done` or a whole one. When another process put `done` in place first, its copy stays.
pub(crate) fn build_once(done: &Path, build: impl FnOnce(&Path)) {
    let partial = done.with_extension(format!("partial-{}", std::process::id()));
    // Left by an earlier process of the same id that died mid-build.
    let _ = std::fs::remove_dir_all(&partial);
    build(&partial);
    if let Err(e) = std::fs::rename(&partial, done) {
        assert!(
            done.is_dir(),
            "{} -> {}: {e}",
            partial.display(),
            done.display()
        );
        std::fs::remove_dir_all(&partial).unwrap();
    }
}

/// `kcurate run <recipe> --out <out> --threads <threads> <extra…>`, which must write the
/// release (status 0, or 3 with quarantined input).
pub(crate) fn run_into(recipe: &str, threads: &str, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        recipe,
        "--out",
        out.to_str().unwrap(),
        "--threads",
        threads,
    ];
    args.extend_from_slice(extra);
    assert_written(&kcurate(&args), recipe);
}

/// Copies every file under `from` to the same relative path under `to`.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The shipped recipes' directory: a copy of one written elsewhere runs with `--root` set
/// to it, so that its relative paths resolve as the original's do.
pub(crate) fn configs_dir() -> String {
    repo().join("configs").display().to_string()
}

/// `run_recipe` for a copy of a shipped recipe written elsewhere (`--root` = configs/).
pub(crate) fn run_config_copy(recipe: &str, threads: &str) -> (tempfile::TempDir, PathBuf) {
    let out = tempfile::tempdir().unwrap();
    run_into(recipe, threads, out.path(), &["--root", &configs_dir()]);
    let dir = release_dir(out.path(), Path::new(recipe));
    (out, dir)
}

/// Asserts that a command writing a release did: status 0, or 3 (written with quarantined
/// input); `what` heads the failure message.
pub(crate) fn assert_written(o: &Output, what: &str) {
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{what}: failed: {}{}",
        stdout(o),
        stderr(o)
    );
}

/// The directory a recipe's release is written to under `out`: `<out>/<name>/<version>`,
/// read from the recipe file.
pub(crate) fn release_dir(out: &Path, recipe: &Path) -> PathBuf {
    let text = std::fs::read_to_string(recipe).unwrap();
    let r: toml::Table = toml::from_str(&text).unwrap();
    out.join(r["name"].as_str().unwrap())
        .join(r["version"].as_str().unwrap())
}

/// A release's `manifest.json`.
pub(crate) fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// `kcurate` (as [`kcurate`] runs it) with `input` on stdin.
pub(crate) fn kcurate_stdin(args: &[&str], input: &[u8]) -> Output {
    assert_cmd::Command::cargo_bin("kcurate")
        .expect("binary built")
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("kcurate runs")
}

/// `kcurate stage --recipe RECIPE --before-corpus --decisions -` over `records` (JSON lines
/// on stdin), which must succeed: the part it writes on stdout (records, tagged decisions
/// and the stats line), what an engine's partition produces.
pub(crate) fn stage_part(recipe: &str, records: &[u8]) -> Vec<u8> {
    stage_part_with(recipe, records, &[])
}

/// [`stage_part`] with `more` arguments (`--dedup-keys`).
pub(crate) fn stage_part_with(recipe: &str, records: &[u8], more: &[&str]) -> Vec<u8> {
    let mut args = vec![
        "stage",
        "--recipe",
        recipe,
        "--before-corpus",
        "--decisions",
        "-",
    ];
    args.extend(more);
    let o = kcurate_stdin(&args, records);
    assert!(o.status.success(), "{}", stderr(&o));
    o.stdout
}

/// `kcurate challenge PARENT --recipe RECIPE --out OUT` and `extra` arguments, which must
/// succeed: its output and the derived release's directory.
pub(crate) fn challenge(
    parent: &Path,
    recipe: &str,
    out: &Path,
    extra: &[&str],
) -> (Output, PathBuf) {
    let mut args = vec![
        "challenge",
        parent.to_str().unwrap(),
        "--recipe",
        recipe,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = kcurate(&args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let dir = release_dir(out, &repo().join(recipe));
    (o, dir)
}

/// Runs the default recipe into a fresh temporary directory.
pub(crate) fn default_release(threads: &str) -> (tempfile::TempDir, PathBuf) {
    run_recipe("configs/default.toml", threads)
}

/// `kcurate rebuild` of the release at `dir` into a fresh directory gives identical bytes.
pub(crate) fn assert_rebuilds_identically(dir: &Path) {
    let out = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "rebuild",
        dir.join("manifest.json").to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "rebuild: {}{}", stdout(&o), stderr(&o));
    let version = dir.file_name().unwrap();
    let name = dir.parent().unwrap().file_name().unwrap();
    assert_eq!(tree(dir), tree(&out.path().join(name).join(version)));
}

/// `kcurate audit sample RELEASE <args…> --out OUT`, which must succeed: the `sample.tsv` it
/// wrote (header line first).
pub(crate) fn audit_sample(release: &Path, out: &Path, args: &[&str]) -> String {
    let mut all = vec!["audit", "sample", release.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = kcurate(&all);
    assert!(o.status.success(), "audit sample: {}", stderr(&o));
    std::fs::read_to_string(out.join("sample.tsv")).unwrap()
}

/// `kcurate run RECIPE --out OUT --root configs/`: a recipe written elsewhere, its relative
/// paths resolved as the shipped recipes' are.
pub(crate) fn run_rooted(recipe: &Path, out: &Path) -> Output {
    let (recipe, out) = (recipe.to_str().unwrap(), out.to_str().unwrap());
    kcurate(&["run", recipe, "--out", out, "--root", &configs_dir()])
}

/// The default recipe with each `(from, to)` of `replace` applied (each `from` must be in
/// it), run ([`run_rooted`]) into a fresh temporary directory, which must write the release:
/// the directory, the run's output and the release in it.
pub(crate) fn run_default_variant(
    replace: &[(&str, &str)],
) -> (tempfile::TempDir, Output, PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    for (a, b) in replace {
        assert!(text.contains(a), "{a}");
        text = text.replace(a, b);
    }
    let recipe = work.path().join("variant.toml");
    std::fs::write(&recipe, text).unwrap();
    let out = work.path().join("out");
    let o = run_rooted(&recipe, &out);
    assert_written(&o, "default recipe variant");
    (work, o, out.join("kcurate-samples/1.0.0"))
}

/// [`run_default_variant`]'s directory and release.
pub(crate) fn default_variant(replace: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let (work, _, dir) = run_default_variant(replace);
    (work, dir)
}
