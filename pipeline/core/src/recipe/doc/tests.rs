//! The reference holds to the structs: every key serde knows is documented, every
//! documented example parses, and every documented default is serde's.

use super::*;
use crate::recipe::{
    AuditConfig, FieldMap, Limits, Recipe, ReleaseConfig, SourceConfig, SplitConfig, SplitNames,
    TaskConfig,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Lines of a minimal table of `T`, with `example` replacing the line of its key.
fn table_text(base: &[&str], example: Option<&str>) -> String {
    let key_of = |l: &str| l.split('=').next().unwrap_or("").trim().to_string();
    let mut lines: Vec<String> = base
        .iter()
        .filter(|l| example.is_none_or(|e| key_of(l) != key_of(e)))
        .map(|l| l.to_string())
        .collect();
    lines.extend(example.map(str::to_string));
    lines.join("\n")
}

/// Checks `header`'s documentation against `T` parsed from `base` (its required keys).
fn holds_to<T: DeserializeOwned + Serialize>(header: &str, base: &[&str], elsewhere: &[&str]) {
    let docs = keys_of(header);
    assert!(!docs.is_empty(), "{header}: no documentation");
    let minimal: T = toml::from_str(&table_text(base, None))
        .unwrap_or_else(|e| panic!("{header}: minimal table: {e}"));
    let serialised = toml::Table::try_from(&minimal).unwrap();
    for key in serialised.keys() {
        assert!(
            elsewhere.contains(&key.as_str()) || docs.iter().any(|d| d.key == key),
            "{header}: `{key}` is not documented"
        );
    }
    for d in docs {
        let parsed = toml::from_str::<T>(&table_text(base, Some(d.example)));
        assert!(
            parsed.is_ok(),
            "{header}: example {:?}: {:?}",
            d.example,
            parsed.err()
        );
        assert!(
            d.example.starts_with(&format!("{} =", d.key)),
            "{header}: example of {} sets another key",
            d.key
        );
        match d.default {
            REQUIRED => {
                let without = base
                    .iter()
                    .filter(|l| !l.starts_with(&format!("{} =", d.key)))
                    .copied()
                    .collect::<Vec<_>>();
                assert!(
                    toml::from_str::<T>(&without.join("\n")).is_err(),
                    "{header}: {} is documented as required but may be left out",
                    d.key
                );
            }
            NONE => assert!(
                !serialised.contains_key(d.key),
                "{header}: {} is documented as not set by default",
                d.key
            ),
            value => {
                let want: toml::Table = toml::from_str(&format!("v = {value}"))
                    .unwrap_or_else(|e| panic!("{header}: default of {}: {e}", d.key));
                assert_eq!(
                    serialised.get(d.key),
                    want.get("v"),
                    "{header}: default of {}",
                    d.key
                );
            }
        }
    }
}

const SOURCE_BASE: &[&str] = &[
    "id = \"a\"",
    "path = \"x.jsonl\"",
    "format = \"jsonl\"",
    "fields = { text = \"text\" }",
    "domain = \"news\"",
    "style = \"formal\"",
];

#[test]
fn every_key_of_every_table_is_documented_with_serdes_default() {
    holds_to::<Recipe>(
        "",
        &["name = \"t\"", "version = \"1\"", "seed = 1", "source = []"],
        &[
            "source", "stage", "task", "split", "audit", "limits", "release",
        ],
    );
    holds_to::<SourceConfig>("[[source]]", SOURCE_BASE, &[]);
    holds_to::<FieldMap>("[source.fields]", &["text = \"t\""], &[]);
    holds_to::<Limits>("[limits]", &[], &[]);
    holds_to::<SplitConfig>("[split]", &[], &[]);
    holds_to::<SplitNames>("[split.names]", &[], &[]);
    holds_to::<TaskConfig>("[task]", &["name = \"sentences\""], &[]);
    holds_to::<AuditConfig>("[audit]", &[], &[]);
    holds_to::<ReleaseConfig>("[release]", &[], &[]);
}

#[test]
fn the_markdown_holds_every_table_key_and_stage() {
    let md = render_markdown(&[("normalize", "What: NFC.")]);
    for t in TABLES {
        for key in t.keys {
            assert!(md.contains(&format!("| `{}` |", key.key)), "{}", key.key);
        }
    }
    assert!(md.contains("### normalize\n\nWhat: NFC."));
    assert!(render_summary().contains("quote"));
}
