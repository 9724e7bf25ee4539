//! What a recipe error about a key says beyond serde's words: for an unknown key the closest
//! known one ("did you mean `fields`?"), for a missing key what it is and, in a
//! `[[source]]`, what this source's format expects there.

use super::doc::{self, KeyDoc};

/// serde's `message` about the table whose line `line` (1-based) of `text` is in, with the
/// closest known key of an unknown one, or the documentation of a missing one.
pub(super) fn explain(message: &str, text: &str, line: usize) -> String {
    let header = header_above(text, line);
    if message.starts_with("unknown field `") {
        return with_closest_key(message);
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let key = rest.split('`').next().unwrap_or(rest);
        let format = header
            .as_deref()
            .filter(|h| h.starts_with("[[source]]") || h.starts_with("[source"))
            .and_then(|_| source_format(text, line));
        return format!(
            "{message}: {}",
            missing_hint(key, header.as_deref(), format)
        );
    }
    message.to_string()
}

/// What a missing `key` is, in the table `header`, for a source of `format`.
fn missing_hint(key: &str, header: Option<&str>, format: Option<String>) -> String {
    if key == "fields" || header == Some("[source.fields]") && key == "text" {
        return fields_hint(format.as_deref());
    }
    let doc: Option<&KeyDoc> = doc::keys_of(header.unwrap_or(""))
        .iter()
        .chain(doc::TABLES.iter().flat_map(|t| t.keys))
        .find(|d| d.key == key);
    match doc {
        Some(d) => format!("{} ({}), e.g. `{}`", d.doc, d.ty, d.example),
        None => "see `kcurate recipe --doc`".into(),
    }
}

/// serde's `message` holding `unknown field `x`, expected ...` anywhere (a stage's
/// settings), with the closest expected key when `x` looks like a slip of one.
pub fn with_closest_key(message: &str) -> String {
    let Some((_, rest)) = message.split_once("unknown field `") else {
        return message.to_string();
    };
    let (bad, expected) = rest.split_once('`').unwrap_or((rest, ""));
    match closest(bad, &backticked(expected)) {
        Some(near) => format!("{message}; did you mean `{near}`?"),
        None => message.to_string(),
    }
}

/// What `[source.fields]` needs for a source of `format`.
pub fn fields_hint(format: Option<&str>) -> String {
    match format {
        Some("txt") => "a `txt` source needs `[source.fields]` with only `text` (each line is \
             one record's text; `text = \"text\"`)"
            .into(),
        Some(f @ ("tsv" | "csv")) => format!(
            "a `{f}` source needs `[source.fields]` naming the column of the text (`text = \
             \"document\"`), and may name `id`, `date`, `label` and `extra` columns (the \
             header's names, or `columns` when `header = false`)"
        ),
        Some(f) => format!(
            "a `{f}` source needs `[source.fields]` naming the key of the text (`text = \
             \"text\"`), and may name `id`, `date`, `label` and `extra` keys"
        ),
        None => "a source needs `[source.fields]` with at least `text` (the field holding the \
                 text; `kcurate init FILE` proposes them)"
            .into(),
    }
}

/// The header of the table line `line` is in (`[[source]]`, `[source.fields]`), if any.
fn header_above(text: &str, line: usize) -> Option<String> {
    text.lines()
        .take(line)
        .filter(|l| l.trim_start().starts_with('['))
        .last()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
}

/// The `format` of the `[[source]]` that line `line` belongs to.
fn source_format(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines[..line.min(lines.len())]
        .iter()
        .rposition(|l| l.trim_start().starts_with("[[source]]"))?;
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.trim_start().starts_with("[["))
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "format").then(|| v.trim().trim_matches('"').to_string())
        })
}

fn backticked(s: &str) -> Vec<&str> {
    s.split('`').skip(1).step_by(2).collect()
}

/// The known key closest to `bad` by edit distance (a swap of two neighbours counts one),
/// if it is close enough to be a slip: at most 2 edits, and fewer than half of `bad`.
pub fn closest<'a>(bad: &str, known: &[&'a str]) -> Option<&'a str> {
    let (d, best) = known
        .iter()
        .map(|k| (edit_distance(&bad.to_lowercase(), k), *k))
        .min()?;
    (d <= 2 && d * 2 < bad.chars().count().max(2)).then_some(best)
}

/// Optimal string alignment distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_finds_the_key_and_a_stranger_finds_none() {
        let known = ["id", "path", "format", "fields", "license", "quote"];
        assert_eq!(closest("fileds", &known), Some("fields"));
        assert_eq!(closest("licence", &known), Some("license"));
        assert_eq!(closest("qoute", &known), Some("quote"));
        assert_eq!(closest("colour", &known), None);
        assert_eq!(closest("x", &known), None);
    }

    #[test]
    fn a_missing_fields_table_names_what_a_txt_source_needs() {
        let text = "name = \"t\"\n[[source]]\nid = \"a\"\nformat = \"txt\"\n";
        let m = explain("missing field `fields`", text, 2);
        assert!(
            m.contains("a `txt` source needs `[source.fields]` with only `text`"),
            "{m}"
        );
    }
}
