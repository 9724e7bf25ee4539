//! The vote-carrying controls a Label Studio labeling config names.

use super::VOTE_TYPES;

/// The control names of vote-carrying tags (`<Choices name="…">`, `<Number>`, `<Rating>`) in
/// a labeling config, in document order.
pub fn config_controls(xml: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(k) = rest.find('<') {
        rest = &rest[k + 1..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        let name_end = tag
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(tag.len());
        let kind = tag[..name_end].to_ascii_lowercase();
        if VOTE_TYPES.contains(&kind.as_str())
            && let Some(name) = attribute(&tag[name_end..], "name")
        {
            out.push(name.to_string());
        }
        rest = &rest[end..];
    }
    out
}

fn attribute<'a>(attrs: &'a str, key: &str) -> Option<&'a str> {
    let mut rest = attrs;
    while let Some(k) = rest.find('=') {
        let name = rest[..k].trim().rsplit(char::is_whitespace).next()?;
        let after = rest[k + 1..].trim_start();
        let q = after.chars().next()?;
        if q != '"' && q != '\'' {
            return None;
        }
        let close = after[1..].find(q)?;
        if name == key {
            return Some(&after[1..1 + close]);
        }
        rest = &after[close + 2..];
    }
    None
}
