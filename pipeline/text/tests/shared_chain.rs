//! The whole text chain (normalize → noise → split → filter → dedup), built from recipe
//! tables through each stage's `ENTRY`, over real corpora read by kcurate-core's ingest:
//! NSMC reviews (colloquial) and Korean Wikinews (news). Checks conservation per stage and
//! prints per-rule counts.

use kcurate_core::recipe::SourceConfig;
use kcurate_core::{Action, BuildCtx, BuiltStage, Out, Record, SourceInfo, StageEntry};
use kcurate_io::ingest::{Item, read_source};
use std::collections::BTreeMap;
use std::path::PathBuf;

use kcurate_core::shared_dir as shared;

const SOURCES: &str = r#"
[[source]]
id = "nsmc"
path = "corpora/nsmc/raw"
format = "json"
domain = "reviews"
style = "colloquial"
limit = 20000
[source.fields]
text = "review"
id = "review_id"

[[source]]
id = "wikinews"
path = "corpora/wikinews/wikinews.csv"
format = "csv"
domain = "news"
style = "formal"
[source.fields]
text = "내용"
date = "작성일"
"#;

/// The chain in order: each stage's `ENTRY` (the binary's `STAGES` table is the one list
/// of all stages; this test names the text ones it chains) and its recipe settings.
fn chain() -> [(&'static StageEntry, &'static str); 5] {
    use kcurate_text::stages::{dedup, filter, noise, normalize, split};
    [
        (&normalize::ENTRY, ""),
        (&noise::ENTRY, ""),
        (&split::ENTRY, ""),
        (
            &filter::ENTRY,
            "min_chars = 4\nmax_chars = 300\nmin_hangul_share = 0.5\nmax_repeat = 10",
        ),
        (&dedup::ENTRY, "threshold = 0.8"),
    ]
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn chain_over_nsmc_and_wikinews_conserves_items() {
    #[derive(serde::Deserialize)]
    struct S {
        source: Vec<SourceConfig>,
    }
    let srcs: S = toml::from_str(SOURCES).expect("sources");
    let root = shared();
    let mut ctx = BuildCtx {
        seed: 42,
        root: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."),
        ..Default::default()
    };
    for s in &srcs.source {
        ctx.sources.insert(
            s.id.clone(),
            SourceInfo {
                id: s.id.clone(),
                domain: s.domain.clone(),
                style: s.style.as_str().into(),
                license: String::new(),
            },
        );
    }
    let mut recs: Vec<Record> = Vec::new();
    for s in &srcs.source {
        for item in read_source(s, &root) {
            match item {
                Item::Record(r) => recs.push(*r),
                Item::Malformed(m) => println!("malformed: {m}"),
            }
        }
    }
    let n_docs = recs.len();
    assert!(n_docs > 20000, "{n_docs} documents read");

    let mut counts: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    for (entry, settings) in chain() {
        let name = entry.name.to_string();
        let table: toml::Table = toml::from_str(settings).expect("settings");
        let built = (entry.build)(&table, &mut ctx).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n_in = recs.len();
        let in_ids: Vec<String> = recs.iter().map(|r| r.id.clone()).collect();
        let mut out = Out::new(name.clone());
        match &built {
            BuiltStage::Record(s) => {
                for r in recs {
                    s.apply(r, &mut out);
                }
            }
            BuiltStage::Corpus(s) => s.run(recs, &mut out),
        }
        let (kept, dec, dropped) = out.into_parts();
        for d in &dec {
            if (d.rule.as_str().starts_with("noise.") || d.rule.as_str() == "normalize.nfc")
                && let Some(sp) = &d.span
            {
                println!("  {} {} {:?} -> {:?}", d.rule, d.item, sp.before, sp.after);
            }
            let c = counts.entry(d.rule.to_string()).or_default();
            c[usize::from(d.action == Action::Edit)] += 1;
        }
        // Conservation: every input is kept (itself or as a named parent) or dropped once.
        let mut outs: std::collections::BTreeSet<&str> = kept
            .iter()
            .flat_map(|k| k.parents.iter().map(String::as_str))
            .collect();
        outs.extend(kept.iter().map(|k| k.id.as_str()));
        let n_out = in_ids
            .iter()
            .filter(|id| outs.contains(id.as_str()))
            .count();
        assert_eq!(n_out as u64 + dropped, n_in as u64, "{name}: conservation");
        println!("{name}: in {n_in} out {} dropped {dropped}", kept.len());
        recs = kept;
    }
    for (rule, [drop, edit]) in &counts {
        println!("{rule}: drop {drop} edit {edit}");
    }
    assert!(counts.contains_key("dedup.exact"));
    assert!(counts.contains_key("normalize.whitespace"));
    assert!(recs.len() > 20000);
    // News rules stay off NSMC.
    assert!(!recs.iter().any(|r| r.source == "nsmc" && r.text.is_empty()));
}
