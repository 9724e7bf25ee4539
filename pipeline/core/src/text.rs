//! Small text helpers the crates share: the multiset overlap of two sorted lists (ROUGE-N
//! and `why`'s Dice similarity) and markup escaping (the dataset card, report.html, Label
//! Studio labeling configs).

/// Multiset overlap of two sorted lists: how many elements they have in common, each
/// counted as often as it appears in both.
pub fn overlap_sorted<T: Ord>(a: &[T], b: &[T]) -> u64 {
    let (mut i, mut j, mut o) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                o += 1;
                i += 1;
                j += 1;
            }
        }
    }
    o
}

/// Which quotes [`escape_markup`] escapes besides `&`, `<` and `>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quotes {
    /// None: text between tags.
    Keep,
    /// `"` as `&quot;`: a double-quoted attribute.
    Double,
    /// `"` and `'` (`&apos;`): an attribute in either quotes.
    Both,
}

/// `s` with `&`, `<`, `>` and the `quotes` asked for as entities: text from a recipe or
/// input is shown, never read as markup.
pub fn escape_markup(s: &str, quotes: Quotes) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes != Quotes::Keep => out.push_str("&quot;"),
            '\'' if quotes == Quotes::Both => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_counts_shared_elements_with_multiplicity() {
        assert_eq!(overlap_sorted(&[1, 1, 2, 3], &[1, 1, 1, 3, 4]), 3);
        assert_eq!(overlap_sorted::<u8>(&[], &[1]), 0);
    }

    #[test]
    fn markup_escapes_the_quotes_asked_for() {
        let s = r#"a&b <c> "d" 'e'"#;
        assert_eq!(
            escape_markup(s, Quotes::Keep),
            r#"a&amp;b &lt;c&gt; "d" 'e'"#
        );
        assert_eq!(
            escape_markup(s, Quotes::Double),
            "a&amp;b &lt;c&gt; &quot;d&quot; 'e'"
        );
        assert_eq!(
            escape_markup(s, Quotes::Both),
            "a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos;"
        );
    }
}
