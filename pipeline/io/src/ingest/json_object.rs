//! One pass over a JSON object of plain strings, the shape of a corpus record in a
//! JSON-array file (NSMC raw: review, date, rating, author, ids), cut out by hand instead
//! of by serde_json.
//!
//! It answers only for the plain case: every key and value a string with no escape and
//! no control character, whitespace between tokens. Anything else (a number, a nested
//! value, an escape, invalid JSON) returns `None`, and the caller reads the object with
//! serde_json, which also says what is wrong with it. serde_json is its test oracle.

/// Scans the object whose `{` is at `start`. Fills `entries` with (key, value as raw JSON,
/// quotes included), in order and duplicates kept, as serde_json's raw entries would be,
/// and returns the position after the closing `}` and the newlines crossed.
pub(super) fn plain_object<'a>(
    text: &'a str,
    start: usize,
    entries: &mut Vec<(&'a str, &'a str)>,
) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    entries.clear();
    if b.get(start) != Some(&b'{') {
        return None;
    }
    let mut newlines = 0;
    let mut i = skip_ws(b, start + 1, &mut newlines);
    if b.get(i) == Some(&b'}') {
        return Some((i + 1, newlines));
    }
    loop {
        let key_end = plain_string(b, i)?;
        let key = &text[i + 1..key_end];
        i = skip_ws(b, key_end + 1, &mut newlines);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1, &mut newlines);
        let value_end = plain_string(b, i)?;
        entries.push((key, &text[i..=value_end]));
        i = skip_ws(b, value_end + 1, &mut newlines);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1, &mut newlines),
            Some(b'}') => return Some((i + 1, newlines)),
            _ => return None,
        }
    }
}

/// JSON whitespace from `i` on, counting the newlines.
fn skip_ws(b: &[u8], mut i: usize, newlines: &mut usize) -> usize {
    while let Some(&c) = b.get(i) {
        match c {
            b'\n' => *newlines += 1,
            b' ' | b'\t' | b'\r' => {}
            _ => break,
        }
        i += 1;
    }
    i
}

/// The position of the closing quote of the string whose opening quote is at `at`, when
/// it has no escape and no control character.
fn plain_string(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let rest = &b[at + 1..];
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    // Without an early exit, so that the check is vectorised.
    let control = rest[..end]
        .iter()
        .fold(false, |found, &c| found | (c < 0x20));
    (rest[end] == b'"' && !control).then_some(at + 1 + end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::value::RawValue;

    /// serde_json's reading: the raw entries and the position after the object.
    fn oracle(text: &str) -> Option<(Vec<(String, String)>, usize)> {
        let mut de = serde_json::Deserializer::from_str(text)
            .into_iter::<std::collections::BTreeMap<String, &RawValue>>();
        let _ = de.next()?.ok()?;
        let end = de.byte_offset();
        // The map loses order and duplicates: order and duplicates are compared through a
        // sequence of entries instead.
        let entries: Vec<(String, String)> = text[1..end - 1]
            .split(',')
            .filter(|e| !e.trim().is_empty())
            .map(|e| {
                let (k, v) = e.split_once(':').unwrap();
                let k: String = serde_json::from_str(k.trim()).unwrap();
                (k, v.trim().to_string())
            })
            .collect();
        Some((entries, end))
    }

    #[test]
    fn a_corpus_record_is_read_here() {
        let text =
            "{\n  \"review\": \"굿 ㅋㅋ\",\n  \"rating\": \"10\",\n  \"review\": \"둘째\"\n}, {";
        let mut entries = Vec::new();
        let (end, newlines) = plain_object(text, 0, &mut entries).unwrap();
        assert_eq!(&text[..end], text.split_once(", {").unwrap().0);
        assert_eq!(newlines, 4);
        assert_eq!(
            entries,
            vec![
                ("review", "\"굿 ㅋㅋ\""),
                ("rating", "\"10\""),
                ("review", "\"둘째\"")
            ]
        );
    }

    #[test]
    fn anything_else_is_left_to_serde_json() {
        let mut entries = Vec::new();
        for text in [
            r#"{"n": 1}"#,
            r#"{"a": "b\"c"}"#,
            r#"{"a\u0062": "c"}"#,
            r#"{"a": {"b": "c"}}"#,
            r#"{"a": "b",}"#,
            r#"{"a" "b"}"#,
            "{\"a\": \"b\tc\"}",
            r#"{"a": "b""#,
            r#"["a"]"#,
        ] {
            assert!(plain_object(text, 0, &mut entries).is_none(), "{text}");
        }
    }

    proptest! {
        /// Whenever it answers, serde_json reads the same object: the same entries in the
        /// same order, ending at the same byte; and it answers for every plain object.
        #[test]
        fn reads_like_serde_json(
            fields in proptest::collection::vec(("[a-z_]{1,6}", "[가-힣a-z0-9 .!?ㅋ]{0,12}"), 0..6),
            ws in "[ \n\t\r]{0,3}",
            defect in 0usize..12,
        ) {
            let mut text = format!("{{{ws}");
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    text.push_str(&format!("{ws},{ws}"));
                }
                text.push_str(&format!("\"{k}\"{ws}:{ws}\"{v}\""));
            }
            text.push_str(&format!("{ws}}}"));
            match defect {
                0 => text = text.replacen(":", ": 1, \"x\":", 1),
                1 => text = text.replacen("\"", "\"\\\"", 1),
                2 => text = text.replacen("}", ",}", 1),
                3 => {
                    let mut cut = text.len() / 2;
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    text.truncate(cut);
                }
                _ => {}
            }
            text.push_str(", {\"next\": \"x\"}");
            let mut entries = Vec::new();
            let fast = plain_object(&text, 0, &mut entries);
            if let Some((end, newlines)) = fast {
                let (want, want_end) = oracle(&text).expect("serde_json reads it too");
                prop_assert_eq!(end, want_end);
                prop_assert_eq!(newlines, text[..end].matches('\n').count());
                let got: Vec<(String, String)> =
                    entries.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                prop_assert_eq!(got, want);
            } else {
                prop_assert!(defect < 4, "a plain object was left to serde_json: {}", text);
            }
        }
    }
}
