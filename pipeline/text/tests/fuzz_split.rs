//! Fuzz targets (proptest, stable Rust) for the sentence splitter: any text, Korean-heavy
//! text and punctuation soup. The splitter promises (see its unit test
//! `ranges_cover_the_text`) byte ranges in order, non-empty, on char boundaries, trimmed,
//! separated only by whitespace, so the sentences and the separators concatenate back to
//! the input exactly; and the same answer every time.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use proptest::prelude::*;

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::fuzz;

/// Pieces the splitter treats specially: endings, particles, punctuation, list markers,
/// dates, emoticons, quotes, odd whitespace.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "[가-힣]{1,6}",
        Just("다.".to_string()),
        Just("요".to_string()),
        Just("습니다".to_string()),
        Just("그런데…".to_string()),
        Just("ㅋㅋ".to_string()),
        Just("ㅠㅠ".to_string()),
        Just("^^".to_string()),
        Just("...".to_string()),
        Just("!?".to_string()),
        Just("1.".to_string()),
        Just("ㄱ.".to_string()),
        Just("2019. 3. 15.".to_string()),
        Just("Dr.".to_string()),
        Just("\"".to_string()),
        Just("”".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\u{3000}".to_string()),
        Just("\u{a0}".to_string()),
        Just("\u{200b}".to_string()),
        Just("\u{feff}".to_string()),
        Just("\u{1100}\u{1161}".to_string()),
        "[a-zA-Z0-9.!?]{1,5}",
        "\\PC{1,3}",
        any::<char>().prop_map(String::from),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(piece(), 0..40).prop_map(|v| v.concat()),
    ]
}

#[test]
fn fuzz_split_sentences() {
    fuzz("text.split_sentences", 512, text(), |t| {
        let r = kcurate_text::split_sentences(&t);
        let mut rebuilt = String::new();
        let mut last = 0usize;
        for &(s, e) in &r {
            prop_assert!(
                s >= last && s < e && e <= t.len(),
                "{:?} after {}",
                (s, e),
                last
            );
            prop_assert!(t.is_char_boundary(s) && t.is_char_boundary(e));
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
        prop_assert_eq!(&rebuilt, &t);
        prop_assert_eq!(kcurate_text::split_sentences(&t), r);
        Ok(())
    });
}
