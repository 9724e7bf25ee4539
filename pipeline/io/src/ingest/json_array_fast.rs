//! The fast paths for a JSON-array element: most elements are objects of plain strings,
//! cut out by hand in one pass (`json_object.rs`); then objects with plain keys, whose
//! entries serde_json parses straight from the array without a map. `json_array.rs` holds
//! the general path these must equal; the property test below compares whole files read
//! both ways.

use super::Item;
use super::bytes::count_nl;
use super::fields::map_entries;
use super::fields_fast::Entries;
use super::json_object::plain_object;
use kcurate_core::recipe::SourceConfig;
use std::sync::Arc;

/// The element whose first byte is at `pos` (on `line`), read by a fast path: its item, the
/// position after it and the newlines it crosses. `None` when no fast path applies; the
/// caller then takes the general path. `plain` is scratch space reused between elements.
pub(super) fn fast_element<'a>(
    src: &SourceConfig,
    file: &Arc<str>,
    line: u64,
    text: &'a str,
    pos: usize,
    plain: &mut Vec<(&'a str, &'a str)>,
) -> Option<(Item, usize, usize)> {
    if let Some((end, newlines)) = plain_object(text, pos, plain) {
        return Some((map_entries(src, file, line, plain), end, newlines));
    }
    let mut direct = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<Entries>();
    let Some(Ok(Entries(entries))) = direct.next() else {
        return None;
    };
    let end = pos + direct.byte_offset();
    let item = map_entries(src, file, line, &entries);
    Some((item, end, count_nl(&text.as_bytes()[pos..end])))
}

#[cfg(test)]
mod tests {
    use super::super::json_array::file_items;
    use super::*;
    use proptest::prelude::*;

    fn source() -> SourceConfig {
        toml::from_str(
            "id = \"s\"\npath = \"x.json\"\nformat = \"json\"\nlicense = \"CC0-1.0\"\n\
             domain = \"d\"\nstyle = \"formal\"\n[fields]\ntext = \"text\"\nid = \"id\"\n\
             label = \"label\"\noptional = [\"label\"]\nextra = [\"x\"]\n",
        )
        .expect("source")
    }

    /// One JSON value of the kinds corpus files hold, and some they should not.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[가-힣a-z0-9 .!?ㅋ]{0,8}".prop_map(|s| format!("\"{s}\"")),
            "[가-힣a-z\"\\\\\n\t\u{1}]{0,6}".prop_map(|s| serde_json::to_string(&s).expect("json")),
            any::<i32>().prop_map(|n| n.to_string()),
            Just("null".to_string()),
            Just("true".to_string()),
            Just("[1, \"a\"]".to_string()),
            Just("{\"n\": {\"m\": \"가\"}}".to_string()),
        ]
    }

    fn element() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("text"),
            Just("id"),
            Just("label"),
            Just("x"),
            Just("te\\u0078t"),
        ];
        let ws = "[ \n\t\r]{0,2}";
        prop_oneof![
            8 => proptest::collection::vec((key, value(), ws), 0..5).prop_map(|fields| {
                let body: Vec<String> = fields
                    .iter()
                    .map(|(k, v, w)| format!("{w}\"{k}\"{w}:{w}{v}{w}"))
                    .collect();
                format!("{{{}}}", body.join(","))
            }),
            1 => value(),
            1 => Just("{\"text\": \"a\",}".to_string()),
        ]
    }

    proptest! {
        /// A file reads to the same items, lines and problems with the fast paths as
        /// without them.
        #[test]
        fn fast_paths_read_files_like_the_general_path(
            elements in proptest::collection::vec(element(), 0..6),
            sep in "[ \n]{0,2}",
            cut in 0usize..4,
        ) {
            let mut text = format!("[{sep}{}{sep}]", elements.join(&format!(",{sep}")));
            if cut == 0 {
                let mut at = text.len() * 2 / 3;
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                text.truncate(at);
            }
            let (src, file): (SourceConfig, Arc<str>) = (source(), "x.json".into());
            let fast = file_items(&src, &file, text.as_bytes(), true);
            let plain = file_items(&src, &file, text.as_bytes(), false);
            prop_assert_eq!(format!("{fast:?}"), format!("{plain:?}"), "{}", text);
        }
    }
}
