//! A decoder for the JSON lines of flat rows of strings, the rows of a sentence release (id,
//! source, text, date, label, carried fields, origin): one pass over each line instead of
//! arrow_json's tape, giving the same arrays.
//!
//! It answers only when it is sure. Anything else returns `None` and arrow_json decodes the
//! lines, so the result is always arrow_json's:
//! - a schema with a column that is not a string or a date32 (an ISO date string, as the
//!   writer's `date` column is; a value that is not one is left to arrow_json);
//! - whitespace between tokens, a blank line, a raw control character;
//! - a key that is not in the schema, or a key twice;
//! - a value that is neither a string nor null;
//! - invalid JSON or invalid UTF-8.
//!
//! arrow_json is its test oracle (`decodes_like_arrow_json` below).

use arrow::array::{ArrayRef, RecordBatch, StringBuilder};
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::{DataType, Schema};
use std::borrow::Cow;
use std::sync::Arc;

/// The lines (one JSON object each) as one batch, or `None` to leave them to arrow_json.
pub(crate) fn decode(schema: &Arc<Schema>, lines: &[u8]) -> Option<RecordBatch> {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    if names.is_empty()
        || names.len() > 64
        || schema
            .fields()
            .iter()
            .any(|f| !matches!(f.data_type(), DataType::Utf8 | DataType::Date32))
    {
        return None;
    }
    // Raw control characters are invalid inside JSON strings and the writer escapes them;
    // arrow_json decides what they mean. Only the newlines that end lines pass. (Blocks
    // without an early exit inside, so that the check is vectorised.)
    let control = |block: &[u8]| {
        block
            .iter()
            .fold(false, |found, &b| found | ((b < 0x20) & (b != b'\n')))
    };
    if lines.chunks(256).any(control) {
        return None;
    }
    let text = simdutf8::basic::from_utf8(lines).ok()?;
    let mut ends: Vec<usize> = memchr::memchr_iter(b'\n', lines).collect();
    if ends.last().is_none_or(|&e| e + 1 != lines.len()) {
        ends.push(lines.len());
    }
    let mut columns: Vec<StringBuilder> = Vec::new();
    let mut row: Vec<Option<Cow<str>>> = vec![None; names.len()];
    let mut decoded = 0usize;
    let mut start = 0;
    for &end in &ends {
        // Newlines are ASCII: the cuts fall on character boundaries.
        let line = &text[start..end];
        start = end + 1;
        parse_row(line, &names, &mut row)?;
        if columns.is_empty() {
            columns = builders(&row, ends.len(), lines.len());
        }
        for (column, value) in columns.iter_mut().zip(row.iter_mut()) {
            match value.take() {
                Some(v) => column.append_value(v),
                None => column.append_null(),
            }
        }
        decoded += 1;
    }
    if decoded == 0 {
        return None;
    }
    let strict = CastOptions {
        safe: false,
        ..Default::default()
    };
    let arrays: Vec<ArrayRef> = columns
        .into_iter()
        .zip(schema.fields())
        .map(|(mut c, f)| {
            let strings = Arc::new(c.finish()) as ArrayRef;
            match f.data_type() {
                DataType::Utf8 => Some(strings),
                t => cast_with_options(&strings, t, &strict).ok(),
            }
        })
        .collect::<Option<_>>()?;
    RecordBatch::try_new(schema.clone(), arrays).ok()
}

/// One builder per column, sized from the first row so that they are seldom grown (and
/// copied) on the way: each column as long as its first value on every row, except the
/// longest (the text), which gets what is left of the lines' bytes.
fn builders(first: &[Option<Cow<str>>], rows: usize, bytes: usize) -> Vec<StringBuilder> {
    let lens: Vec<usize> = first
        .iter()
        .map(|v| v.as_ref().map_or(0, |v| v.len()))
        .collect();
    let longest = (0..lens.len()).max_by_key(|&c| lens[c]).unwrap_or(0);
    let others: usize = lens.iter().map(|l| l * rows).sum::<usize>() - lens[longest] * rows;
    lens.iter()
        .enumerate()
        .map(|(c, l)| {
            let data = if c == longest {
                bytes.saturating_sub(others)
            } else {
                l * rows
            };
            StringBuilder::with_capacity(rows, data)
        })
        .collect()
}

/// Fills `row` (all `None` on entry) with one line's values, by schema position.
fn parse_row<'a>(line: &'a str, names: &[&str], row: &mut [Option<Cow<'a, str>>]) -> Option<()> {
    let b = line.as_bytes();
    if b.first() != Some(&b'{') {
        return None;
    }
    let mut i = 1;
    if b.get(i) == Some(&b'}') {
        return (b.len() == 2).then_some(());
    }
    let mut seen = 0u64;
    // Rows mostly list their keys in schema order: the next field is tried first.
    let mut next_field = 0usize;
    loop {
        let (f, after) = match expected_key(b, i, names, next_field) {
            Some(found) => found,
            None => {
                let (key, after) = string_at(line, i)?;
                let Cow::Borrowed(key) = key else {
                    return None;
                };
                let f = names.iter().position(|n| *n == key)?;
                (f, after)
            }
        };
        if seen & (1 << f) != 0 {
            return None;
        }
        seen |= 1 << f;
        next_field = f + 1;
        i = after;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        match b.get(i) {
            Some(b'"') => {
                let (value, after) = string_at(line, i)?;
                row[f] = Some(value);
                i = after;
            }
            Some(b'n') if b[i..].starts_with(b"null") => i += 4,
            _ => return None,
        }
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => return (i + 1 == b.len()).then_some(()),
            _ => return None,
        }
    }
}

/// The field `next` when its key (quoted, without escapes) starts at `at`, and the
/// position after the key: rows list their keys in schema order, so this is the usual case.
fn expected_key(b: &[u8], at: usize, names: &[&str], next: usize) -> Option<(usize, usize)> {
    let name = names.get(next)?.as_bytes();
    let end = at + 1 + name.len();
    let key = b.get(at + 1..end)?;
    // Keys are a few bytes: compared here rather than by a call to memcmp.
    let same = key.len() == name.len() && key.iter().zip(name).fold(true, |s, (x, y)| s & (x == y));
    (b.get(at) == Some(&b'"') && same && b.get(end) == Some(&b'"')).then_some((next, end + 1))
}

/// The string starting with the quote at `start`, and the position after its closing
/// quote. Borrowed when it has no escapes; unescaped by serde_json when it has.
fn string_at(line: &str, start: usize) -> Option<(Cow<'_, str>, usize)> {
    let b = line.as_bytes();
    if b.get(start) != Some(&b'"') {
        return None;
    }
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        // Most values are short (ids, dates, labels): a plain look at their first bytes
        // costs less than setting up a vectorised search.
        let head = b.get(i..(i + 16).min(b.len()))?;
        i += match head.iter().position(|&c| c == b'"' || c == b'\\') {
            Some(k) => k,
            None => head.len() + memchr::memchr2(b'"', b'\\', &b[i + head.len()..])?,
        };
        if b[i] == b'"' {
            break;
        }
        // A backslash and the character it escapes.
        escaped = true;
        i += 2;
    }
    let value = if escaped {
        Cow::Owned(serde_json::from_str::<String>(&line[start..=i]).ok()?)
    } else {
        Cow::Borrowed(&line[start + 1..i])
    };
    Some((value, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::Field;
    use arrow::json::ReaderBuilder;
    use proptest::prelude::*;

    fn schema(names: &[&str]) -> Arc<Schema> {
        Arc::new(Schema::new(
            names
                .iter()
                .map(|n| Field::new(*n, DataType::Utf8, true))
                .collect::<Vec<_>>(),
        ))
    }

    /// arrow_json's reading of the lines: one batch, or its error.
    fn oracle(schema: &Arc<Schema>, lines: &[u8]) -> Result<Vec<RecordBatch>, String> {
        let mut dec = ReaderBuilder::new(schema.clone())
            .with_batch_size(1 << 20)
            .with_strict_mode(true)
            .build_decoder()
            .map_err(|e| e.to_string())?;
        let n = dec.decode(lines).map_err(|e| e.to_string())?;
        if n != lines.len() {
            return Err(format!("stopped at byte {n}"));
        }
        Ok(dec
            .flush()
            .map_err(|e| e.to_string())?
            .into_iter()
            .collect())
    }

    fn assert_like_arrow(names: &[&str], lines: &str) {
        let s = schema(names);
        if let Some(fast) = decode(&s, lines.as_bytes()) {
            assert_eq!(
                oracle(&s, lines.as_bytes()),
                Ok(vec![fast]),
                "lines: {lines:?}"
            );
        }
    }

    #[test]
    fn release_rows_are_decoded_here() {
        let s = schema(&["id", "text", "label"]);
        let lines = "{\"id\":\"a\",\"text\":\"영화 \\\"최고\\\"\\n\",\"label\":\"10\"}\n\
                     {\"text\":\"둘\",\"id\":\"b\"}\n{\"id\":\"c\",\"text\":null,\"label\":\"1\"}\n{}\n";
        let fast = decode(&s, lines.as_bytes()).expect("flat rows of strings");
        assert_eq!(fast.num_rows(), 4);
        assert_eq!(oracle(&s, lines.as_bytes()), Ok(vec![fast]));
    }

    #[test]
    fn anything_unusual_is_left_to_arrow_json() {
        let s = schema(&["id", "text"]);
        for lines in [
            "{\"id\": \"a\"}\n",                  // whitespace
            "{\"id\":\"a\"}\n\n{\"id\":\"b\"}\n", // blank line
            "{\"id\":\"a\",\"id\":\"b\"}\n",      // key twice
            "{\"id\":\"a\",\"x\":\"b\"}\n",       // key not in the schema
            "{\"id\":1}\n",                       // not a string
            "{\"id\":\"a\\x\"}\n",                // invalid escape
            "{\"id\":\"a\tb\"}\n",                // raw control character
            "{\"id\":\"a\"",                      // truncated
            "[\"a\"]\n",                          // not an object
            "{\"i\\u0064\":\"a\"}\n",             // escaped key
        ] {
            assert!(decode(&s, lines.as_bytes()).is_none(), "{lines:?}");
        }
        let numbers = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
        assert!(decode(&numbers, b"{\"n\":1}\n").is_none());
    }

    #[test]
    fn iso_dates_are_decoded_here_and_anything_else_left_to_arrow_json() {
        let s = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, true),
            Field::new("date", DataType::Date32, true),
        ]));
        let lines = "{\"id\":\"a\",\"date\":\"2021-09-27\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\"date\":null}\n";
        let fast = decode(&s, lines.as_bytes()).expect("ISO dates");
        assert_eq!(oracle(&s, lines.as_bytes()), Ok(vec![fast]));
        assert!(decode(&s, b"{\"id\":\"a\",\"date\":\"21.09.27\"}\n").is_none());
    }

    proptest! {
        /// Whenever the fast path answers, it answers what arrow_json does: rows with keys
        /// in any order, some missing or null, strings with escapes, and now and then a
        /// defect that must make it step aside.
        #[test]
        fn decodes_like_arrow_json(
            rows in proptest::collection::vec(
                proptest::collection::vec(
                    (0usize..4, proptest::option::of("[가-힣a-z \"\\\\\n\t\u{1}é/]{0,12}")),
                    0..5,
                ),
                1..6,
            ),
            defect in 0usize..40,
            last_newline in any::<bool>(),
        ) {
            let names = ["id", "text", "date", "origin"];
            let mut lines = String::new();
            for row in &rows {
                let mut used = [false; 4];
                let mut parts = Vec::new();
                for (f, v) in row {
                    if used[*f] && defect != 1 {
                        continue;
                    }
                    used[*f] = true;
                    let value = match v {
                        Some(v) => serde_json::to_string(v).unwrap(),
                        None => "null".to_string(),
                    };
                    parts.push(format!("\"{}\":{value}", names[*f]));
                }
                lines.push('{');
                lines.push_str(&parts.join(if defect == 2 { ", " } else { "," }));
                lines.push_str("}\n");
            }
            match defect {
                3 => lines = lines.replace("\"text\"", "\"other\""),
                4 => lines = lines.replace(":null", ":0"),
                5 => lines.insert(0, ' '),
                _ => {}
            }
            if !last_newline {
                lines.pop();
            }
            assert_like_arrow(&names, &lines);
            if defect > 5 {
                // Well-formed release rows: the fast path must take them.
                prop_assert!(decode(&schema(&names), lines.as_bytes()).is_some(), "{lines:?}");
            }
        }
    }
}
