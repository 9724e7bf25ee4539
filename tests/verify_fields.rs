//! `kcurate verify` checks every field of manifest.json. On the sample release each leaf of
//! the manifest's JSON is changed in turn and verify must fail naming the field:
//! - as a forger would (`fields_sha256` recomputed after the edit): every field verify can
//!   recompute from the release, its recipe copy and its inputs is named by its full path;
//!   the fields only the digest covers are listed in [`DIGEST_ONLY`], and verify must pass
//!   on them (what the digest does not protect against);
//! - as an editor would (`fields_sha256` left as written): the digest names the top-level
//!   field, shown on each [`DIGEST_ONLY`] leaf and one leaf of every other field.
//!
//! Each key is renamed in turn too (digest recomputed; of an array of objects, the first
//! object's keys).

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Fields nothing in a release can recompute, covered by `fields_sha256` only: the tool's
/// version and components (written by whichever kcurate made the release), the recipe path
/// as it was typed (relative to a working directory the release does not record), and the
/// figures a corpus stage reported (`metrics`, from data the release does not keep).
const DIGEST_ONLY: [&str; 4] = ["tool.version", "tool.components", "recipe.path", "metrics."];

/// One step into the JSON: an object key or an array index.
#[derive(Clone)]
enum Step {
    Key(String),
    At(usize),
}

/// `a.b[3].c`, as verify names fields.
fn shown(path: &[Step]) -> String {
    let mut s = String::new();
    for p in path {
        match p {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::At(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn at<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, p| match p {
        Step::Key(k) => &mut v[k.as_str()],
        Step::At(i) => &mut v[*i],
    })
}

/// Every scalar (leaves) and every object key (keys) of `v`, by path.
fn walk(v: &Value, path: &mut Vec<Step>, leaves: &mut Vec<Vec<Step>>, keys: &mut Vec<Vec<Step>>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                path.push(Step::Key(k.clone()));
                keys.push(path.clone());
                walk(x, path, leaves, keys);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(Step::At(i));
                walk(x, path, leaves, keys);
                path.pop();
            }
        }
        _ => leaves.push(path.clone()),
    }
}

/// The leaf changed: a number plus one, a string with a character more, a flag flipped.
fn change_leaf(m: &mut Value, path: &[Step]) {
    let v = at(m, path);
    *v = match v.take() {
        Value::Number(n) if n.is_u64() => Value::from(n.as_u64().unwrap() + 1),
        Value::Number(n) => Value::from(n.as_f64().unwrap() + 0.5),
        Value::String(s) => Value::from(s + "x"),
        Value::Bool(b) => Value::from(!b),
        _ => Value::from(0),
    };
}

/// The last key of `path` renamed (a number key to the next number, as JSON maps keyed by
/// numbers need); the object keeps its other keys.
fn rename_key(m: &mut Value, path: &[Step]) -> String {
    let Some((Step::Key(k), parent)) = path.split_last() else {
        unreachable!("a key path ends with a key")
    };
    let new = match k.parse::<u64>() {
        Ok(n) => (n + 1).to_string(),
        Err(_) => format!("{k}x"),
    };
    let o = at(m, parent).as_object_mut().unwrap();
    let x = o.remove(k).unwrap();
    o.insert(new.clone(), x);
    new
}

/// `fields_sha256` recomputed for the manifest as it is now.
fn reseal(m: &mut Value) {
    let o = m.as_object_mut().unwrap();
    o.remove("fields_sha256");
    let d = kcurate_release::verify::field_digests(&Value::Object(o.clone()));
    o.insert("fields_sha256".into(), serde_json::to_value(d).unwrap());
}

/// One edit of the manifest and what verify must say about it.
struct Case {
    /// The field changed, as verify names it.
    field: String,
    manifest: Value,
    /// Names that count as naming the field (its path; a renamed key's new path or, when
    /// the manifest no longer reads, the key as the reader names it; an output's file).
    names: Vec<String>,
    /// Verify passes: a field the digest alone covers, the digest recomputed.
    passes: bool,
}

fn digest_only(field: &str) -> bool {
    DIGEST_ONLY.iter().any(|d| field.starts_with(d))
}

/// Names that count for `path` in `m`: its path, and for `outputs[i].*` the file's path.
fn names_of(m: &Value, path: &[Step]) -> Vec<String> {
    let mut names = vec![shown(path)];
    if let (Some(Step::Key(top)), Some(Step::At(i))) = (path.first(), path.get(1))
        && top == "outputs"
    {
        names.push(m["outputs"][*i]["path"].as_str().unwrap().to_string());
    }
    names
}

fn cases(m: &Value) -> Vec<Case> {
    let (mut leaves, mut keys) = (Vec::new(), Vec::new());
    walk(m, &mut Vec::new(), &mut leaves, &mut keys);
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for path in &leaves {
        let field = shown(path);
        let mut edited = m.clone();
        change_leaf(&mut edited, path);
        let top = match &path[0] {
            Step::Key(k) => k.clone(),
            Step::At(_) => unreachable!(),
        };
        // As an editor: the digest names the top-level field whatever the leaf, so one leaf
        // per field shows it, and every leaf that nothing else checks.
        if digest_only(&field) || top == "fields_sha256" || seen.insert(top.clone()) {
            let mut names = names_of(m, path);
            names.push(format!("manifest.json: {top}: "));
            out.push(Case {
                field: format!("{field} (digest kept)"),
                manifest: edited.clone(),
                names,
                passes: false,
            });
        }
        if top == "fields_sha256" {
            continue;
        }
        reseal(&mut edited);
        out.push(Case {
            names: names_of(m, path),
            passes: digest_only(&field),
            field,
            manifest: edited,
        });
    }
    // Keys of the objects of an array: the first object's stand for the others (the same
    // fields, read the same way).
    let first_of_arrays = |p: &Vec<Step>| {
        p.iter().all(|s| matches!(s, Step::Key(_) | Step::At(0)))
            && !shown(p).starts_with("fields_sha256")
    };
    for path in keys.iter().filter(|p| first_of_arrays(p)) {
        let mut edited = m.clone();
        let old = shown(path);
        let new = rename_key(&mut edited, path);
        reseal(&mut edited);
        let mut names = names_of(m, path);
        let mut renamed = path.clone();
        *renamed.last_mut().unwrap() = Step::Key(new);
        names.push(shown(&renamed));
        if let Some(Step::Key(k)) = path.last() {
            names.push(format!("missing field `{k}`"));
        }
        out.push(Case {
            // A field of the manifest renamed makes it unreadable; a key of a map it holds
            // does not.
            passes: digest_only(&old) && !DIGEST_ONLY.contains(&old.as_str()),
            field: format!("{old} (key renamed)"),
            manifest: edited,
            names,
        });
    }
    out
}

/// Runs verify on each case in a copy of the release; the cases it got wrong.
fn run_cases(release: &Path, cases: &[Case]) -> Vec<String> {
    let copy = tempfile::tempdir().unwrap();
    let dir: PathBuf = copy.path().join("r");
    copy_dir(release, &dir);
    let mut wrong = Vec::new();
    for c in cases {
        let text = serde_json::to_string_pretty(&c.manifest).unwrap() + "\n";
        std::fs::write(dir.join("manifest.json"), text).unwrap();
        let o = kcurate(&["verify", dir.to_str().unwrap()]);
        let e = stderr(&o);
        let ok = if c.passes {
            o.status.success()
        } else {
            !o.status.success() && c.names.iter().any(|n| e.contains(n.as_str()))
        };
        if !ok {
            wrong.push(format!(
                "{} ({}): status {:?}, want it named as one of {:?}:\n{e}",
                c.field,
                if c.passes { "digest only" } else { "checked" },
                o.status.code(),
                c.names
            ));
        }
    }
    wrong
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (rel, bytes) in tree(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}

#[test]
fn verify_names_an_edit_to_every_field_of_the_manifest() {
    let (_out, dir) = default_release("2");
    let o = kcurate(&["verify", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = manifest(&dir);
    let all = cases(&m);
    assert!(all.len() > 600, "{} cases", all.len());
    // Two workers: verify runs a few hundred times each.
    let (a, b) = all.split_at(all.len() / 2);
    let wrong: Vec<String> = std::thread::scope(|s| {
        let h = s.spawn(|| run_cases(&dir, a));
        let mut w = run_cases(&dir, b);
        w.extend(h.join().unwrap());
        w
    });
    assert!(
        wrong.is_empty(),
        "{} of {} edits not caught as expected:\n{}",
        wrong.len(),
        all.len(),
        wrong
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn an_unknown_format_version_is_refused_with_a_message() {
    let (_out, dir) = default_release("1");
    let mut m = manifest(&dir);
    for (v, says) in [
        (99, "99 is not a manifest format this kcurate reads"),
        (1, "an earlier kcurate"),
    ] {
        m["format_version"] = Value::from(v);
        reseal(&mut m);
        std::fs::write(
            dir.join("manifest.json"),
            serde_json::to_string_pretty(&m).unwrap(),
        )
        .unwrap();
        let o = kcurate(&["verify", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("format_version: ") && stderr(&o).contains(says),
            "{}",
            stderr(&o)
        );
    }
}

/// Verified away from its inputs (another working directory), a release still verifies:
/// the inputs are noted as not checked, and their records are covered by the digest.
#[test]
fn inputs_not_at_hand_are_noted_not_failed() {
    let (_out, dir) = default_release("1");
    let elsewhere = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "verify",
        dir.to_str().unwrap(),
        "--root",
        elsewhere.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("note: ") && stderr(&o).contains("input file(s) not found"),
        "{}",
        stderr(&o)
    );
}

/// A task's rows are the task's own schema (pairs here), not its records' text: `lengths`
/// is counted per split against the rows (its buckets covered by the digest), and the
/// rest of the manifest is checked as for sentences.
#[test]
fn a_task_release_verifies_and_its_lengths_add_up_to_its_rows() {
    let (_out, dir) = run_recipe("configs/klue-sts.toml", "2");
    let o = kcurate(&["verify", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = manifest(&dir);
    for (edit, field) in [
        ("/lengths/train", "lengths.train"),
        ("/stages/8/items_out", "stages[8].items_out"),
        ("/by_source/news", "by_source.news"),
    ] {
        let mut e = m.clone();
        let v = e.pointer_mut(edit).unwrap();
        match v {
            Value::Object(o) => {
                let first = o.values_mut().next().unwrap();
                // A bucket count, or a rule's counts: one more.
                match first {
                    Value::Number(n) => *first = Value::from(n.as_u64().unwrap() + 1),
                    x => x["drop"] = Value::from(x["drop"].as_u64().unwrap() + 1),
                }
            }
            x => *x = Value::from(x.as_u64().unwrap() + 1),
        }
        reseal(&mut e);
        std::fs::write(
            dir.join("manifest.json"),
            serde_json::to_string_pretty(&e).unwrap(),
        )
        .unwrap();
        let o = kcurate(&["verify", dir.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{edit}: {}", stderr(&o));
        assert!(stderr(&o).contains(field), "{edit}: {}", stderr(&o));
    }
}
