//! Property tests: the splitter never loses, adds or reorders characters; normalisation
//! is idempotent; every stage conserves items (in = kept + dropped).

use kcurate_core::{Action, CorpusStage, Out, Record, Stage};
use kcurate_text::dedup::NearConfig;
use kcurate_text::normalize::{NormalizeOptions, normalize};
use kcurate_text::stages::{
    dedup::DedupStage, filter::FilterStage, noise::NoiseStage, normalize::NormalizeStage,
    split::SplitStage,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// Text built from the pieces the splitter cares about.
fn korean_text() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "좋다",
        "했다",
        "재밌어요",
        "저는요",
        "다",
        "다시",
        "추천함",
        "좋음",
        "할듯",
        "그런데",
        "3.5",
        "42",
        "B.C.",
        "Dr.",
        "p.",
        "Z.",
        "1.",
        "ㄱ.",
        "ㅋㅋ",
        "ㅠㅠ",
        "ᅲᅲ",
        "ᆢ",
        "^^",
        ";;",
        "~",
        "♥",
        "😊",
        ".",
        "..",
        "...",
        "…",
        "!",
        "?",
        "!!",
        "?!",
        ",",
        "\"",
        "“",
        "”",
        "'",
        "‘",
        "’",
        "(",
        ")",
        "[3]",
        "[",
        "]",
        "「",
        "」",
        "라고",
        "https://example.com/a.b?c=1",
        "help@example.co.kr",
        " ",
        " ",
        " ",
        "  ",
        "\n",
        "\t",
        "\u{00A0}",
        "\u{200B}",
        "\r\n",
        "a",
        "This is great.",
        "영화",
        "입니다",
        "까",
        "네",
        "죠",
        "\u{3000}",
        "Ａ",
        "\u{1112}\u{1161}\u{11AB}",
        "\u{0007}",
        "漢字",
        "カナ",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![korean_text(), any::<String>()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn splitting_keeps_every_char_in_order(t in any_text()) {
        let r = kcurate_text::split_sentences(&t);
        let mut rebuilt = String::new();
        let mut last = 0usize;
        for &(s, e) in &r {
            prop_assert!(s >= last && s < e && e <= t.len());
            let sep = &t[last..s];
            prop_assert!(sep.chars().all(char::is_whitespace), "separator {:?}", sep);
            let piece = &t[s..e];
            prop_assert_eq!(piece.trim(), piece);
            rebuilt.push_str(sep);
            rebuilt.push_str(piece);
            last = e;
        }
        prop_assert!(t[last..].chars().all(char::is_whitespace));
        rebuilt.push_str(&t[last..]);
        prop_assert_eq!(rebuilt, t.clone());
        // Deterministic.
        prop_assert_eq!(kcurate_text::split_sentences(&t), r);
    }

    #[test]
    fn normalisation_is_idempotent(t in any_text(), fw in any::<bool>(), nl in any::<bool>()) {
        let o = NormalizeOptions { fullwidth_ascii: fw, keep_newlines: nl, ..Default::default() };
        let (once, _) = normalize(&t, &o);
        let (twice, changes) = normalize(&once, &o);
        prop_assert_eq!(&twice, &once);
        prop_assert!(changes.is_empty(), "{:?}", changes);
        // Compatibility jamo survive.
        let jamo = |s: &str| s.chars().filter(|c| ('\u{3131}'..='\u{318E}').contains(c)).count();
        prop_assert_eq!(jamo(&once), jamo(&t));
    }

    #[test]
    fn record_stages_conserve_items(texts in prop::collection::vec(any_text(), 0..12)) {
        let recs: Vec<Record> = texts.iter().enumerate().map(|(i, t)| Record {
            id: format!("d{i}"),
            source: if i % 2 == 0 { "news".into() } else { "reviews".into() },
            text: t.clone(),
            ..Default::default()
        }).collect();
        let rules = kcurate_text::noise::NoiseRules::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/noise.toml"))).expect("rules");
        let filter: kcurate_text::stages::filter::FilterConfig = toml::from_str("min_chars = 2\nmax_chars = 50\nmin_hangul_share = 0.3\nmax_repeat = 4").expect("cfg");
        let stages: Vec<(&str, Box<dyn Stage>)> = vec![
            ("normalize", Box::new(NormalizeStage::new(NormalizeOptions::default()))),
            ("noise", Box::new(NoiseStage::new(rules, BTreeSet::from(["news".to_string()])))),
            ("split", Box::new(SplitStage)),
            ("filter", Box::new(FilterStage::new(filter))),
        ];
        let mut cur = recs;
        for (name, st) in &stages {
            let mut next = Vec::new();
            for rec in cur {
                let id = rec.id.clone();
                let mut out = Out::new(*name);
                st.apply(rec, &mut out);
                let (kept, dec, dropped) = out.into_parts();
                let drops = dec.iter().filter(|d| d.action == Action::Drop).count() as u64;
                prop_assert_eq!(drops, dropped);
                // Each input is kept (by id or as a named parent) xor dropped once.
                let out_n = kept.iter().filter(|k| k.id == id || k.parents.contains(&id)).count();
                prop_assert_eq!(kept.len(), out_n);
                prop_assert!((out_n > 0) != (dropped == 1), "{}: kept {} dropped {}", name, out_n, dropped);
                prop_assert!(dropped <= 1);
                next.extend(kept);
            }
            cur = next;
        }
        let n = cur.len() as u64;
        let mut out = Out::new("dedup");
        DedupStage::new(7, true, Some(NearConfig::default())).run(cur, &mut out);
        let (kept, _, dropped) = out.into_parts();
        prop_assert_eq!(kept.len() as u64 + dropped, n);
    }
}
