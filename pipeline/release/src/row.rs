//! A record's release row: [`release_row`] builds it as a JSON value (the plain version,
//! and the one for rows with a task's own schema), [`row_bytes`] writes the same bytes
//! directly (the fast path the writer uses for every row); the tests here hold them equal.

use kcurate_core::Record;
use serde_json::{Map, Value};

/// `,"key":` before a value that is not the row's first.
fn json_key(v: &mut Vec<u8>, k: &str) {
    v.push(b',');
    json_str(v, k);
    v.push(b':');
}

/// `x` as a JSON string: the bytes serde_json writes (tested). A string with nothing to
/// escape, as most text is, is copied whole; serde_json looks each byte up in a table.
fn json_str(v: &mut Vec<u8>, x: &str) {
    if needs_escape(x.as_bytes()) {
        serde_json::to_writer(v, x).expect("strings serialise");
    } else {
        v.reserve(x.len() + 2);
        v.push(b'"');
        v.extend_from_slice(x.as_bytes());
        v.push(b'"');
    }
}

/// Does a JSON string of these bytes need an escape (a control byte, `"` or `\`)? Whole
/// 16-byte blocks are tested without an early exit, so that the loop vectorises.
fn needs_escape(b: &[u8]) -> bool {
    // Bitwise, not short-circuit, so that the block loop stays branch-free.
    let bad = |c: u8| (c < 0x20) | (c == b'"') | (c == b'\\');
    let mut blocks = b.chunks_exact(16);
    for block in &mut blocks {
        if block.iter().fold(false, |acc, &c| acc | bad(c)) {
            return true;
        }
    }
    blocks.remainder().iter().any(|&c| bad(c))
}

/// A record's origin (`file:line`) as a JSON string, without formatting it first.
fn json_origin(v: &mut Vec<u8>, o: &kcurate_core::Origin) {
    json_str(v, &o.file);
    v.pop(); // the closing quote
    v.push(b':');
    v.extend_from_slice(itoa::Buffer::new().format(o.line).as_bytes());
    v.push(b'"');
}

/// A record's release row as one JSONL line, written directly: the same bytes as
/// serialising [`release_row`], without building the map.
pub fn row_bytes(rec: &Record) -> Vec<u8> {
    if rec.fields.contains_key("output") {
        let mut v = serde_json::to_vec(&release_row(rec)).expect("JSON values serialise");
        v.push(b'\n');
        return v;
    }
    // Sized for the whole row (keys and punctuation are under 100 bytes, a carried field
    // seldom more than a date's), so that it is not grown and copied on the way.
    let mut v = Vec::with_capacity(
        rec.id.len()
            + rec.source.len()
            + rec.text.len()
            + rec.origin.file.len()
            + 32 * rec.fields.len()
            + 128,
    );
    // The fixed keys are written as they are: they need no escape.
    v.extend_from_slice(b"{\"id\":");
    json_str(&mut v, &rec.id);
    v.extend_from_slice(b",\"source\":");
    json_str(&mut v, &rec.source);
    v.extend_from_slice(b",\"text\":");
    json_str(&mut v, &rec.text);
    if let Some(d) = &rec.date {
        v.extend_from_slice(b",\"date\":");
        json_str(&mut v, d);
    }
    if let Some(l) = &rec.label {
        v.extend_from_slice(b",\"label\":");
        json_str(&mut v, l);
    }
    for (k, x) in &rec.fields {
        let written = matches!(k.as_str(), "id" | "source" | "text" | "origin")
            || (k == "date" && rec.date.is_some())
            || (k == "label" && rec.label.is_some());
        if k != "split" && !written {
            json_key(&mut v, k);
            serde_json::to_writer(&mut v, x).expect("values serialise");
        }
    }
    v.extend_from_slice(b",\"origin\":");
    json_origin(&mut v, &rec.origin);
    v.extend_from_slice(b"}\n");
    v
}

/// The row a record becomes in a split file: the task's own schema when a stage set
/// `fields.output`, else id, source, text, date, label, the carried fields, and origin.
pub fn release_row(rec: &Record) -> Value {
    if let Some(out) = rec.fields.get("output") {
        return out.clone();
    }
    let mut m = Map::new();
    m.insert("id".into(), Value::String(rec.id.clone()));
    m.insert("source".into(), Value::String(rec.source.clone()));
    m.insert("text".into(), Value::String(rec.text.clone()));
    if let Some(d) = &rec.date {
        m.insert("date".into(), Value::String(d.clone()));
    }
    if let Some(l) = &rec.label {
        m.insert("label".into(), Value::String(l.clone()));
    }
    for (k, v) in &rec.fields {
        if k != "split" && k != "origin" && !m.contains_key(k) {
            m.insert(k.clone(), v.clone());
        }
    }
    m.insert("origin".into(), Value::String(rec.origin.to_string()));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The copying fast path writes what serde_json writes, for strings with and
        /// without characters to escape, at every length around the 16-byte blocks.
        #[test]
        fn json_str_equals_serde_json(x in "[가-힣a-z \"\\\\\n\t\u{1}\u{7f}é]{0,40}") {
            let mut v = Vec::new();
            json_str(&mut v, &x);
            prop_assert_eq!(v, serde_json::to_vec(&x).unwrap());
        }

        #[test]
        fn json_origin_equals_the_formatted_origin(
            file in "[가-힣a-z/.\"\\\\]{0,20}",
            line in any::<u64>(),
        ) {
            let o = kcurate_core::Origin { file: file.into(), line };
            let mut v = Vec::new();
            json_origin(&mut v, &o);
            prop_assert_eq!(v, serde_json::to_vec(&o.to_string()).unwrap());
        }
    }

    #[test]
    fn direct_row_bytes_equal_the_serialised_row() {
        let mut rec = Record {
            id: "a\"1".into(),
            source: "s".into(),
            text: "한국어 \n 텍스트".into(),
            date: Some("2020".into()),
            ..Default::default()
        };
        rec.fields
            .insert("topic".into(), serde_json::json!({"x": [1, "둘"]}));
        rec.fields
            .insert("split".into(), serde_json::json!("train"));
        let mut want = serde_json::to_vec(&release_row(&rec)).unwrap();
        want.push(b'\n');
        assert_eq!(row_bytes(&rec), want);
    }
}
