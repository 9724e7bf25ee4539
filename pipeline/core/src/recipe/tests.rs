use super::*;
use std::collections::BTreeMap;

const GOOD: &str = r#"
name = "t"
version = "1"
seed = 7

[[source]]
id = "a"
path = "x.jsonl"
format = "jsonl"
license = "CC0-1.0"
domain = "news"
style = "formal"
[source.fields]
text = "text"
"#;

#[test]
fn parses_a_minimal_recipe() {
    let r = Recipe::parse("r.toml", GOOD).unwrap();
    assert_eq!(r.sources[0].format, Format::Jsonl);
    assert_eq!(r.on_error, OnError::Quarantine);
    assert_eq!(r.task.name, "sentences");
}

#[test]
fn card_metadata_defaults_by_task_and_recipe_overrides() {
    let r = Recipe::parse("r.toml", GOOD).unwrap();
    assert_eq!(r.sources[0].hf_id, None);
    assert!(r.task.hf_task_ids().is_empty());
    assert_eq!(r.task.hf_annotations_creators(), ["no-annotation"]);
    assert!(r.task.closed_labels().is_empty());
    let nli = format!("{GOOD}\n[task]\nname = \"nli\"\n");
    let r = Recipe::parse("r.toml", &nli).unwrap();
    assert_eq!(r.task.hf_task_ids(), ["natural-language-inference"]);
    assert_eq!(
        r.task.hf_language_creators(),
        ["found", "machine-generated"]
    );
    assert_eq!(r.task.closed_labels()["gold_label"], NLI_LABELS);
    let own = GOOD.replace("style = \"formal\"", "style = \"formal\"\nhf_id = \"klue\"")
        + "\n[task]\nname = \"nli\"\ntask_ids = [\"multi-class-classification\"]\n\
               annotations_creators = [\"crowdsourced\"]\nclass_labels = { verdict = [\"yes\", \"no\"] }\n";
    let r = Recipe::parse("r.toml", &own).unwrap();
    assert_eq!(r.sources[0].hf_id.as_deref(), Some("klue"));
    assert_eq!(r.task.hf_task_ids(), ["multi-class-classification"]);
    assert_eq!(r.task.hf_annotations_creators(), ["crowdsourced"]);
    assert_eq!(
        r.task.closed_labels(),
        BTreeMap::from([(
            "verdict".to_string(),
            vec!["yes".to_string(), "no".to_string()]
        )])
    );
}

#[test]
fn unknown_key_names_file_line_and_key() {
    let bad = GOOD.replace("format = \"jsonl\"", "format = \"jsonl\"\nfromat = 1");
    let e = Recipe::parse("r.toml", &bad).unwrap_err();
    assert_eq!(e.path, "r.toml");
    assert_eq!(e.line, 10, "{e}");
    assert!(e.to_string().contains("fromat"), "{e}");
}

#[test]
fn wrong_type_names_the_line() {
    let bad = GOOD.replace("seed = 7", "seed = \"seven\"");
    let e = Recipe::parse("r.toml", &bad).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.to_string().contains("seed"), "{e}");
}

/// NaN and infinities pass a `x < 0` test: the error names the fraction's line.
#[test]
fn split_fractions_must_be_finite() {
    for (bad, key) in [
        ("train = nan\ndev = 0.1\ntest = 0.1", "split.train"),
        ("train = 0.8\ndev = inf\ntest = 0.1", "split.dev"),
    ] {
        let text = format!("{GOOD}\n[split]\n{bad}\n");
        let e = Recipe::parse("r.toml", &text).unwrap_err();
        assert_eq!(e.key, key, "{e}");
        let want = text
            .lines()
            .position(|l| l.starts_with(key.trim_start_matches("split.")))
            .unwrap()
            + 1;
        assert_eq!(e.line, want, "{e}");
    }
}

#[test]
fn split_must_sum_to_one() {
    let bad = format!("{GOOD}\n[split]\ntrain = 0.5\ndev = 0.1\ntest = 0.1\n");
    assert!(Recipe::parse("r.toml", &bad).is_err());
}

#[test]
fn split_errors_name_the_line_of_the_fraction() {
    let bad = format!("{GOOD}\n[split]\ntrain = 0.5\ndev = -0.1\ntest = 0.6\n");
    let e = Recipe::parse("r.toml", &bad).unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (18, "split.dev"), "{e}");
    assert!(e.message.contains("got -0.1"), "{e}");
    let bad = format!("{GOOD}\n[split]\ntrain = 0.5\ndev = 0.1\ntest = 0.1\n");
    let e = Recipe::parse("r.toml", &bad).unwrap_err();
    assert_eq!(e.line, 17, "{e}");
}

#[test]
fn split_names_default_to_validation_and_are_configurable() {
    let r = Recipe::parse("r.toml", GOOD).unwrap();
    assert_eq!(r.split.names.name("dev"), "validation");
    assert_eq!(r.split.names.role("validation"), Some("dev"));
    assert_eq!(r.split.names.name("extra"), "extra");
    let kept = format!("{GOOD}\n[split]\nnames = {{ dev = \"dev\" }}\n");
    let r = Recipe::parse("r.toml", &kept).unwrap();
    assert_eq!(
        SplitNames::ROLES.map(|x| r.split.names.name(x)),
        ["train", "dev", "test"]
    );
    // HF's name for the held-out share is the same key as `dev`.
    let hf = format!("{GOOD}\n[split]\ntrain = 0.7\nvalidation = 0.2\ntest = 0.1\n");
    assert_eq!(Recipe::parse("r.toml", &hf).unwrap().split.dev, 0.2);
    let table = format!("{GOOD}\n[split.names]\ntrain = \"x\"\ntest = \"x\"\n");
    let e = Recipe::parse("r.toml", &table).unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (17, "split.names.train"), "{e}");
    assert!(
        e.message.contains("the test split has this name too"),
        "{e}"
    );
    let bad = format!("{GOOD}\n[split]\nnames = {{ dev = \"../x\" }}\n");
    let e = Recipe::parse("r.toml", &bad).unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (17, "split.names.dev"), "{e}");
}

#[test]
fn names_that_would_leave_the_release_are_refused_at_their_line() {
    for (from, to, line, key) in [
        ("name = \"t\"", "name = \"..\"", 2, "name"),
        ("version = \"1\"", "version = \"../victim\"", 3, "version"),
        (
            "seed = 7",
            "seed = 7\n[task]\nname = \"../../x\"",
            6,
            "task.name",
        ),
    ] {
        let e = Recipe::parse("r.toml", &GOOD.replacen(from, to, 1)).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (line, key), "{e}");
    }
    for ok in ["1.0.0", "klue-sts", "v2_rc+1"] {
        assert!(check_path_component(ok).is_ok(), "{ok}");
    }
    for bad in ["", ".", "..", ".tmp-1", "a/b", "a\\b", "a b", "C:"] {
        assert!(check_path_component(bad).is_err(), "{bad:?}");
    }
}
