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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
