//! The fast matcher gives the same pairs, scores and leftover as the naive oracle.

use kcurate_tasks::gsm::{match_fast, match_naive, prepare};
use kcurate_tasks::rouge::Metric;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fast_equals_naive(texts in proptest::collection::vec("[가나다라마바 .]{1,12}", 0..40), seed in 0u64..1000) {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for metric in [Metric::Rouge1, Metric::Rouge2, Metric::RougeL] {
            let s = prepare(&refs, metric);
            prop_assert_eq!(match_fast(&s, metric, seed), match_naive(&s, metric, seed), "{:?}", metric);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Larger pools, a wider alphabet (Latin, digits, punctuation, U+3000 and tab as white
    /// space, decomposed jamo that NFC composes) and many exact-tie candidates.
    #[test]
    fn fast_equals_naive_wide(texts in proptest::collection::vec("[가나다라ab1.\u{3000}\t\u{1100}\u{1161} ]{0,20}", 0..150), seed in any::<u64>()) {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for metric in [Metric::Rouge1, Metric::Rouge2, Metric::RougeL] {
            let s = prepare(&refs, metric);
            prop_assert_eq!(match_fast(&s, metric, seed), match_naive(&s, metric, seed), "{:?}", metric);
        }
    }
}
