//! Properties of pseudonyms: detected as the same type (so the validator passes), same
//! length, consistent for one key, different under another key.

use kcurate_pii::pseudo::{PiiKey, pseudonymise, valid_as};
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
