//! Fuzz targets (proptest, stable Rust) for the sentence splitter: any text, Korean-heavy
//! text and punctuation soup. The splitter promises (see its unit test
//! `ranges_cover_the_text`) byte ranges in order, non-empty, on char boundaries, trimmed,
//! separated only by whitespace, so the sentences and the separators concatenate back to
//! the input exactly; and the same answer every time.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Runs `test` over `strategy` for `KCURATE_FUZZ_CASES` cases (default `default`), again
/// and again until `KCURATE_FUZZ_SECONDS` have passed when that is set (`make fuzz`).
fn fuzz<S: Strategy>(
    name: &str,
    default: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let cases = env("KCURATE_FUZZ_CASES").map_or(default, |c| c.max(1.0) as u32);
    let seconds = env("KCURATE_FUZZ_SECONDS");
    let start = std::time::Instant::now();
    let mut total = 0u64;
    loop {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz {name}: {e}");
        }
        total += u64::from(cases);
        if seconds.is_none_or(|s| start.elapsed().as_secs_f64() >= s) {
            break;
        }
    }
    eprintln!(
        "fuzz {name}: {total} cases in {:.1} s, 0 failures",
        start.elapsed().as_secs_f64()
    );
}

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
