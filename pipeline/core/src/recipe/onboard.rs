//! What `kcurate check` says about each source beyond its keys: how TSV/CSV quotes are
//! read, a TSV whose fields look quoted while quoting is off (its quotes would reach the
//! release), a licence still the placeholder `kcurate init` writes, and `[source.fields]`
//! keys a `txt` source can never fill.

use super::{Format, SourceConfig};
use std::io::BufRead;
use std::path::Path;

/// The licence `kcurate init` writes: the licence gate does not know it, and `kcurate
/// check` refuses the recipe until it is replaced by the corpus's licence.
pub const LICENCE_PLACEHOLDER: &str = "FILL-IN: the corpus licence (SPDX id, e.g. CC-BY-SA-4.0)";

/// Whether `s` still carries the licence placeholder of `kcurate init`.
pub fn licence_unset(s: &SourceConfig) -> bool {
    s.license
        .as_deref()
        .is_some_and(|l| l.trim_start().starts_with("FILL-IN"))
}

/// A `txt` source's record is one line, its text: `[source.fields]` may only name it.
pub fn txt_fields_problem(s: &SourceConfig) -> Option<(&'static str, String)> {
    if s.format != Format::Txt {
        return None;
    }
    let f = &s.fields;
    let set = [
        ("id", f.id.is_some()),
        ("date", f.date.is_some()),
        ("label", f.label.is_some()),
        ("extra", !f.extra.is_empty()),
    ];
    let (key, _) = set.into_iter().find(|(_, on)| *on)?;
    Some((
        key,
        format!(
            "a `txt` source has one field per line, the text (named by `text`): `{key}` can \
             never be filled; remove it (a TSV/CSV/JSONL source carries ids, dates and labels)"
        ),
    ))
}

/// How the source's `"` are read, for TSV/CSV (None for other formats).
pub fn quoting_statement(s: &SourceConfig) -> Option<String> {
    let name = match s.format {
        Format::Tsv => "tsv",
        Format::Csv => "csv",
        _ => return None,
    };
    let on = s.quote.unwrap_or(s.format == Format::Csv);
    let why = match s.quote {
        Some(_) => "set by `quote`",
        None if on => "the default for CSV",
        None => "the default for TSV",
    };
    Some(if on {
        format!(
            "{name}, quote = true ({why}): a field in \"...\" may hold tabs, commas and newlines, \
             and \"\" inside it is one quote; the quotes around it are not text"
        )
    } else {
        format!(
            "{name}, quote = false ({why}): \" is an ordinary character and stays in the text; \
             set `quote = true` if fields are quoted"
        )
    })
}

/// Rows sampled per file by [`quoted_tsv_warning`].
const SAMPLE_ROWS: usize = 200;

/// For a TSV read without quoting: a warning when a column of the first rows of `path` is
/// quoted (`"..."`) in most rows, so its quotes would reach the release.
pub fn quoted_tsv_warning(s: &SourceConfig, shown: &str, path: &Path) -> Option<String> {
    if s.format != Format::Tsv || s.quote.unwrap_or(false) {
        return None;
    }
    let reader = crate::open::open(path).ok()?;
    let mut counts: Vec<(usize, usize)> = Vec::new();
    let mut example: Vec<Option<(u64, String)>> = Vec::new();
    let skip = usize::from(s.header);
    for (n, line) in reader.split(b'\n').enumerate().skip(skip).take(SAMPLE_ROWS) {
        let Ok(line) = line else { break };
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        for (c, cell) in line.split('\t').enumerate() {
            if counts.len() <= c {
                counts.resize(c + 1, (0, 0));
                example.resize(c + 1, None);
            }
            if cell.is_empty() {
                continue;
            }
            counts[c].1 += 1;
            if cell.len() >= 2 && cell.starts_with('"') && cell.ends_with('"') {
                counts[c].0 += 1;
                example[c].get_or_insert_with(|| (n as u64 + 1, cell.chars().take(60).collect()));
            }
        }
    }
    let (col, (quoted, cells)) = counts
        .iter()
        .enumerate()
        .find(|(_, (q, all))| *q >= 2 && *q * 2 > *all)?;
    let name = match (s.header, s.columns.get(col)) {
        (false, Some(n)) => format!("column {} ({n})", col + 1),
        _ => format!("column {}", col + 1),
    };
    let (line, cell) = example[col].clone().unwrap_or_default();
    Some(format!(
        "{shown}: {name} is quoted in {quoted} of {cells} rows read (line {line}: {cell}), but \
         this TSV source reads \" as text: the quotes (and doubled \"\") would reach the release; \
         set `quote = true`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(extra: &str) -> SourceConfig {
        toml::from_str(&format!(
            "id = \"a\"\npath = \"x\"\ndomain = \"d\"\nstyle = \"formal\"\n{extra}"
        ))
        .unwrap()
    }

    #[test]
    fn a_quoted_tsv_read_without_quoting_is_named_and_quoting_fixes_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.tsv");
        let rows = "1\t\"사랑과전쟁 레전드편\"\"여왕벌의 외출\"\"\"\n2\t\"둘\"\n3\t셋\n";
        std::fs::write(&p, rows).unwrap();
        let tsv = "format = \"tsv\"\nheader = false\ncolumns = [\"id\", \"t\"]\nfields = { text = \"t\" }";
        let w = quoted_tsv_warning(&source(tsv), "a.tsv", &p).expect("a warning");
        assert!(
            w.contains("column 2 (t) is quoted in 2 of 3 rows read (line 1"),
            "{w}"
        );
        let quoted = format!("{tsv}\nquote = true");
        assert_eq!(quoted_tsv_warning(&source(&quoted), "a.tsv", &p), None);
        assert!(
            quoting_statement(&source(tsv))
                .unwrap()
                .contains("the default for TSV")
        );
    }

    #[test]
    fn a_txt_source_cannot_name_an_id() {
        let s = source("format = \"txt\"\nfields = { text = \"text\", id = \"n\" }");
        assert_eq!(txt_fields_problem(&s).map(|p| p.0), Some("id"));
        let s = source("format = \"txt\"\nfields = { text = \"line\" }");
        assert_eq!(txt_fields_problem(&s), None);
    }
}
