//! The one byte scan over JSON text that skips strings and counts brackets, as a state
//! ([`JsonScan`]) a reader can carry from one chunk of input to the next: the ingest readers
//! scan whole slices ([`container_end`], [`json_deeper_than`]), the Label Studio reader
//! (agree) scans a streamed export chunk by chunk ([`JsonScan::value_end`]). The property
//! test below checks that any chunking finds what one whole-slice scan finds.

/// Where a byte scan over JSON stands after the bytes fed so far: inside a string or not
/// (and right after a backslash there), and how many arrays and objects are open. It does
/// not check that brackets match; a parser does that after the scan has cut a value out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonScan {
    /// Inside a string literal (its opening quote seen, its closing one not yet).
    pub in_string: bool,
    /// Inside a string, right after a backslash: the next byte is escaped.
    pub escaped: bool,
    /// Arrays and objects open now.
    pub depth: usize,
    /// The most arrays and objects open at once so far (the outermost counting 1).
    pub deepest: usize,
}

/// What one byte was to a [`JsonScan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonByte {
    /// A byte of a string: its opening quote or a byte inside it.
    InString,
    /// The closing quote of a string.
    StringEnd,
    /// `[` or `{`: [`JsonScan::depth`] counts it.
    Open,
    /// `]` or `}` that closed an open array or object.
    Close,
    /// `]` or `}` with nothing open (the depth stays 0).
    Stray,
    /// Any other byte outside strings.
    Other,
}

impl JsonScan {
    /// Moves the scan over one byte and says what the byte was.
    #[inline]
    pub fn step(&mut self, b: u8) -> JsonByte {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                return JsonByte::StringEnd;
            }
            return JsonByte::InString;
        }
        match b {
            b'"' => {
                self.in_string = true;
                JsonByte::InString
            }
            b'[' | b'{' => {
                self.depth += 1;
                self.deepest = self.deepest.max(self.depth);
                JsonByte::Open
            }
            b']' | b'}' if self.depth > 0 => {
                self.depth -= 1;
                JsonByte::Close
            }
            b']' | b'}' => JsonByte::Stray,
            _ => JsonByte::Other,
        }
    }

    /// Scans `chunk`, the next bytes of one JSON value (the scan started at its first byte,
    /// white space before it skipped): the end of the value within `chunk` (exclusive) when
    /// it ends there, else `None`, and the next chunk goes on from here. An array, object or
    /// string ends after its closing bracket or quote; anything else before the `,`, `]`,
    /// `}` or white space that follows it.
    pub fn value_end(&mut self, chunk: &[u8]) -> Option<usize> {
        for (i, &b) in chunk.iter().enumerate() {
            match self.step(b) {
                JsonByte::StringEnd | JsonByte::Close if self.depth == 0 => return Some(i + 1),
                JsonByte::Stray => return Some(i),
                JsonByte::Other if self.depth == 0 && (b == b',' || b.is_ascii_whitespace()) => {
                    return Some(i);
                }
                _ => {}
            }
        }
        None
    }
}

/// The end (exclusive) of the JSON array or object whose opening bracket is at `b[start]`,
/// and whether it nests deeper than `max` (itself counting 1): the first `]` or `}` that
/// leaves nothing open. `None` when the input ends first.
pub fn container_end(b: &[u8], start: usize, max: usize) -> Option<(usize, bool)> {
    let mut scan = JsonScan::default();
    let end = b[start..].iter().position(|&c| {
        matches!(scan.step(c), JsonByte::Close | JsonByte::Stray) && scan.depth == 0
    })?;
    Some((start + end + 1, scan.deepest > max))
}

/// Whether JSON `text` nests arrays and objects deeper than `max` (the outermost counting
/// 1): a byte scan that skips strings, run before a parser recurses into it.
pub fn json_deeper_than(text: &[u8], max: usize) -> bool {
    let mut scan = JsonScan::default();
    text.iter()
        .any(|&b| scan.step(b) == JsonByte::Open && scan.depth > max)
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

    #[test]
    fn depth_is_counted_outside_strings_only() {
        assert!(json_deeper_than(br#"{"a": [[1]]}"#, 2));
        assert!(!json_deeper_than(br#"{"a": "[[[[", "b": [1]}"#, 2));
        assert!(!json_deeper_than(br#"]]]{"a": [1]}"#, 2));
    }

    #[test]
    fn values_end_after_their_closing_byte_or_before_what_follows() {
        let end = |s: &str| JsonScan::default().value_end(s.as_bytes());
        assert_eq!(end(r#""a\"]," x"#), Some(7));
        assert_eq!(end("[1, [2]] x"), Some(8));
        assert_eq!(end("12,"), Some(2));
        assert_eq!(end("true]"), Some(4));
        assert_eq!(end("null\n"), Some(4));
        assert_eq!(end("{\"a\": 1"), None);
    }

    /// The scan over `b` cut at `cuts`, chunk after chunk until the value ends: its end
    /// (from the start of `b`) and the state the scan stopped in.
    fn chunked(b: &[u8], cuts: &[usize]) -> (Option<usize>, JsonScan) {
        let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (b.len() + 1)).collect();
        bounds.extend([0, b.len()]);
        bounds.sort_unstable();
        let mut scan = JsonScan::default();
        for w in bounds.windows(2) {
            if let Some(end) = scan.value_end(&b[w[0]..w[1]]) {
                return (Some(w[0] + end), scan);
            }
        }
        (None, scan)
    }

    proptest! {
        /// A value cut into chunks anywhere (inside strings, escapes, between brackets)
        /// ends where one scan of the whole slice says, in the same state; and for an array
        /// or object its end and depth are [`container_end`]'s.
        #[test]
        fn any_chunking_finds_the_whole_slice_end(
            text in r#"[\[\]{}",\\ a1\n]{0,40}"#,
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
            max in 0usize..5,
        ) {
            let b = text.as_bytes();
            let mut whole = JsonScan::default();
            let end = whole.value_end(b);
            prop_assert_eq!(chunked(b, &cuts), (end, whole));
            if matches!(b.first(), Some(b'[' | b'{')) {
                prop_assert_eq!(
                    container_end(b, 0, max),
                    end.map(|e| (e, whole.deepest > max))
                );
            }
        }
    }
}
