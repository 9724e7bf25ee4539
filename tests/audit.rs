//! Reading a release back: `why` on an item dropped at every stage kind of the sample
//! release, `diff` after removing one rule, and report.html's numbers against the manifest.

mod common;
use common::*;
use std::collections::BTreeSet;

fn decisions(dir: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("audit/decisions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn why_explains_a_drop_at_every_stage_kind() {
    let (_a, dir) = default_release("2");
    let ds = decisions(&dir);
    let stages: BTreeSet<String> = ds
        .iter()
        .filter(|d| d["action"] == "drop" && d["stage"] != "license")
        .map(|d| d["stage"].as_str().unwrap().to_string())
        .collect();
    for want in ["ingest", "noise", "filter", "dedup", "toxicity", "pii"] {
        assert!(
            stages.contains(want),
            "the sample release has no drop at {want}: {stages:?}"
        );
    }
    for stage in &stages {
        let d = ds
            .iter()
            .find(|d| d["action"] == "drop" && d["stage"] == stage.as_str())
            .unwrap();
        assert_why_explains_drop(&dir, d);
    }
    // A kept item ends in its split; --text finds it.
    let row: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(dir.join("sentences/train.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let o = kcurate(&[
        "why",
        dir.to_str().unwrap(),
        "--text",
        row["text"].as_str().unwrap(),
    ]);
    assert!(
        stdout(&o).contains("ended   sentences/train"),
        "{}",
        stdout(&o)
    );
}

/// `kcurate why` on the item of drop decision `d`: it ends dropped at the decision's stage by
/// its rule, and names the origin file:line.
fn assert_why_explains_drop(dir: &std::path::Path, d: &serde_json::Value) {
    let item = d["item"].as_str().unwrap();
    let o = kcurate(&["why", dir.to_str().unwrap(), item]);
    let out = stdout(&o);
    assert!(o.status.success(), "why {item}: {}", stderr(&o));
    assert!(
        out.contains(&format!(
            "ended   dropped at {} by {}",
            d["stage"].as_str().unwrap(),
            d["rule"].as_str().unwrap()
        )),
        "{out}"
    );
    assert!(
        out.contains(d["origin"].as_str().unwrap()),
        "why names the origin: {out}"
    );
}

/// A task builder's drop (NLI premise selection) in the sample NLI release: `why` names the
/// stage, the rule and the item's origin.
#[test]
fn why_explains_a_task_stage_drop() {
    let (_a, dir) = run_recipe("configs/klue-nli.toml", "2");
    let ds = decisions(&dir);
    let d = ds
        .iter()
        .find(|d| d["action"] == "drop" && d["stage"] == "nli_premise")
        .expect("the sample NLI release rejects some premises");
    assert_why_explains_drop(&dir, d);
}

#[test]
fn diff_names_the_items_a_removed_rule_had_edited() {
    let work = tempfile::tempdir().unwrap();
    let (_a, a) = default_release("1");
    let text = std::fs::read_to_string(repo().join("configs/default.toml"))
        .unwrap()
        .replace(
            "news_domains = [\"news\"]",
            "news_domains = [\"news\"]\ndisable = [\"noise.hashtag\"]",
        );
    let recipe = work.path().join("no-hashtag.toml");
    std::fs::write(&recipe, text).unwrap();
    let out = work.path().join("out");
    let o = kcurate(&[
        "run",
        recipe.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--root",
        &configs_dir(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{}",
        stderr(&o)
    );
    let b = out.join("kcurate-samples/1.0.0");
    let o = kcurate(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(
        d["recipe"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().contains("disable")),
        "{}",
        d["recipe"]
    );
    let changes = d["changes"].as_array().unwrap();
    assert!(!changes.is_empty());
    // Every change is explained by the removed rule, and every released sentence of a
    // document the rule had edited changed.
    for c in changes {
        let why: Vec<&str> = c["explained_by"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert!(why.iter().any(|w| w.contains("noise.hashtag")), "{c}");
    }
    let edited_docs: BTreeSet<String> = decisions(&a)
        .iter()
        .filter(|d| d["rule"] == "noise.hashtag")
        .map(|d| d["item"].as_str().unwrap().to_string())
        .collect();
    let changed_docs: BTreeSet<String> = changes
        .iter()
        .map(|c| {
            c["item"]
                .as_str()
                .unwrap()
                .split("-s")
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        changed_docs.is_subset(&edited_docs),
        "{changed_docs:?} vs {edited_docs:?}"
    );
}

#[test]
fn report_numbers_equal_the_manifest() {
    let (_a, dir) = default_release("1");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        !html.contains("<script") && !html.contains("http://") && !html.contains("https://"),
        "report.html must be self-contained"
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    // One funnel per unit, named; a stage sits in the funnel of the unit it receives, its
    // counts in another unit (split: documents in, sentences out) naming that unit.
    let funnel = |unit: &str| {
        let f = &html[html
            .find(&format!(
                "<table id=\"funnel-{unit}\" class=\"funnel\"><tr><th>stage</th><th>{unit} in</th>"
            ))
            .unwrap_or_else(|| panic!("no {unit} funnel"))..];
        f[..f.find("</table>").unwrap()].to_string()
    };
    let mut units = std::collections::BTreeSet::new();
    for s in m["stages"].as_array().unwrap() {
        let (ui, uo) = (
            s["unit_in"].as_str().unwrap_or(""),
            s["unit_out"].as_str().unwrap_or(""),
        );
        let unit = if ui.is_empty() { uo } else { ui };
        assert!(!unit.is_empty() || s["items_in"] == 0, "{s}");
        if unit.is_empty() {
            continue;
        }
        units.insert(unit.to_string());
        let cell = |u: &str, n: &serde_json::Value| {
            if u == unit {
                n.to_string()
            } else {
                format!("{n} {u}")
            }
        };
        let row = format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            s["name"].as_str().unwrap(),
            cell(ui, &s["items_in"]),
            cell(uo, &s["items_out"]),
            cell(ui, &s["dropped"])
        );
        assert!(funnel(unit).contains(&row), "report lacks {row}");
    }
    assert_eq!(
        units.into_iter().collect::<Vec<_>>(),
        ["documents", "sentences", "sources"],
        "the sample release counts sources (the licence gate), documents, sentences"
    );
    assert!(funnel("sentences").contains("<tr><td>split</td><td>"));
    for (task, splits) in m["splits"].as_object().unwrap() {
        for (split, n) in splits.as_object().unwrap() {
            assert!(html.contains(&format!("<tr><td>{task}/{split}</td><td>{n}</td></tr>")));
        }
    }
}

/// `kcurate audit --format json` (a column scan of decisions.parquet) counts every rule as
/// the manifest's books do, per stage and per source, and samples are seeded.
#[test]
fn audit_counts_equal_the_manifest_books() {
    let (_out, dir) = default_release("2");
    let audit_json = || {
        let o = kcurate(&[
            "audit",
            dir.to_str().unwrap(),
            "--format",
            "json",
            "--sample",
            "2",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let first = audit_json();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&first).unwrap();
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let mut from_audit: std::collections::BTreeMap<(String, String), [u64; 3]> = Default::default();
    for r in &rows {
        let e = from_audit
            .entry((
                r["stage"].as_str().unwrap().into(),
                r["rule"].as_str().unwrap().into(),
            ))
            .or_default();
        for (k, a) in ["drop", "edit", "flag"].iter().enumerate() {
            e[k] += r[*a].as_u64().unwrap();
        }
        let by = &m["by_source"][r["source"].as_str().unwrap()][r["rule"].as_str().unwrap()];
        assert_eq!(by["drop"], r["drop"], "{r}");
        assert!(r["samples"].as_array().unwrap().len() <= 2);
    }
    let mut from_manifest: std::collections::BTreeMap<(String, String), [u64; 3]> =
        Default::default();
    for st in m["stages"].as_array().unwrap() {
        for (rule, c) in st["rules"].as_object().unwrap() {
            from_manifest.insert(
                (st["name"].as_str().unwrap().into(), rule.clone()),
                [
                    c["drop"].as_u64().unwrap(),
                    c["edit"].as_u64().unwrap(),
                    c["flag"].as_u64().unwrap(),
                ],
            );
        }
    }
    assert_eq!(from_audit, from_manifest);
    assert_eq!(first, audit_json(), "seeded samples: the same output twice");
}

/// Every rule id a release cites is one `kcurate rules` lists (auditors look rules up
/// there): checked over the decisions of the sample recipes.
#[test]
fn every_cited_rule_is_listed() {
    let o = kcurate(&["rules"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listed: std::collections::BTreeSet<String> = stdout(&o)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect();
    let mut cited = std::collections::BTreeSet::new();
    for recipe in [
        "configs/default.toml",
        "configs/klue-nli.toml",
        "configs/klue-sts.toml",
        "configs/klue-tc.toml",
    ] {
        let (_out, dir) = run_recipe(recipe, "2");
        for l in std::fs::read_to_string(dir.join("audit/decisions.jsonl"))
            .unwrap()
            .lines()
        {
            let d: serde_json::Value = serde_json::from_str(l).unwrap();
            cited.insert(d["rule"].as_str().unwrap().to_string());
        }
    }
    assert!(cited.len() > 10, "{cited:?}");
    let is_listed = |r: &str| {
        listed.contains(r) || (r.starts_with("agree.flag_") && listed.contains("agree.flag_<flag>"))
    };
    let missing: Vec<&String> = cited.iter().filter(|r| !is_listed(r)).collect();
    assert!(
        missing.is_empty(),
        "cited but not listed by kcurate rules: {missing:?}"
    );
}

/// The report's label distribution (TC) and gold score histogram (STS) count the rows of
/// the split files as written.
#[test]
fn report_shows_labels_and_scores_of_the_written_rows() {
    let (_a, tc) = run_recipe("configs/klue-tc.toml", "1");
    let html = std::fs::read_to_string(tc.join("report.html")).unwrap();
    let rows = std::fs::read_to_string(tc.join("tc/train.jsonl")).unwrap();
    let mut per_label = std::collections::BTreeMap::<String, u64>::new();
    for l in rows.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        *per_label
            .entry(v["label"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let table = &html[html.find("<table id=\"labels\">").expect("labels table")..];
    let table = &table[..table.find("</table>").unwrap()];
    for (label, n) in &per_label {
        assert!(
            table.contains(&format!("<td class=\"t\">{label}</td><td>{n}</td>")),
            "train {label}: {n} rows not in the report's labels table"
        );
    }
    assert!(html.contains("<svg id=\"labels-train\""));

    let (_b, sts) = run_recipe("configs/klue-sts.toml", "1");
    let html = std::fs::read_to_string(sts.join("report.html")).unwrap();
    let dev = std::fs::read_to_string(sts.join("sts/validation.jsonl")).unwrap();
    let svg = &html[html
        .find("<svg id=\"scores-validation\"")
        .expect("dev score histogram")..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    let shown: u64 = svg
        .split("class=\"n\">")
        .skip(1)
        .map(|s| s[..s.find('<').unwrap()].parse::<u64>().unwrap())
        .sum();
    assert_eq!(
        shown,
        dev.lines().count() as u64,
        "every dev pair is in one bin"
    );
    assert_eq!(
        svg.matches("<rect").count(),
        10,
        "ten 0.5-wide bins on 0..5"
    );
}

/// An id with personal data in it is released under its safe id: a document whose own id is
/// an email under the pii stage's keyed pseudonym, a quarantined line of a file named like an
/// email under the file's release name (`s/#1`). `why` finds each both under the id the user
/// typed and under the id the release holds; without the key a pseudonymised id is not
/// found, and the answer says why.
#[test]
fn why_finds_an_item_under_the_id_typed_and_its_safe_id() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    std::fs::write(
        w.join("s@in.jsonl"),
        "{\"id\":\"hong@example.com\",\"text\":\"첫 문장이다. 둘째 문장도 있다.\"}\nnot json\n",
    )
    .unwrap();
    std::fs::write(
        w.join("r.toml"),
        "name = \"t\"\nversion = \"1\"\nseed = 1\n[[source]]\nid = \"s\"\npath = \"s@in.jsonl\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"x\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\nid = \"id\"\n[[stage]]\nname = \"split\"\n[[stage]]\nname = \"pii\"\n",
    )
    .unwrap();
    let out = w.join("out");
    let o = kcurate(&[
        "run",
        w.join("r.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_written(&o, "r.toml");
    let dir = out.join("t/1");
    let held: Vec<String> = decisions(&dir)
        .iter()
        .map(|d| d["item"].as_str().unwrap().to_string())
        .collect();
    let quarantined = held.iter().find(|i| i.ends_with(":2")).unwrap().clone();
    assert_ne!(
        quarantined, "s@s@in.jsonl:2",
        "the test needs a file name the release renames (it holds personal data)"
    );
    let train = std::fs::read_to_string(dir.join("sentences/train.jsonl")).unwrap();
    assert!(!train.contains("hong@example.com"), "{train}");
    for (typed, ended) in [
        ("s@s@in.jsonl:2", "dropped at ingest by ingest.malformed"),
        (
            quarantined.as_str(),
            "dropped at ingest by ingest.malformed",
        ),
        ("s-hong@example.com-s000", "sentences/train"),
        ("s-hong@example.com", "split into sentences, 2 released"),
    ] {
        // `--root`: where the recipe's paths resolve (the file's release name is found
        // through its source's listing).
        let o = kcurate(&[
            "why",
            dir.to_str().unwrap(),
            typed,
            "--root",
            w.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "why {typed}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(stdout(&o).contains(ended), "why {typed}: {}", stdout(&o));
    }
    let o = assert_cmd::Command::cargo_bin("kcurate")
        .unwrap()
        .current_dir(repo())
        .env_remove("KCURATE_PII_KEY")
        .args(["why", dir.to_str().unwrap(), "s-hong@example.com-s000"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("not found") && stdout(&o).contains("not looked up under its safe id"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn why_text_always_answers_a_part_an_original_and_a_text_nothing_matches() {
    let (_work, dir) = default_release("2");
    let why_text = |q: &str| kcurate(&["why", dir.to_str().unwrap(), "--text", q]);
    // Part of a released sentence ("주말 부산 날씨 어때?").
    let o = why_text("부산 날씨");
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("matched text inside a released item")
            && stdout(&o).contains("intents-0000006-s000"),
        "{}",
        stdout(&o)
    );
    // The original of a sentence whose phone number the pii stage pseudonymised
    // (data-samples/news/news.jsonl line 12): found through the pseudonym, with the key.
    let o = why_text("전화 010-2345-6789로 연락");
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("news-n011-s004")
            && stdout(&o).contains("as the recipe's pii stage pseudonymises it"),
        "{}",
        stdout(&o)
    );
    // Nothing near: the nearest released and dropped texts, their similarity, exit 1.
    let o = why_text("완전히 무관한 질의 문장입니다");
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("matched nearest released text (similarity")
            && out.contains("matched nearest dropped text (similarity")
            && out.contains("reaches 0.8")
            && out.contains("ended   sentences/")
            && out.contains("ended   dropped at"),
        "{out}"
    );
    let o = kcurate(&[
        "why",
        dir.to_str().unwrap(),
        "--text",
        "완전히 무관한 질의 문장입니다",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(2), "{v}");
}

/// The shipped-release cache builds into a directory of its own process and renames it into
/// place: another process's half-built copy is left alone, and a copy another process put in
/// place first is kept rather than failing the rename.
#[test]
fn a_cached_release_is_built_apart_and_a_copy_finished_first_is_kept() {
    let root = tempfile::tempdir().unwrap();
    let done = root.path().join("0123456789abcdef");
    let other = done.with_extension("partial-4294967295");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("half"), "another process is still writing").unwrap();
    build_once(&done, |partial| {
        assert_ne!(partial, other.as_path());
        std::fs::create_dir_all(partial).unwrap();
        std::fs::write(partial.join("ours"), "ours").unwrap();
        // Another process finishes the same release meanwhile.
        std::fs::create_dir_all(&done).unwrap();
        std::fs::write(done.join("theirs"), "theirs").unwrap();
    });
    assert!(other.join("half").is_file(), "the other build is untouched");
    assert_eq!(
        std::fs::read_to_string(done.join("theirs")).unwrap(),
        "theirs"
    );
    let left: Vec<_> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "no partial of ours is left: {left:?}");
    build_once(&root.path().join("fresh"), |partial| {
        std::fs::create_dir_all(partial).unwrap();
        std::fs::write(partial.join("ours"), "ours").unwrap();
    });
    assert!(root.path().join("fresh/ours").is_file());
}
