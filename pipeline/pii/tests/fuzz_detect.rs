//! Fuzz targets (proptest, stable Rust) for the PII detector: any text, and text built from
//! near-misses of every PII shape (phones, cards, RRNs, emails, addresses, user ids) with
//! separators, full-width forms, character references, soft hyphens, zero-width characters,
//! line breaks, written-out `@` and `.`, and Hangul around them. Promised: spans within the text
//! (character offsets), non-empty, sorted, non-overlapping, of a known type; the same
//! answer every time; pseudonymising the spans never panics.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use kcurate_pii::{TYPES, detect};
use proptest::prelude::*;

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::fuzz;

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "01[016789]-?[0-9]{3,4}-?[0-9]{4}",
        "0[2-6][0-9]?[- )][0-9]{3,4}[- ][0-9]{4}",
        "[0-9]{6}-[1-4][0-9]{6}",
        "[0-9]{4}[- ][0-9]{4}[- ][0-9]{4}[- ][0-9]{4}",
        "[a-z0-9._+-]{1,8}@[a-z0-9-]{1,8}\\.[a-z]{2,3}",
        "@[a-zA-Z0-9_]{1,10}",
        "[a-z]{2,6}\\*{2,4}",
        "[0-9]{1,12}",
        "[０-９]{1,11}",
        "[가-힣]{1,5}(시|구|동|로|길) ?[0-9]{1,3}(-[0-9]{1,3})?",
        "[가-힣 ]{1,8}",
        Just(" ".to_string()),
        Just("-".to_string()),
        Just(".".to_string()),
        Just("@".to_string()),
        Just(":".to_string()),
        Just("\n".to_string()),
        Just("\u{ff0d}".to_string()),
        Just("☎".to_string()),
        "\\PC{1,4}",
        // Spellings a reader sees through: references, invisible characters, wrapped lines,
        // full-width forms and the written-out `@` and `.` of an email.
        "&#(4[56]|64|[0-9]{1,7}|x[0-9A-Fa-f]{1,6});",
        "&(amp|commat|period|hyphen|ndash|minus|shy|nbsp|zwsp|lpar|rpar)?;?",
        "[\u{AD}\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}\u{A0}]",
        "[-\u{2010}\u{FF0D}]?[ ]?\r?\n[ ]?[-\u{FF0D}]?",
        " ?(@|＠|\\((at|AT|dot)\\)|\\[(at|dot)\\]) ?",
        "[ａ-ｚＡ-Ｚ０-９＠．－（）]{1,8}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(piece(), 0..24).prop_map(|v| v.concat()),
    ]
}

#[test]
fn fuzz_pii_detect() {
    let key = kcurate_pii::pseudo::PiiKey::new(b"fuzz-key".to_vec()).unwrap();
    fuzz("pii.detect", 512, text(), |t| {
        let spans = detect(&t);
        let n = t.chars().count();
        let mut last = 0usize;
        for s in &spans {
            prop_assert!(s.start < s.end && s.end <= n, "{:?} in {} chars", s, n);
            prop_assert!(s.start >= last, "unsorted or overlapping: {:?}", spans);
            prop_assert!(TYPES.contains(&s.kind.as_str()), "unknown type {:?}", s);
            last = s.end;
            let value: String = t.chars().skip(s.start).take(s.end - s.start).collect();
            let _ = kcurate_pii::pseudo::pseudonymise(&key, &s.kind, &value);
        }
        prop_assert_eq!(detect(&t), spans);
        Ok(())
    });
}
