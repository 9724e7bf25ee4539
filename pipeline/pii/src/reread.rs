//! The leak check's own reading of a text: what a reader sees, made without the pii
//! stage's [`crate::view`] (other code, so a slip in one reading is not repeated in the
//! other). Character references are decoded by a pattern, formatting characters dropped,
//! the full-width block and no-break space put through NFKC, dash variants read as `-`,
//! numbers broken across a line joined, and the spellings of an email's `@` and `.` (`hong
//! @ example.com`, `hong(at)example.com`, `hong [at] example [dot] com`) read as those. The
//! result has no offsets: the leak check needs the values, not where they were.

use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::OnceLock;
use unicode_normalization::UnicodeNormalization;

struct Patterns {
    reference: Regex,
    wrap_after_dash: Regex,
    wrap_before_dash: Regex,
    at: Regex,
    dot: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        reference: Regex::new(r"&(?:#([0-9]{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z]{2,20}));")
            .expect("reference pattern"),
        // `010-2345-\n6789` and `010-2345\n-6789`: blanks holding a line break inside a number.
        wrap_after_dash: Regex::new(r"([0-9]-)[\t ]*[\r\n][\t\r\n ]*([0-9])")
            .expect("wrap pattern"),
        wrap_before_dash: Regex::new(r"([0-9])[\t ]*[\r\n][\t\r\n ]*(-[0-9])")
            .expect("wrap pattern"),
        at: Regex::new(r"([A-Za-z0-9._%+\-]) *(?:@|\([Aa][Tt]\)|\[[Aa][Tt]\]) *([A-Za-z0-9])")
            .expect("at pattern"),
        dot: Regex::new(r"([A-Za-z0-9]) *(?:\([Dd][Oo][Tt]\)|\[[Dd][Oo][Tt]\]) *([A-Za-z0-9])")
            .expect("dot pattern"),
    })
}

/// What a named reference stands for (the names a PII value can be spelled with).
fn named(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "commat" => '@',
        "period" => '.',
        "hyphen" | "dash" | "ndash" | "mdash" | "minus" => '-',
        "lpar" => '(',
        "rpar" => ')',
        "lsqb" | "lbrack" => '[',
        "rsqb" | "rbrack" => ']',
        "plus" => '+',
        "num" => '#',
        "colon" => ':',
        "sol" => '/',
        "lowbar" => '_',
        "percnt" => '%',
        "comma" => ',',
        "equals" => '=',
        "ast" => '*',
        "shy" | "zwsp" | "ZeroWidthSpace" | "zwj" | "zwnj" | "NoBreak" => '\u{200B}',
        _ => return None,
    })
}

/// Characters that take no room on screen: soft hyphen, zero-width and bidi marks, joiners,
/// invisible operators, BOM.
fn unseen(c: char) -> bool {
    matches!(c, '\u{AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
}

fn dash(c: char) -> bool {
    matches!(
        c,
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}'
    )
}

/// `text` as a reader sees it (borrowed when nothing changes).
pub fn reread(text: &str) -> Cow<'_, str> {
    let p = patterns();
    let mut t: Cow<str> = Cow::Borrowed(text);
    if t.contains('&') {
        let decoded = p.reference.replace_all(&t, |c: &Captures| {
            let ch = if let Some(d) = c.get(1) {
                d.as_str().parse().ok().and_then(char::from_u32)
            } else if let Some(h) = c.get(2) {
                u32::from_str_radix(h.as_str(), 16)
                    .ok()
                    .and_then(char::from_u32)
            } else {
                c.get(3).and_then(|n| named(n.as_str()))
            };
            ch.map_or_else(|| c[0].to_string(), String::from)
        });
        t = Cow::Owned(decoded.into_owned());
    }
    let wide = |c: char| ('\u{FF01}'..='\u{FF5E}').contains(&c) || c == '\u{A0}' || c == '\u{3000}';
    if !t.is_ascii() && t.chars().any(|c| unseen(c) || wide(c) || dash(c)) {
        let mapped: String = t
            .chars()
            .filter(|c| !unseen(*c))
            .flat_map(|c| -> Box<dyn Iterator<Item = char>> {
                if wide(c) {
                    Box::new(std::iter::once(c).nfkc())
                } else if dash(c) {
                    Box::new(std::iter::once('-'))
                } else {
                    Box::new(std::iter::once(c))
                }
            })
            .collect();
        t = Cow::Owned(mapped);
    }
    // `a(dot)b(dot)c`: a match takes the letter the next one needs, hence `dot` twice.
    let steps = [
        (&p.wrap_after_dash, "$1$2"),
        (&p.wrap_before_dash, "$1$2"),
        (&p.at, "$1@$2"),
        (&p.dot, "$1.$2"),
        (&p.dot, "$1.$2"),
    ];
    for (re, with) in steps {
        if let Cow::Owned(s) = re.replace_all(&t, with) {
            t = Cow::Owned(s);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::reread;

    /// Every PII spelling of the fixture, reread, is plain text the stage's reading leaves as
    /// it is (so the detector finds it there without [`crate::view`]); the texts that only
    /// look like PII hold none once reread.
    #[test]
    fn the_second_reading_alone_makes_every_spelling_plain() {
        let fixture = include_str!("../../../tests/fixtures/pii_spellings.tsv");
        let rows = fixture
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .skip(1);
        for l in rows {
            let f: Vec<&str> = l.split('\t').collect();
            let spelling = f[0].replace("\\n", "\n").replace("\\u00AD", "\u{AD}");
            let spelling = spelling.replace("\\u200B", "\u{200B}");
            let read = reread(&spelling);
            let kinds: Vec<String> = crate::detect(&read).into_iter().map(|s| s.kind).collect();
            if f[2] == "keep" {
                assert!(kinds.is_empty(), "{spelling:?} → {read:?}: {kinds:?}");
                continue;
            }
            assert!(!crate::view::needed(&read), "{spelling:?} → {read:?}");
            assert_eq!(kinds, [f[1]], "{spelling:?} → {read:?}");
        }
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for t in [
            "평범한 문장입니다.",
            "AT&T 와 R&D",
            "1990년\n2000년",
            "3시 @ 강남역",
        ] {
            assert_eq!(reread(t), t);
        }
        assert!(matches!(
            reread("평범한 문장"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
