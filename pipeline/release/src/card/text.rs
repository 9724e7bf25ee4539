//! Writing the card's text: YAML keys, strings and feature types for the front matter, and
//! escaping for the Markdown and HTML of the datasheet.

use super::Feature;
use std::fmt::Write;

/// A YAML key or plain scalar when it is a plain word, else a quoted string.
pub(super) fn yaml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        k.to_string()
    } else {
        yaml_str(k)
    }
}

/// The `features` list entries of `fields` at `indent` (HF's YAML form: `- name:` then
/// `dtype:`, `struct:`, `sequence:`/`list:`).
pub(super) fn write_features(s: &mut String, fields: &[(String, Feature)], indent: usize) {
    let pad = " ".repeat(indent);
    for (name, f) in fields {
        let _ = writeln!(s, "{pad}- name: {}", yaml_key(name));
        write_type(s, f, indent + 2);
    }
}

pub(super) fn write_type(s: &mut String, f: &Feature, indent: usize) {
    let pad = " ".repeat(indent);
    match f {
        Feature::Value(t) => {
            let _ = writeln!(s, "{pad}dtype: {t}");
        }
        Feature::ClassLabel(names) => {
            let _ = writeln!(s, "{pad}dtype:\n{pad}  class_label:\n{pad}    names:");
            for (i, n) in names.iter().enumerate() {
                let _ = writeln!(s, "{pad}      '{i}': {}", yaml_str(n));
            }
        }
        Feature::Struct(fields) => {
            let _ = writeln!(s, "{pad}struct:");
            write_features(s, fields, indent);
        }
        Feature::List(inner) => match &**inner {
            Feature::Value(t) => {
                let _ = writeln!(s, "{pad}sequence: {t}");
            }
            Feature::Struct(fields) => {
                let _ = writeln!(s, "{pad}list:");
                write_features(s, fields, indent);
            }
            other => {
                let _ = writeln!(s, "{pad}sequence:");
                write_type(s, other, indent + 2);
            }
        },
    }
}

/// A YAML scalar: a JSON string (valid YAML), so no value can end the front matter or
/// add keys to it.
pub(super) fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

/// `&`, `<` and `>` as HTML entities: text from a recipe or input is shown, never rendered
/// as markup.
pub(super) fn html_escape(s: &str) -> String {
    kcurate_core::text::escape_markup(s, kcurate_core::text::Quotes::Keep)
}

/// A closing bracket that would make a link, an image or a link reference definition
/// (`[x](javascript:...)`, `[x][ref]`, `[ref]: url`) backslash-escaped: text from a recipe
/// never becomes a link, it shows as written. Other brackets stay as they are, so a
/// generated line quoting a file name keeps its `[0.30, 0.95]` interval readable.
fn no_links(s: &str) -> String {
    s.replace("](", "\\](")
        .replace("][", "\\][")
        .replace("]:", "\\]:")
}

/// A string from a recipe or input inside a Markdown table cell or a line: escaped HTML,
/// no links, `|` escaped, backticks made quotes, line breaks as spaces.
pub(super) fn md_inline(s: &str) -> String {
    no_links(&html_escape(s))
        .replace('|', "\\|")
        .replace('`', "'")
        .replace(['\r', '\n'], " ")
}

/// A paragraph from a recipe (the description): escaped HTML, no links, and a line that
/// Markdown or a front-matter reader would take as a heading, a rule, a setext underline or
/// a `---` block is escaped.
pub(super) fn md_block(s: &str) -> String {
    no_links(&html_escape(s))
        .lines()
        .map(|l| {
            let t = l.trim_start();
            if ["#", "---", "===", "***", "___", "+++"]
                .iter()
                .any(|m| t.starts_with(m))
            {
                format!("\\{t}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
