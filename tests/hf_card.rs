//! The dataset card's front matter is what the Hugging Face Hub reads: it parses as YAML
//! (a strict parser of the block subset the card emits: mappings, `- ` sequences, plain,
//! double- and single-quoted scalars; anything else is an error), carries the Hub's
//! metadata keys, and its `dataset_info` agrees with the files: `num_examples` is each
//! split file's rows, `num_bytes` its size, the features are exactly the rows' columns, and
//! a `ClassLabel` column holds only its names. `configs` points at the split files.

mod common;
use common::*;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// The front matter of a card (between the first two `---` lines) as a JSON value.
fn front_matter(card: &str) -> Value {
    let rest = card.strip_prefix("---\n").expect("card starts with ---");
    let end = rest.find("\n---\n").expect("front matter ends with ---");
    let lines: Vec<(usize, String)> = rest[..end + 1]
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 2, l.to_string()))
        .collect();
    let mut p = Yaml { lines, i: 0 };
    let v = p.block(0);
    assert!(
        p.i == p.lines.len(),
        "line {}: unexpected {:?}",
        p.lines[p.i].0,
        p.lines[p.i].1
    );
    v
}

struct Yaml {
    /// (line number in the card, text)
    lines: Vec<(usize, String)>,
    i: usize,
}

fn indent_of(l: &str) -> usize {
    l.len() - l.trim_start_matches(' ').len()
}

impl Yaml {
    fn peek(&self) -> Option<(usize, &str)> {
        self.lines
            .get(self.i)
            .map(|(_, l)| (indent_of(l), l.trim_start_matches(' ')))
    }

    fn fail(&self, why: &str) -> ! {
        let (n, l) = &self.lines[self.i.min(self.lines.len() - 1)];
        panic!("front matter line {n}: {why}: {l:?}")
    }

    fn block(&mut self, indent: usize) -> Value {
        match self.peek() {
            Some((ind, t)) if ind == indent && (t == "-" || t.starts_with("- ")) => {
                self.seq(indent)
            }
            Some((ind, _)) if ind == indent => self.map(indent),
            _ => self.fail("expected a block"),
        }
    }

    fn seq(&mut self, indent: usize) -> Value {
        let mut out = Vec::new();
        while let Some((ind, t)) = self.peek() {
            if ind != indent || !t.starts_with("- ") {
                break;
            }
            let item = t[2..].to_string();
            if split_key(&item).is_some() {
                // `- key: ...` opens a mapping indented past the dash.
                self.lines[self.i].1 = format!("{}{item}", " ".repeat(indent + 2));
                out.push(self.map(indent + 2));
            } else {
                out.push(scalar(&item).unwrap_or_else(|| self.fail("bad scalar")));
                self.i += 1;
            }
        }
        Value::Array(out)
    }

    fn map(&mut self, indent: usize) -> Value {
        let mut out = Map::new();
        while let Some((ind, t)) = self.peek() {
            if ind != indent || t.starts_with("- ") {
                if ind > indent {
                    self.fail("unexpected indentation");
                }
                break;
            }
            let (key, value) = split_key(t).unwrap_or_else(|| self.fail("expected key: value"));
            let value = value.to_string();
            self.i += 1;
            let v = if value.is_empty() {
                match self.peek() {
                    Some((ind, _)) if ind > indent => self.block(ind),
                    Some((ind, t)) if ind == indent && t.starts_with("- ") => self.seq(indent),
                    _ => Value::Null,
                }
            } else {
                scalar(&value).unwrap_or_else(|| {
                    self.i -= 1;
                    self.fail("bad scalar")
                })
            };
            if out.insert(key.clone(), v).is_some() {
                self.i -= 1;
                self.fail(&format!("duplicate key {key}"));
            }
        }
        Value::Object(out)
    }
}

/// `key: value` / `key:` with a plain, double- or single-quoted key.
fn split_key(t: &str) -> Option<(String, &str)> {
    let (key, rest) = if t.starts_with('"') {
        let mut de = serde_json::Deserializer::from_str(t).into_iter::<String>();
        let k = de.next()?.ok()?;
        (k, &t[de.byte_offset()..])
    } else if let Some(r) = t.strip_prefix('\'') {
        let end = r.find('\'')?;
        (r[..end].to_string(), &r[end + 1..])
    } else {
        let end = t.find(':')?;
        let k = &t[..end];
        if k.is_empty() || k.contains(['"', '\'', '#', '{', '[', ' ']) {
            return None;
        }
        (k.to_string(), &t[end..])
    };
    let rest = rest.strip_prefix(':')?;
    if rest.is_empty() {
        Some((key, ""))
    } else {
        rest.strip_prefix(' ').map(|v| (key, v))
    }
}

/// A scalar: a JSON string, a single-quoted string, `true`/`false`, an integer, or a plain word (no
/// character that would make it something else in YAML).
fn scalar(t: &str) -> Option<Value> {
    if t.starts_with('"') {
        return serde_json::from_str::<String>(t).ok().map(Value::String);
    }
    if let Some(r) = t.strip_prefix('\'') {
        let inner = r.strip_suffix('\'')?;
        if inner.replace("''", "").contains('\'') {
            return None;
        }
        return Some(Value::String(inner.replace("''", "'")));
    }
    if let Ok(b) = t.parse::<bool>() {
        return Some(Value::Bool(b));
    }
    if let Ok(n) = t.parse::<u64>() {
        return Some(Value::from(n));
    }
    let plain = !t.is_empty()
        && !t.starts_with([
            '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`',
        ])
        && !t.contains(": ")
        && !t.contains(" #")
        && !matches!(t, "true" | "false" | "null" | "~");
    plain.then(|| Value::String(t.to_string()))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn rows(path: &Path) -> Vec<Map<String, Value>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks a release's card against its files; returns the front matter.
fn check_release(dir: &Path) -> Value {
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let fm = front_matter(&card);
    for key in [
        "license",
        "language",
        "task_categories",
        "annotations_creators",
        "language_creators",
        "source_datasets",
        "size_categories",
        "pretty_name",
    ] {
        assert!(fm.get(key).is_some(), "front matter lacks {key}: {fm:#}");
    }
    assert_eq!(strings(&fm["multilinguality"]), ["monolingual"]);
    assert_eq!(strings(&fm["language"]), ["ko"]);

    let infos = fm["dataset_info"]
        .as_array()
        .expect("dataset_info is a list");
    let configs = fm["configs"].as_array().expect("configs is a list");
    assert_eq!(infos.len(), configs.len());
    let mut total = 0u64;
    for (info, cfg) in infos.iter().zip(configs) {
        let task = info["config_name"].as_str().unwrap();
        assert_eq!(cfg["config_name"], task);
        let mut columns = BTreeSet::new();
        let mut all_rows = Vec::new();
        let mut split_names = Vec::new();
        for sp in info["splits"].as_array().unwrap() {
            let name = sp["name"].as_str().unwrap();
            split_names.push(name.to_string());
            let file = dir.join(format!("{task}/{name}.jsonl"));
            let r = rows(&file);
            assert_eq!(
                sp["num_examples"].as_u64(),
                Some(r.len() as u64),
                "{}: num_examples",
                file.display()
            );
            assert_eq!(
                sp["num_bytes"].as_u64(),
                Some(std::fs::metadata(&file).unwrap().len()),
                "{}: num_bytes",
                file.display()
            );
            total += r.len() as u64;
            for row in &r {
                columns.extend(row.keys().cloned());
            }
            all_rows.extend(r);
        }
        let files: Vec<(String, String)> = cfg["data_files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let path = d["path"].as_str().unwrap().to_string();
                assert!(dir.join(&path).is_file(), "{path} is not a file");
                (d["split"].as_str().unwrap().to_string(), path)
            })
            .collect();
        let want: Vec<(String, String)> = split_names
            .iter()
            .map(|s| (s.clone(), format!("{task}/{s}.jsonl")))
            .collect();
        assert_eq!(files, want, "configs data_files of {task}");

        check_features(info, &columns, &all_rows);
    }
    let size = fm["size_categories"][0].as_str().unwrap();
    let want = match total {
        0..1000 => "n<1K",
        1000..10000 => "1K<n<10K",
        _ => "10K<n<100K",
    };
    assert_eq!(size, want);
    fm
}

/// A config's declared features are exactly its rows' columns, each with a type, and every
/// value of a class-label column is one of its names.
fn check_features(info: &Value, columns: &BTreeSet<String>, all_rows: &[Map<String, Value>]) {
    let features = info["features"].as_array().expect("features declared");
    let declared: BTreeSet<String> = features
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(&declared, columns, "features are exactly the rows' columns");
    for f in features {
        let name = f["name"].as_str().unwrap();
        let Some(names) = f["dtype"].get("class_label").map(|c| &c["names"]) else {
            assert!(
                f.get("dtype").is_some_and(Value::is_string)
                    || f.get("struct").is_some()
                    || f.get("sequence").is_some()
                    || f.get("list").is_some(),
                "feature {name} has no type: {f}"
            );
            continue;
        };
        let names = names.as_object().unwrap();
        let classes: Vec<&str> = (0..names.len())
            .map(|i| names[&i.to_string()].as_str().unwrap())
            .collect();
        for row in all_rows {
            if let Some(v) = row.get(name).filter(|v| !v.is_null()) {
                assert!(
                    classes.contains(&v.as_str().unwrap()),
                    "{name}: {v} not in {classes:?}"
                );
            }
        }
    }
}

fn class_names(fm: &Value, column: &str) -> Option<Vec<String>> {
    fm["dataset_info"][0]["features"]
        .as_array()?
        .iter()
        .find(|f| f["name"] == column)
        .and_then(|f| f["dtype"].get("class_label"))
        .map(|c| {
            let n = c["names"].as_object().unwrap();
            (0..n.len())
                .map(|i| n[&i.to_string()].as_str().unwrap().to_string())
                .collect()
        })
}

#[test]
fn the_card_of_each_task_kind_parses_and_agrees_with_its_files() {
    let (_a, dir) = default_release("2");
    let fm = check_release(&dir);
    assert!(fm.get("task_ids").is_none(), "sentences have no HF task id");
    assert_eq!(strings(&fm["annotations_creators"]), ["no-annotation"]);
    assert_eq!(
        strings(&fm["source_datasets"]),
        ["original"],
        "the samples are written for the project"
    );

    let (_b, dir) = run_recipe("configs/klue-tc.toml", "2");
    let fm = check_release(&dir);
    assert_eq!(strings(&fm["task_ids"]), ["topic-classification"]);
    assert_eq!(
        class_names(&fm, "label").unwrap(),
        kcurate_core::recipe::TC_TOPICS
    );

    let (_c, dir) = run_recipe("configs/klue-nli.toml", "2");
    let fm = check_release(&dir);
    assert_eq!(strings(&fm["task_ids"]), ["natural-language-inference"]);
    assert_eq!(
        class_names(&fm, "gold_label").unwrap(),
        ["entailment", "neutral", "contradiction"]
    );
    assert_eq!(
        strings(&fm["language_creators"]),
        ["found", "machine-generated"]
    );

    let (_d, dir) = run_recipe("configs/klue-sts.toml", "2");
    let fm = check_release(&dir);
    assert_eq!(strings(&fm["task_ids"]), ["semantic-similarity-scoring"]);
    let labels = fm["dataset_info"][0]["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "labels")
        .unwrap();
    assert_eq!(labels["struct"][0]["name"], "label");
    assert_eq!(labels["struct"][0]["dtype"], "float64");
}

/// A copy of configs/klue-tc.toml with `edit` applied, written to a temporary directory.
fn edited_tc(edit: impl Fn(String) -> String) -> (tempfile::TempDir, String) {
    let text = std::fs::read_to_string(repo().join("configs/klue-tc.toml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("recipe.toml");
    std::fs::write(&p, edit(text)).unwrap();
    (tmp, p.to_str().unwrap().to_string())
}

#[test]
fn a_source_with_a_hub_id_is_an_extended_source_dataset() {
    let (_t, recipe) =
        edited_tc(|t| t.replacen("[[source]]\n", "[[source]]\nhf_id = \"klue\"\n", 1));
    let out = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "run",
        &recipe,
        "--out",
        out.path().to_str().unwrap(),
        "--root",
        &configs_dir(),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(&o));
    let dir = out.path().join("klue-tc-samples/1.0.0");
    let fm = check_release(&dir);
    assert_eq!(strings(&fm["source_datasets"]), ["extended|klue"]);
}

#[test]
fn a_label_outside_the_declared_classes_fails_the_run_naming_file_line_and_column() {
    let (_t, recipe) = edited_tc(|t| {
        t.replacen(
            "[task]\n",
            "[task]\nclass_labels = { label = [\"정치\"] }\n",
            1,
        )
    });
    let out = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "run",
        &recipe,
        "--out",
        out.path().to_str().unwrap(),
        "--root",
        &configs_dir(),
    ]);
    assert!(!matches!(o.status.code(), Some(0 | 3)), "the run passed");
    let err = stderr(&o);
    assert!(
        err.contains("tc/test.jsonl:1: label:")
            && err.contains("is not one of the task's classes (정치)"),
        "{err}"
    );
    assert!(!out.path().join("klue-tc-samples/1.0.0").exists());
}

#[test]
fn the_card_states_the_recipes_motivation_settings_and_limitations_in_plain_words() {
    let (_a, dir) = default_release("2");
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let section = |h: &str| {
        let start = card.find(h).unwrap_or_else(|| panic!("no {h} in\n{card}"));
        let rest = &card[start + h.len()..];
        rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
    };
    // The Motivation is the recipe's, not a fixed text.
    assert!(section("## Motivation").contains("so that a user can try the tool"));
    // Every threshold the recipe sets is shown, with the toxicity model's training data.
    let settings = section("## Filtering settings");
    for row in [
        "| toxicity | gender_bias | 0.5 |",
        "| toxicity | train | ../data-samples/toxicity/labeled.tsv |",
        "| dedup | threshold | 0.8 |",
        "| filter | min_chars | 5 |",
    ] {
        assert!(settings.contains(row), "{row} missing from\n{settings}");
    }
    let limits = section("## Limitations");
    assert!(limits.contains("Filtering is per sentence"), "{limits}");
    assert!(
        limits.contains("No rule's precision was measured"),
        "{limits}"
    );
    // No figure is shown as raw JSON, and counts of one are singular.
    let figures = section("## Key figures");
    assert!(
        !figures.contains('{') && figures.contains("contamination.dev_near"),
        "{figures}"
    );
    for wrong in ["1 PII spans", "1 decisions", "1 files", "1 sentences"] {
        let singular_count_in_plural = card.match_indices(wrong).any(|(at, _)| {
            !card[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit() || c == '.')
        });
        assert!(!singular_count_in_plural, "{wrong}");
    }
}

#[test]
fn check_refuses_a_shipped_motivation_copied_under_another_name_and_warns_without_one() {
    let work = tempfile::tempdir().unwrap();
    let default = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    let copy = default
        .replace("name = \"kcurate-samples\"", "name = \"my-comments\"")
        .replace(
            "../data-samples",
            &repo().join("data-samples").display().to_string(),
        )
        .replace("../rules", &repo().join("rules").display().to_string());
    let r = work.path().join("r.toml");
    std::fs::write(&r, &copy).unwrap();
    let o = kcurate(&["check", r.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("motivation") && stderr(&o).contains("configs/default.toml"),
        "{}",
        stderr(&o)
    );
    let start = copy.find("\n[release]").unwrap();
    std::fs::write(&r, &copy[..start]).unwrap();
    let o = kcurate(&["check", r.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no `[release] motivation`"),
        "{}",
        stderr(&o)
    );
}

/// The "## Annotations" section of a card, up to the next section.
fn annotations_section(dir: &Path) -> String {
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let start = card
        .find("## Annotations\n")
        .expect("an Annotations section");
    let rest = &card[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    rest[..end].to_string()
}

#[test]
fn the_card_states_alpha_with_its_interval_the_aggregator_the_annotators_and_the_next_round() {
    // Simulated votes: α and its seeded interval are in the manifest and the card, in words.
    let (_a, dir) = run_recipe("configs/klue-tc.toml", "2");
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let a = &m["metrics"]["tc"]["alpha"];
    let (lo, v, hi) = (
        a["low"].as_f64().unwrap(),
        a["value"].as_f64().unwrap(),
        a["high"].as_f64().unwrap(),
    );
    assert!(lo < v && v < hi, "{a}");
    assert_eq!(a["bootstrap"], 1000);
    assert_eq!(m["metrics"]["tc"]["annotators"]["count"], 3);
    let s = annotations_section(&dir);
    assert!(
        s.contains(&format!(
            "Krippendorff's α (nominal) = {v:.3}, 95% interval [{lo:.3}, {hi:.3}] (1000 bootstrap replicates of the items, seed 42)"
        )),
        "{s}"
    );
    assert!(
        s.contains("- Gold labels: majority: 2 of the annotators' topics."),
        "{s}"
    );
    assert!(
        s.contains("- Raters: 3 annotators; agreement with the gold topic: lowest "),
        "{s}"
    );
    assert!(s.contains("not written to a file of their own"), "{s}");
    assert!(!s.contains('{'), "no raw JSON: {s}");
    report_states_annotations(&dir, v, lo, hi);
    // The same run again gives the same bytes.
    let (_b, again) = run_recipe("configs/klue-tc.toml", "1");
    assert_eq!(annotations_section(&again), s);

    // People's scores, imported: the card names their file in the planning command.
    let (_s, sts) = run_recipe("configs/klue-sts.toml", "2");
    let o = kcurate(&["sts", "export", sts.to_str().unwrap(), "--annotators", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut filled = String::from("item\tannotator\tvalue\n");
    for line in stdout(&o).lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let base = f[0].trim_start_matches("sts-").parse::<usize>().unwrap() % 5;
        let v = if f[1] == "annotator05" {
            (base + 3) % 6
        } else {
            base
        };
        filled.push_str(&format!("{}\t{}\t{v}\n", f[0], f[1]));
    }
    let work = tempfile::tempdir().unwrap();
    let ann = work.path().join("scores.tsv");
    std::fs::write(&ann, filled).unwrap();
    let recipe = std::fs::read_to_string(repo().join("configs/klue-sts.toml"))
        .unwrap()
        .replace(
            "annotators = 7",
            &format!("annotators = 5\nannotations = \"{}\"", ann.display()),
        )
        .replace("name = \"klue-sts-samples\"", "name = \"klue-sts-people\"");
    let rp = work.path().join("people.toml");
    std::fs::write(&rp, recipe).unwrap();
    let (_c, dir2) = run_config_copy(rp.to_str().unwrap(), "2");
    let s = annotations_section(&dir2);
    assert!(s.contains("Krippendorff's α (interval) = "), "{s}");
    assert!(
        s.contains("- Gold labels: mean of the kept annotators' scores."),
        "{s}"
    );
    assert!(s.contains("1 annotator was left out as unreliable."), "{s}");
    assert!(
        s.contains(&format!(
            "`kcurate agree plan --input {} --level interval --target-width ",
            ann.display()
        )),
        "{s}"
    );
}

/// report.html shows the card's Annotations lines: α with its interval, the gold rule, the
/// raters.
fn report_states_annotations(dir: &std::path::Path, v: f64, lo: f64, hi: f64) {
    let report = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        report.contains(&format!(
            "<h2>Annotations</h2><ul id=\"annotations\"><li>Agreement (`tc` stage): Krippendorff's α (nominal) = {v:.3}, 95% interval [{lo:.3}, {hi:.3}]"
        )),
        "{report}"
    );
    assert!(
        report.contains("<li>Gold labels: majority: 2 of the annotators"),
        "{report}"
    );
    assert!(report.contains("<li>Raters: 3 annotators;"), "{report}");
}
