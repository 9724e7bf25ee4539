//! Byte helpers the readers share. [`utf8`] is a fast path (SIMD validation) that must
//! equal the standard library's check; the property test below compares them.

/// The position of the first newline in `b`.
pub(super) fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// UTF-8 validation: mostly Hangul input takes the standard check's slow path, the SIMD
/// check does not; the standard one runs only to locate an error.
pub(super) fn utf8(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    simdutf8::basic::from_utf8(bytes).or_else(|_| std::str::from_utf8(bytes))
}

/// The position of the first byte from `i` on that is not ASCII white space.
pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The number of newlines in `b`.
pub(super) fn count_nl(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

/// The end (exclusive) of the JSON array or object whose opening bracket is at `b[start]`,
/// and whether it nests deeper than `max` (itself counting 1): a byte scan that skips
/// strings and does not check the brackets match. `None` when the input ends first.
pub(super) fn container_end(b: &[u8], start: usize, max: usize) -> Option<(usize, bool)> {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &c) in b.iter().enumerate().skip(start) {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some((i + 1, deepest > max));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn container_end_skips_strings_and_reports_depth() {
        let b = br#"x{"a": "}]\"{", "b": [[1]]}, 2"#;
        let (end, deep) = container_end(b, 1, 3).unwrap();
        assert_eq!(&b[1..end], br#"{"a": "}]\"{", "b": [[1]]}"#);
        assert!(!deep);
        assert!(container_end(b, 1, 2).unwrap().1);
        assert_eq!(container_end(b"[[1]", 0, 9), None);
    }

    proptest! {
        /// The SIMD check answers as the standard one does, and an error names the same
        /// byte: over valid text with any bytes put in.
        #[test]
        fn utf8_agrees_with_the_standard_check(
            text in "[가-힣a-z \n]{0,40}",
            junk in proptest::collection::vec(any::<u8>(), 0..3),
            at in any::<prop::sample::Index>(),
        ) {
            let mut bytes = text.into_bytes();
            let i = at.index(bytes.len() + 1);
            bytes.splice(i..i, junk);
            let (fast, plain) = (utf8(&bytes), std::str::from_utf8(&bytes));
            prop_assert_eq!(fast.ok(), plain.ok());
            prop_assert_eq!(fast.err().map(|e| e.valid_up_to()), plain.err().map(|e| e.valid_up_to()));
        }
    }
}
