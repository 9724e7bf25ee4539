//! An intent source's own intent map (`intents = { <source> = "<file>" }`): a TSV with a
//! header, either `line` and `intent` (a 1-based line of the source file → its intent) or
//! `block` and `intent` (paraKQC's `paraKQC_v1.intents.tsv`: the 0-based block of equal,
//! consecutive lines → its intent; the block length is the source's lines over the
//! file's blocks, so no length is assumed). Lines with one intent number form one intent,
//! wherever they are.

use kcurate_core::BuildError;
use std::collections::BTreeMap;
use std::path::Path;

/// An intent source's intents.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum IntentMap {
    /// 1-based source line → intent.
    Lines(BTreeMap<u64, u64>),
    /// Block → intent, for blocks `0..len` of equal length.
    Blocks(Vec<u64>),
}

impl IntentMap {
    /// The intent of the record at 1-based `line` of a source whose last line read is
    /// `last_line`; `None` for a line the file does not name.
    pub(super) fn intent(&self, line: u64, last_line: u64) -> Option<u64> {
        match self {
            IntentMap::Lines(m) => m.get(&line).copied(),
            IntentMap::Blocks(v) => {
                let len = last_line.div_ceil(v.len() as u64).max(1);
                v.get(((line.max(1) - 1) / len) as usize).copied()
            }
        }
    }
}

/// Reads an intent map; errors name the file, line and field.
pub(super) fn read(path: &Path) -> Result<IntentMap, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|e| BuildError::File {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse(&path.display().to_string(), &text)
}

/// Parses an intent map's `text`, read from `name`.
fn parse(name: &str, text: &str) -> Result<IntentMap, BuildError> {
    let at = |line: usize, message: String| BuildError::File {
        path: format!("{name}:{line}"),
        message,
    };
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) => h.trim_end_matches('\r').split('\t').collect(),
        None => {
            return Err(at(
                1,
                "empty: needs a header `block\tintent` or `line\tintent`".into(),
            ));
        }
    };
    let by_block = match header.as_slice() {
        ["block", "intent"] => true,
        ["line", "intent"] => false,
        _ => {
            return Err(at(
                1,
                format!("header {header:?}: needs `block\tintent` or `line\tintent`"),
            ));
        }
    };
    let mut rows: BTreeMap<u64, u64> = BTreeMap::new();
    for (i, l) in lines {
        let l = l.trim_end_matches('\r');
        if l.is_empty() {
            continue;
        }
        let num = |field: &str, v: Option<&str>| {
            v.and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| at(i + 1, format!("{field}: needs a whole number, got {v:?}")))
        };
        let mut f = l.split('\t');
        let key = num(header[0], f.next())?;
        let intent = num("intent", f.next())?;
        if rows.insert(key, intent).is_some() {
            return Err(at(i + 1, format!("{}: {key} is named twice", header[0])));
        }
    }
    if !by_block {
        return Ok(IntentMap::Lines(rows));
    }
    // Blocks must be 0, 1, 2, ... with none missing, or the block length is unknowable.
    if let Some((n, (b, _))) = rows.iter().enumerate().find(|(n, (b, _))| *n as u64 != **b) {
        return Err(at(
            n + 2,
            format!("block: {b} where block {n} was expected (blocks are 0, 1, 2, ... in order)"),
        ));
    }
    Ok(IntentMap::Blocks(rows.into_values().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_take_their_length_from_the_source_and_lines_map_directly() {
        let m = parse("i.tsv", "block\tintent\r\n0\t7\r\n1\t9\r\n2\t7\r\n").unwrap();
        // 12 lines over 3 blocks: 4 a block; blocks 0 and 2 are one intent.
        assert_eq!(m.intent(1, 12), Some(7));
        assert_eq!(m.intent(5, 12), Some(9));
        assert_eq!(m.intent(12, 12), Some(7));
        assert_eq!(m.intent(13, 12), None);
        let m = parse("i.tsv", "line\tintent\n1\t3\n2\t4\n").unwrap();
        assert_eq!(m.intent(2, 2), Some(4));
    }

    #[test]
    fn a_gap_in_the_blocks_or_a_bad_number_is_an_error_naming_the_line() {
        let e = parse("i.tsv", "block\tintent\n0\t1\n2\t2\n").unwrap_err();
        assert!(e.to_string().contains("i.tsv:3"), "{e}");
        let e = parse("i.tsv", "block\tintent\n0\tx\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("i.tsv:2") && e.contains("intent"), "{e}");
        let e = parse("i.tsv", "intent\tblock\n").unwrap_err().to_string();
        assert!(e.contains("i.tsv:1") && e.contains("header"), "{e}");
    }
}
