//! The fast path of field mapping: an object's entries borrowed from the input (no map is
//! built) and plain strings sliced, not parsed. `fields.rs` holds the plain path these must
//! equal; the property tests below compare the two.

use serde_json::Value;
use serde_json::value::RawValue;

/// An object's entries, borrowed from the input (no map is built: records have a handful of
/// fields, and this runs once per input record). Keys with escapes do not borrow; such an
/// object takes the general path.
pub(super) struct Entries<'a>(pub(super) Vec<(&'a str, &'a str)>);

impl<'de> serde::Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut v = Vec::with_capacity(m.size_hint().unwrap_or(8));
                while let Some((k, raw)) = m.next_entry::<&'de str, &'de RawValue>()? {
                    v.push((k, raw.get()));
                }
                Ok(Entries(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// A raw JSON value as a [`Value`]; a string without escapes is sliced, not parsed (most
/// corpus fields are such strings, and this is the ingest's inner loop).
pub(super) fn raw_value(raw: &str) -> Option<Value> {
    // Inside a raw JSON string only an escape can hold a backslash (a bare `"` would have
    // ended it), and a byte search finds one faster than a search for chars.
    if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"'))
        && !inner.as_bytes().contains(&b'\\')
    {
        return Some(Value::String(inner.to_string()));
    }
    serde_json::from_str::<Value>(raw).ok()
}

#[cfg(test)]
mod tests {
    use super::super::fields::{map_json_object, map_json_object_plain};
    use super::*;
    use kcurate_core::recipe::SourceConfig;
    use proptest::prelude::*;
    use std::sync::Arc;

    /// The sliced fast path and the full parse (its oracle) agree.
    #[test]
    fn raw_value_agrees_with_serde() {
        for raw in [
            r#""평범한 리뷰""#,
            r#""escaped \"quote\" and \\ slash""#,
            r#""\ud55c\uae00""#,
            r#""""#,
            "12",
            "null",
            r#"{"a":1}"#,
        ] {
            assert_eq!(
                raw_value(raw),
                serde_json::from_str::<Value>(raw).ok(),
                "{raw}"
            );
        }
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[가-힣a-z0-9 .]{0,8}".prop_map(|s| format!("\"{s}\"")),
            "[가-힣a-z\"\\\\\n\u{1}]{0,6}".prop_map(|s| serde_json::to_string(&s).expect("json")),
            any::<f64>().prop_map(|n| serde_json::to_string(&n).expect("json")),
            any::<i64>().prop_map(|n| n.to_string()),
            Just("null".to_string()),
            Just("false".to_string()),
            Just("[1, \"a\", {\"b\": null}]".to_string()),
            Just("{\"n\": {\"m\": \"가\"}}".to_string()),
        ]
    }

    proptest! {
        /// Any raw value reads as serde_json reads it.
        #[test]
        fn raw_value_reads_like_serde(raw in value()) {
            prop_assert_eq!(raw_value(&raw), serde_json::from_str::<Value>(&raw).ok());
        }

        /// An object maps to the same record or problem through borrowed entries as through
        /// a parsed map: duplicates (the last wins), wrong types, nulls, missing fields.
        #[test]
        fn borrowed_entries_map_like_a_parsed_object(
            fields in proptest::collection::vec(
                (prop_oneof![Just("text"), Just("id"), Just("label"), Just("x"), Just("y")], value()),
                0..6,
            ),
        ) {
            let src: SourceConfig = toml::from_str(
                "id = \"s\"\npath = \"x.jsonl\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\n\
                 domain = \"d\"\nstyle = \"formal\"\n[fields]\ntext = \"text\"\nid = \"id\"\n\
                 label = \"label\"\noptional = [\"label\"]\nextra = [\"x\"]\n",
            )
            .expect("source");
            let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            let text = format!("{{{}}}", body.join(", "));
            let file: Arc<str> = "x.jsonl".into();
            let fast = map_json_object(&src, &file, 3, &text);
            let plain = map_json_object_plain(&src, &file, 3, &text);
            prop_assert_eq!(format!("{fast:?}"), format!("{plain:?}"), "{}", text);
        }
    }
}
