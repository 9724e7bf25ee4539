//! JSON-array files (the unit NSMC ships): one array of objects per file, read whole and
//! cut element by element with the line each starts on.

use super::bytes::{count_nl, skip_ws, utf8};
use super::decode::decode_all;
use super::fields::map_json_object;
use super::json_array_fast::fast_element;
use super::{FileDigest, FileItems, Item, malformed, over_limit, too_deep, unreadable};
use kcurate_core::json_scan::container_end;
use kcurate_core::recipe::SourceConfig;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// One JSON array of objects per file, element by element with the line each starts on. A
/// syntax error stops that file with one malformed item naming the line it is on.
/// `key` is the [`path_key`] of the file's path as [`list_files`] shows it.
pub(super) fn json_array_items(
    src: &SourceConfig,
    file: String,
    key: u64,
    path: &Path,
) -> FileItems {
    let file: Arc<str> = file.into();
    let cap = src.record_limit() as u64 * 4;
    let mut data = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| {
        // Sized from the file's length: `take` hides it from `read_to_end`, which would
        // otherwise grow the buffer (and copy it) a few times per file.
        let len = f.metadata().map_or(0, |m| m.len());
        data.reserve_exact(len.min(cap + 1) as usize);
        let n = f.take(cap + 1).read_to_end(&mut data)?;
        super::decode::count_read(n as u64);
        Ok(n)
    });
    if let Err(e) = read {
        return FileItems {
            items: vec![unreadable(&file, 0, format!("cannot open: {e}"))],
            digest: None,
        };
    }
    // The manifest's hash is of the file as on disk, compressed or not.
    let digest = (data.len() as u64 <= cap).then(|| FileDigest {
        path_key: key,
        sha256: kcurate_core::hash::sha256(&data),
        size: data.len() as u64,
    });
    let data = match decode_all(data, cap) {
        Ok(d) => d,
        Err(e) => {
            return FileItems {
                items: vec![unreadable(&file, 0, format!("read error: {e}"))],
                digest,
            };
        }
    };
    if data.len() as u64 > cap {
        return FileItems {
            items: vec![over_limit(
                &file,
                0,
                "-",
                format!("JSON-array file larger than 4 × max_record_bytes ({cap} bytes)"),
            )],
            digest,
        };
    }
    FileItems {
        items: json_array_file_items(src, &file, &data),
        digest,
    }
}

/// The items of a JSON-array file's bytes (see [`json_array_items`]).
fn json_array_file_items(src: &SourceConfig, file: &Arc<str>, data: &[u8]) -> Vec<Item> {
    file_items(src, file, data, true)
}

/// [`json_array_file_items`], with the fast paths for elements or (`fast` false, the
/// oracle of the property tests) without them.
pub(super) fn file_items(
    src: &SourceConfig,
    file: &Arc<str>,
    data: &[u8],
    fast: bool,
) -> Vec<Item> {
    let text = match utf8(data) {
        Ok(t) => t,
        Err(e) => return vec![invalid_utf8(file, data, e.valid_up_to())],
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut cur = Cursor {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
    };
    cur.skip_ws_from(0);
    if cur.pos >= cur.bytes.len() {
        return vec![unreadable(file, 0, "empty file: no records")];
    }
    if cur.bytes[cur.pos] != b'[' {
        return vec![malformed(
            file,
            cur.line as u64,
            "-",
            "expected a JSON array of objects",
        )];
    }
    let mut items = Vec::new();
    // An element's entries, reused from one element to the next.
    let mut plain = Vec::new();
    cur.skip_ws_from(cur.pos + 1);
    loop {
        if cur.pos >= cur.bytes.len() {
            items.push(malformed(
                file,
                cur.line as u64,
                "-",
                "truncated JSON array: missing `]`",
            ));
            return items;
        }
        if cur.bytes[cur.pos] == b']' {
            return close_array(file, cur.bytes, cur.pos, cur.line, items);
        }
        let Some((end, newlines)) = element(src, file, &cur, fast, &mut plain, &mut items) else {
            return items;
        };
        cur.line += newlines;
        cur.skip_ws_from(end);
        match cur.bytes.get(cur.pos) {
            Some(b',') => cur.skip_ws_from(cur.pos + 1),
            Some(b']') => return close_array(file, cur.bytes, cur.pos, cur.line, items),
            _ => {
                items.push(malformed(
                    file,
                    cur.line as u64,
                    "-",
                    "truncated JSON array: expected `,` or `]`",
                ));
                return items;
            }
        }
    }
}

/// Where the scan of a JSON-array file's text stands: the byte it is at and that byte's line.
struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl Cursor<'_> {
    /// Moves to the first non-blank byte from `from`, counting the newlines passed.
    #[inline]
    fn skip_ws_from(&mut self, from: usize) {
        let next = skip_ws(self.bytes, from);
        self.line += count_nl(&self.bytes[from..next]);
        self.pos = next;
    }
}

/// The decision for a file that is not UTF-8: the line of its first invalid byte.
fn invalid_utf8(file: &Arc<str>, data: &[u8], valid_up_to: usize) -> Item {
    let line =
        kcurate_core::recipe::line_of(&String::from_utf8_lossy(&data[..valid_up_to]), valid_up_to)
            as u64;
    malformed(
        file,
        line,
        "-",
        format!("invalid UTF-8 at byte offset {valid_up_to}"),
    )
}

/// Reads the element at the cursor into `items`: where it ends and the newlines inside it,
/// or `None` when the file stops there (its last item says why). An element longer than the
/// record limit is an `ingest.over_limit` decision in place of what it read as.
#[inline]
fn element<'a>(
    src: &SourceConfig,
    file: &Arc<str>,
    cur: &Cursor<'a>,
    fast: bool,
    plain: &mut Vec<(&'a str, &'a str)>,
    items: &mut Vec<Item>,
) -> Option<(usize, usize)> {
    let (pos, line) = (cur.pos, cur.line as u64);
    // Most elements take the fast paths (`json_array_fast.rs`); anything else (keys with
    // escapes, another kind of value, invalid JSON) is cut out whole first and takes the
    // general path.
    let fast_hit = if fast {
        fast_element(src, file, line, cur.text, pos, plain)
    } else {
        None
    };
    let (end, newlines) = if let Some((item, end, newlines)) = fast_hit {
        items.push(item);
        (end, newlines)
    } else {
        general_element(src, file, cur, items)?
    };
    if end - pos > src.record_limit() {
        items.pop();
        items.push(over_limit(
            file,
            line,
            "-",
            format!(
                "record longer than max_record_bytes ({} bytes)",
                src.record_limit()
            ),
        ));
    }
    Some((end, newlines))
}

/// [`element`] through `serde_json`, for the elements the fast paths leave.
fn general_element(
    src: &SourceConfig,
    file: &Arc<str>,
    cur: &Cursor<'_>,
    items: &mut Vec<Item>,
) -> Option<(usize, usize)> {
    let (bytes, pos, line) = (cur.bytes, cur.pos, cur.line as u64);
    let mut de = serde_json::Deserializer::from_str(&cur.text[pos..])
        .into_iter::<&serde_json::value::RawValue>();
    match de.next() {
        Some(Ok(raw)) => {
            items.push(map_json_object(src, file, line, raw.get()));
            let end = pos + de.byte_offset();
            Some((end, count_nl(&bytes[pos..end])))
        }
        // Not read, and nested past the depth limit (what the parse of a readable
        // element would find first): one `ingest.over_limit` decision, and the next
        // element is read.
        Some(Err(_)) if let Some((end, true)) = container_end(bytes, pos, src.limits.max_depth) => {
            items.push(over_limit(file, line, "-", too_deep(src)));
            Some((end, count_nl(&bytes[pos..end])))
        }
        Some(Err(e)) => {
            let at = line + e.line() as u64 - 1;
            let reason = format!(
                "invalid JSON in the record starting here (error on line {at}): {e}; \
                 rest of file skipped"
            );
            items.push(malformed(file, line, "-", reason));
            None
        }
        None => {
            items.push(malformed(file, line, "-", "truncated JSON array"));
            None
        }
    }
}

/// The items of a JSON array whose closing `]` is at `pos` (on `line`): content after it (a
/// second array, stray text) is a malformed item, so its records never vanish unnoticed;
/// an array without elements is an empty file.
fn close_array(
    file: &Arc<str>,
    bytes: &[u8],
    pos: usize,
    mut line: usize,
    mut items: Vec<Item>,
) -> Vec<Item> {
    let after = skip_ws(bytes, pos + 1);
    if after < bytes.len() {
        line += count_nl(&bytes[pos..after]);
        items.push(malformed(
            file,
            line as u64,
            "-",
            "content after the JSON array's closing `]`",
        ));
    } else if items.is_empty() {
        return vec![unreadable(file, 0, "empty JSON array: no records")];
    }
    items
}
