//! Properties of pseudonyms: detected as the same type (so the validator passes), same
//! length, consistent for one key, different under another key; no string of any type
//! makes the pseudonymiser panic, and a value keeps its spelling.

use kcurate_pii::detect::{OPTIONAL_TYPES, TYPES};
use kcurate_pii::pseudo::{PiiKey, fingerprint, pseudonymise, valid_as};
use kcurate_pii::validate::{luhn_digit, rrn_check};
use proptest::prelude::*;

fn rrn_strategy() -> impl Strategy<Value = String> {
    (1950u32..2000, 1u32..13, 1u32..29, 1u32..3, 0u32..1_000_000).prop_map(|(y, m, d, g, tail)| {
        let mut digits: Vec<u32> = format!("{:02}{m:02}{d:02}{g}{tail:05}", y % 100)
            .chars()
            .map(|c| c.to_digit(10).unwrap())
            .collect();
        digits.truncate(12);
        digits.push(rrn_check(&digits));
        let s: String = digits
            .iter()
            .map(|d| char::from_digit(*d, 10).unwrap())
            .collect();
        format!("{}-{}", &s[..6], &s[6..])
    })
}

fn card_strategy() -> impl Strategy<Value = String> {
    (0u64..100_000_000_000_000u64).prop_map(|n| {
        let mut d: Vec<u32> = format!("4{n:014}")
            .chars()
            .map(|c| c.to_digit(10).unwrap())
            .collect();
        d.push(luhn_digit(&d));
        let s: String = d
            .iter()
            .map(|x| char::from_digit(*x, 10).unwrap())
            .collect();
        format!("{}-{}-{}-{}", &s[..4], &s[4..8], &s[8..12], &s[12..])
    })
}

fn phone_strategy() -> impl Strategy<Value = String> {
    (2000u32..10000, 0u32..10000).prop_map(|(a, b)| format!("010-{a:04}-{b:04}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn rrn_pseudonyms_stay_valid_rrns(v in rrn_strategy(), k in "[a-z]{4,12}") {
        prop_assume!(valid_as("rrn", &v));
        let key = PiiKey::new(k.as_bytes().to_vec()).unwrap();
        let p = pseudonymise(&key, "rrn", &v);
        prop_assert!(valid_as("rrn", &p), "{} → {}", v, p);
        prop_assert_eq!(p.len(), v.len());
        prop_assert_eq!(&p, &pseudonymise(&key, "rrn", &v));
    }

    #[test]
    fn card_pseudonyms_pass_luhn(v in card_strategy(), k in "[a-z]{4,12}") {
        let key = PiiKey::new(k.as_bytes().to_vec()).unwrap();
        let p = pseudonymise(&key, "card", &v);
        prop_assert!(valid_as("card", &p), "{} → {}", v, p);
        prop_assert_eq!(&p[4..5], "-");
    }

    #[test]
    fn phone_mapping_changes_with_the_key(v in phone_strategy()) {
        let a = pseudonymise(&PiiKey::new(b"key-a".to_vec()).unwrap(), "phone", &v);
        let b = pseudonymise(&PiiKey::new(b"key-b".to_vec()).unwrap(), "phone", &v);
        prop_assert!(valid_as("phone", &a) && valid_as("phone", &b));
        prop_assert!(a.starts_with("010-"));
        prop_assert_ne!(a, b);
    }
}

/// Any string, weighted towards the characters a reading changes.
fn spelled() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[0-9]{1,6}",
        "[a-z]{1,6}",
        "[０-９ａ-ｚＡ-Ｚ]{1,4}",
        Just("＠".to_string()),
        Just("@".to_string()),
        Just("-".to_string()),
        Just("－".to_string()),
        Just(".".to_string()),
        Just("．".to_string()),
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just("\u{AD}".to_string()),
        Just("\u{200B}".to_string()),
        "&#[0-9]{1,3};",
        "&#x[0-9A-F]{1,4};",
        "&(commat|hyphen|period|amp|shy);",
        "\\((at|dot)\\)",
        "[가-힣]{1,3}",
        "\\PC{1,2}",
    ];
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(piece, 0..12).prop_map(|v| v.concat()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The pseudonymiser takes any string as a value of any type (an email without `@`, a
    /// registration number with three digits, full-width forms, references): no panic, and
    /// the same answer every time.
    #[test]
    fn no_string_of_any_type_panics_the_pseudonymiser(
        v in spelled(),
        k in 0..TYPES.len() + OPTIONAL_TYPES.len(),
    ) {
        let key = PiiKey::new(b"props".to_vec()).unwrap();
        let kind = TYPES.iter().chain(OPTIONAL_TYPES.iter()).nth(k).unwrap();
        let p = pseudonymise(&key, kind, &v);
        prop_assert_eq!(&p, &pseudonymise(&key, kind, &v));
        let _ = fingerprint(&key, kind, &v);
    }

    /// Detecting and pseudonymising every span of any text never panics.
    #[test]
    fn no_text_panics_detect_and_pseudonymise(t in spelled()) {
        let key = PiiKey::new(b"props".to_vec()).unwrap();
        let chars: Vec<char> = t.chars().collect();
        for s in kcurate_pii::detect(&t) {
            let v: String = chars[s.start..s.end].iter().collect();
            let _ = pseudonymise(&key, &s.kind, &v);
        }
    }
}

/// A full-width `＠` (which once panicked the email pseudonymiser), character references
/// and invisible characters: the pseudonym is spelled as the value was, and one value has
/// one pseudonym and one fingerprint however it is spelled.
#[test]
fn a_pseudonym_keeps_the_spelling_and_spellings_share_it() {
    let key = PiiKey::new(b"props".to_vec()).unwrap();
    let p = pseudonymise(&key, "email", "hong＠example.com");
    assert!(
        p.contains('＠') && p.ends_with(".com") && !p.starts_with("hong"),
        "{p}"
    );
    let plain = pseudonymise(&key, "phone", "010-2345-6789");
    let entity = pseudonymise(&key, "phone", "010&#45;2345&#45;6789");
    assert_eq!(entity, plain.replace('-', "&#45;"));
    let shy = pseudonymise(&key, "phone", "010-23\u{AD}45-6789");
    assert_eq!(shy.replace('\u{AD}', ""), plain);
    for (kind, a, b) in [
        ("phone", "010-2345-6789", "010&#45;2345&#45;6789"),
        ("email", "hong@example.com", "hong(at)example.com"),
        ("rrn", "600216-1013884", "600216-\n1013884"),
    ] {
        assert_eq!(
            fingerprint(&key, kind, a),
            fingerprint(&key, kind, b),
            "{b:?}"
        );
    }
}
