//! Mapping one input object to a [`Record`] through the source's field map: the plain path.
//! [`map_json_object`] tries the borrowed fast path of `fields_fast.rs` first and falls back
//! to parsing the whole object into a [`Value`] here; both must give the same item.

use super::fields_fast::{Entries, raw_value};
use super::{Item, json_deeper_than, malformed, over_limit, too_deep};
use kcurate_core::recipe::{FieldMap, SourceConfig};
use kcurate_core::record::{Kind, Origin, Record};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A scalar's text (a string is moved, not copied); any other value is handed back.
fn value_text(v: Value) -> Result<String, Value> {
    match v {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        v => Err(v),
    }
}

pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Maps the JSON object `text` to a record, parsing only the fields the mapping names
/// (the common case borrows keys and raw values without building the whole object).
pub(super) fn map_json_object(src: &SourceConfig, file: &Arc<str>, line: u64, text: &str) -> Item {
    if let Ok(Entries(entries)) = serde_json::from_str::<Entries>(text) {
        return map_entries(src, file, line, &entries);
    }
    map_json_object_plain(src, file, line, text)
}

/// [`map_json_object`] without the borrowed fast path: the whole object parsed into a
/// [`Value`] (also its oracle in the property tests).
pub(super) fn map_json_object_plain(
    src: &SourceConfig,
    file: &Arc<str>,
    line: u64,
    text: &str,
) -> Item {
    if json_deeper_than(text.as_bytes(), src.limits.max_depth) {
        return over_limit(file, line, "-", too_deep(src));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(obj)) => map_fields(src, file, line, &|n| obj.get(n).cloned()),
        Ok(v) => malformed(
            file,
            line,
            "-",
            format!("expected a JSON object, got {}", type_name(&v)),
        ),
        Err(e) => malformed(file, line, "-", format!("invalid JSON: {e}")),
    }
}

/// Maps an object's entries (key, value as raw JSON) to a record.
pub(super) fn map_entries(
    src: &SourceConfig,
    file: &Arc<str>,
    line: u64,
    obj: &[(&str, &str)],
) -> Item {
    // The object is level 1: a value nests from level 2.
    if let Some((k, _)) = obj.iter().find(|(_, raw)| {
        matches!(raw.as_bytes().first(), Some(b'[' | b'{'))
            && json_deeper_than(raw.as_bytes(), src.limits.max_depth.saturating_sub(1))
    }) {
        return over_limit(file, line, k, too_deep(src));
    }
    // The last of duplicate keys wins, as in a map.
    map_fields(src, file, line, &|n| {
        obj.iter()
            .rev()
            .find(|(k, _)| *k == n)
            .and_then(|(_, raw)| raw_value(raw))
    })
}

/// Maps one input object to a record. `get` looks a field up by name.
pub(super) fn map_fields(
    src: &SourceConfig,
    file: &Arc<str>,
    line: u64,
    get: &dyn Fn(&str) -> Option<Value>,
) -> Item {
    let fm: &FieldMap = &src.fields;
    let text = match get(&fm.text) {
        Some(Value::String(s)) => s,
        Some(v) => {
            return malformed(
                file,
                line,
                &fm.text,
                format!("wrong type: expected string, got {}", type_name(&v)),
            );
        }
        None => return malformed(file, line, &fm.text, "missing field"),
    };
    let scalar = |name: &Option<String>| -> Result<Option<String>, Item> {
        let Some(name) = name else { return Ok(None) };
        match get(name) {
            None | Some(Value::Null) if fm.optional.contains(name) => Ok(None),
            None => Err(malformed(file, line, name, "missing field")),
            Some(Value::Null) => Err(malformed(
                file,
                line,
                name,
                "null, but a value is required (list the field in `optional` to allow it)",
            )),
            Some(v) => value_text(v).map(Some).map_err(|v| {
                malformed(
                    file,
                    line,
                    name,
                    format!("wrong type: expected a scalar, got {}", type_name(&v)),
                )
            }),
        }
    };
    let id = match scalar(&fm.id) {
        Ok(v) => v,
        Err(m) => return m,
    };
    let date = match scalar(&fm.date)
        .and_then(|d| released_date(d, file, line, fm.date.as_deref().unwrap_or("date")))
    {
        Ok(v) => v,
        Err(m) => return m,
    };
    let label = match scalar(&fm.label) {
        Ok(v) => v,
        Err(m) => return m,
    };
    let mut fields = BTreeMap::new();
    for name in &fm.extra {
        if let Some(v) = get(name) {
            fields.insert(name.clone(), v);
        }
    }
    Item::Record(Box::new(Record {
        id: id
            .map(|i| source_scoped_id(&src.id, &i))
            .unwrap_or_default(),
        kind: Kind::Document,
        source: src.id.clone(),
        origin: Origin {
            file: file.clone(),
            line,
        },
        text,
        date,
        label,
        parents: Vec::new(),
        fields,
    }))
}

/// A date cell as released: ISO `YYYY-MM-DD` (the card's date32 column; a value that is
/// not a date would make the column a string in one file and a date in another). A blank
/// cell is no date, as a missing optional one is.
fn released_date(
    d: Option<String>,
    file: &Arc<str>,
    line: u64,
    field: &str,
) -> Result<Option<String>, Item> {
    let Some(d) = d else { return Ok(None) };
    if d.trim().is_empty() {
        return Ok(None);
    }
    match kcurate_core::date::iso_date(&d) {
        Some(iso) => Ok(Some(iso)),
        None => Err(malformed(
            file,
            line,
            field,
            format!(
                "not a date: {d:?} (YYYY-MM-DD, YYYY.MM.DD, YYYY/MM/DD or YY.MM.DD, a time after it allowed)"
            ),
        )),
    }
}

/// `<source>-<id>`, concatenated (`format!` showed in the ingest profile, once per record);
/// the source part as [`Record::id_prefix`] writes it, so that ids of two sources differ.
fn source_scoped_id(source: &str, id: &str) -> String {
    let source = Record::id_prefix(source);
    let mut s = String::with_capacity(source.len() + 1 + id.len());
    s.push_str(&source);
    s.push('-');
    s.push_str(id);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(obj: &str) -> Option<String> {
        let src: SourceConfig = toml::from_str(
            "id = \"s\"\npath = \"x.json\"\nformat = \"json\"\nlicense = \"CC0-1.0\"\n\
             domain = \"d\"\nstyle = \"formal\"\nattribution = \"\"\n[fields]\ntext = \"text\"\n",
        )
        .unwrap();
        match map_json_object(&src, &"x.json".into(), 1, obj) {
            Item::Record(r) => Some(r.text),
            Item::Malformed(_) => None,
        }
    }

    /// Borrowed entries behave like the map they replace: the last duplicate wins, an
    /// escaped key takes the general path, a non-object is malformed.
    #[test]
    fn object_fields_are_found_like_in_a_map() {
        assert_eq!(text_of(r#"{"text":"가","id":1}"#).as_deref(), Some("가"));
        assert_eq!(text_of(r#"{"text":"a","text":"b"}"#).as_deref(), Some("b"));
        assert_eq!(text_of(r#"{"te\u0078t":"c"}"#).as_deref(), Some("c"));
        assert_eq!(text_of(r#"["text"]"#), None);
    }
}
