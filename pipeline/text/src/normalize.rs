//! Unicode normalisation as KLUE §2.3 describes it, with every change reported.
//!
//! Steps, in order, each a rule id: `normalize.control` (C0/C1 control characters other
//! than tab and newline removed), `normalize.zero_width` (U+200B, U+200C, U+200D, U+FEFF,
//! U+2060 removed), `normalize.space` (NBSP and the other Unicode spaces → U+0020),
//! `normalize.fullwidth` (full-width ASCII → ASCII; optional), `normalize.nfc` (Unicode
//! NFC), `normalize.whitespace` (runs of blanks → one space, runs holding a line break →
//! one `\n`, ends trimmed).
//!
//! Compatibility jamo (`ㅋㅋ`, `ㅠㅠ`) and lone conjoining jamo used as symbols (`ᅲ`
//! U+1172, `ᆢ` U+11A2) survive: NFC composes only a leading consonant followed by a vowel,
//! and NFKC (which would rewrite compatibility jamo) is never applied.

use unicode_normalization::{UnicodeNormalization, is_nfc};

/// Which steps run. The default runs all but `fullwidth_ascii`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NormalizeOptions {
    /// Unicode NFC (`normalize.nfc`).
    pub nfc: bool,
    /// Remove zero-width characters and the BOM (`normalize.zero_width`).
    pub zero_width: bool,
    /// NBSP and the other Unicode spaces → U+0020 (`normalize.space`).
    pub unicode_spaces: bool,
    /// Remove C0/C1 controls other than tab and newline (`normalize.control`).
    pub control: bool,
    /// Full-width ASCII → ASCII (`normalize.fullwidth`); off by default.
    pub fullwidth_ascii: bool,
    /// Runs of blanks → one space, ends trimmed (`normalize.whitespace`).
    pub collapse_whitespace: bool,
    /// Keep line breaks (as one `\n`) when collapsing whitespace; the splitter treats a
    /// line break as a sentence boundary.
    pub keep_newlines: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            nfc: true,
            zero_width: true,
            unicode_spaces: true,
            control: true,
            fullwidth_ascii: false,
            collapse_whitespace: true,
            keep_newlines: true,
        }
    }
}

/// One change: `start..end` are character offsets into the text *before this step*.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The step's rule id (`normalize.*`).
    pub rule: &'static str,
    /// Start, in chars of the text before this step.
    pub start: usize,
    /// End (exclusive), in the same chars.
    pub end: usize,
    /// The text replaced.
    pub before: String,
    /// What replaced it (empty when removed).
    pub after: String,
}

#[inline]
fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{FEFF}' | '\u{2060}'
    )
}

#[inline]
fn is_control(c: char) -> bool {
    c.is_control() && !c.is_whitespace()
}

#[inline]
fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{000B}'
                | '\u{000C}'
                | '\u{0085}'
                | '\u{2028}'
                | '\u{2029}'
    )
}

#[inline]
fn is_fullwidth_ascii(c: char) -> bool {
    ('\u{FF01}'..='\u{FF5E}').contains(&c)
}

/// A per-character rewrite: `None` keeps the character, `Some(None)` removes it,
/// `Some(Some(r))` replaces it.
type CharRewrite = fn(char) -> Option<Option<char>>;

/// Applies a [`CharRewrite`]; runs of touched characters become one [`Change`].
fn map_chars(
    text: &str,
    rule: &'static str,
    f: impl Fn(char) -> Option<Option<char>>,
    changes: &mut Vec<Change>,
) -> Option<String> {
    if !text.chars().any(|c| f(c).is_some()) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    // The run of touched characters being read: (start, before, after).
    let mut run: Option<(usize, String, String)> = None;
    let end_run =
        |run: &mut Option<(usize, String, String)>, end: usize, changes: &mut Vec<Change>| {
            if let Some((start, before, after)) = run.take() {
                changes.push(Change {
                    rule,
                    start,
                    end,
                    before,
                    after,
                });
            }
        };
    let mut n = 0usize;
    for c in text.chars() {
        match f(c) {
            None => {
                end_run(&mut run, n, changes);
                out.push(c);
            }
            Some(r) => {
                let (_, b, a) = run.get_or_insert_with(|| (n, String::new(), String::new()));
                b.push(c);
                if let Some(r) = r {
                    a.push(r);
                    out.push(r);
                }
            }
        }
        n += 1;
    }
    end_run(&mut run, n, changes);
    Some(out)
}

/// Normalises `text`; returns the new text and the changes in the order they were made.
/// Returns the input unchanged (and no changes) when there is nothing to do.
pub fn normalize(text: &str, o: &NormalizeOptions) -> (String, Vec<Change>) {
    let mut changes = Vec::new();
    if is_clean(text, o) {
        return (text.to_string(), changes);
    }
    let mut cur: std::borrow::Cow<str> = std::borrow::Cow::Borrowed(text);
    // The per-character steps, in the order they run: (on, rule, rewrite). Whitespace
    // controls (tab, line breaks, VT, FF) are left to the space and whitespace steps.
    let steps: [(bool, &'static str, CharRewrite); 4] = [
        (o.control, "normalize.control", |c| {
            is_control(c).then_some(None)
        }),
        (o.zero_width, "normalize.zero_width", |c| {
            is_zero_width(c).then_some(None)
        }),
        (o.unicode_spaces, "normalize.space", |c| match c {
            '\u{2028}' | '\u{2029}' | '\u{0085}' => Some(Some('\n')),
            c if is_unicode_space(c) => Some(Some(' ')),
            _ => None,
        }),
        (o.fullwidth_ascii, "normalize.fullwidth", |c| {
            is_fullwidth_ascii(c)
                .then(|| char::from_u32(c as u32 - 0xFEE0))
                .flatten()
                .map(Some)
        }),
    ];
    for (on, rule, rewrite) in steps {
        if on && let Some(s) = map_chars(&cur, rule, rewrite, &mut changes) {
            cur = s.into();
        }
    }
    if o.nfc && !is_nfc(&cur) {
        // NFC never acts across whitespace (a starter that composes with nothing), so each
        // word is normalised and reported on its own.
        let mut new = String::with_capacity(cur.len());
        let mut chars_before = 0usize;
        for word in cur.split_inclusive(char::is_whitespace) {
            let n = word.chars().count();
            if is_nfc(word) {
                new.push_str(word);
            } else {
                let w: String = word.nfc().collect();
                if w != word {
                    let mut c = diff_change("normalize.nfc", word, &w);
                    c.start += chars_before;
                    c.end += chars_before;
                    changes.push(c);
                }
                new.push_str(&w);
            }
            chars_before += n;
        }
        cur = new.into();
    }
    if o.collapse_whitespace
        && let Some(s) = collapse(&cur, o.keep_newlines, &mut changes)
    {
        cur = s.into();
    }
    (cur.into_owned(), changes)
}

/// Characters that no step touches and that NFC leaves alone whatever follows them:
/// ASCII (not controls), Hangul syllables, compatibility jamo, common punctuation.
#[inline]
pub(crate) fn plain_char(c: char) -> bool {
    matches!(c,
        ' '..='~' | '\u{AC00}'..='\u{D7A3}' | '\u{3131}'..='\u{318E}' | '\u{2010}'..='\u{2027}'
        | '\u{2030}'..='\u{205E}' | '\u{3001}'..='\u{3029}' | '\u{3030}'..='\u{303F}'
        | '\u{2190}'..='\u{2BFF}' | '\u{00A1}'..='\u{00FF}')
}

/// One pass: nothing for any step to do (the common case for clean corpora). Conservative:
/// a text it refuses may still come out of [`normalize`] unchanged.
pub fn is_clean(text: &str, o: &NormalizeOptions) -> bool {
    let b = text.as_bytes();
    if o.collapse_whitespace
        && (b.first() == Some(&b' ')
            || b.last() == Some(&b' ')
            || b.last() == Some(&b'\n')
            || b.first() == Some(&b'\n'))
    {
        return false;
    }
    let mut prev_space = false;
    for c in text.chars() {
        if c == '\n' {
            if !o.keep_newlines || prev_space {
                return false;
            }
            prev_space = true;
            continue;
        }
        if !plain_char(c) {
            return false;
        }
        if c == ' ' {
            if prev_space && o.collapse_whitespace {
                return false;
            }
            prev_space = true;
        } else {
            prev_space = false;
        }
    }
    true
}

/// One change covering the differing middle of `a` and `b`.
fn diff_change(rule: &'static str, a: &str, b: &str) -> Change {
    let ac: Vec<char> = a.chars().collect();
    let bc: Vec<char> = b.chars().collect();
    let pre = ac.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    let max_suf = ac.len().min(bc.len()) - pre;
    let suf = ac
        .iter()
        .rev()
        .zip(bc.iter().rev())
        .take(max_suf)
        .take_while(|(x, y)| x == y)
        .count();
    Change {
        rule,
        start: pre,
        end: ac.len() - suf,
        before: ac[pre..ac.len() - suf].iter().collect(),
        after: bc[pre..bc.len() - suf].iter().collect(),
    }
}

fn collapse(text: &str, keep_newlines: bool, changes: &mut Vec<Change>) -> Option<String> {
    // Fast path: nothing to collapse.
    let b = text.as_bytes();
    let mut dirty = b.first().is_some_and(|c| c.is_ascii_whitespace())
        || b.last().is_some_and(|c| c.is_ascii_whitespace());
    if !dirty {
        let mut prev_ws = false;
        for &c in b {
            let ws = c.is_ascii_whitespace();
            if ws && (prev_ws || c != b' ' && !(keep_newlines && c == b'\n')) {
                dirty = true;
                break;
            }
            prev_ws = ws;
        }
    }
    if !dirty {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_whitespace() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let s = i;
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        let run: String = chars[s..i].iter().collect();
        let at_edge = s == 0 || i == chars.len();
        let repl = if at_edge {
            ""
        } else if keep_newlines && run.contains(['\n', '\r']) {
            "\n"
        } else {
            " "
        };
        if run != repl {
            changes.push(Change {
                rule: "normalize.whitespace",
                start: s,
                end: i,
                before: run,
                after: repl.to_string(),
            });
        }
        out.push_str(repl);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        normalize(s, &NormalizeOptions::default()).0
    }

    #[test]
    fn removes_zero_width_and_controls_and_spaces() {
        let (t, ch) = normalize(
            "좋\u{200B}아요\u{00A0}\u{00A0}정말\u{0007}",
            &NormalizeOptions::default(),
        );
        assert_eq!(t, "좋아요 정말");
        let rules: Vec<_> = ch.iter().map(|c| c.rule).collect();
        assert_eq!(
            rules,
            [
                "normalize.control",
                "normalize.zero_width",
                "normalize.space",
                "normalize.whitespace"
            ]
        );
        assert_eq!(ch[1].start, 1);
        assert_eq!(ch[1].before, "\u{200B}");
    }

    #[test]
    fn jamo_symbols_survive() {
        for s in [
            "재밌어요ᅲᅲ",
            "아ᆢ 그렇구나",
            "ㅋㅋㅋ 웃김 ㅠㅠ",
            "ㅎㅎ",
            "좋아ᅲ",
        ] {
            assert_eq!(norm(s), s, "{s:?}");
        }
    }

    #[test]
    fn nfc_composes_decomposed_hangul() {
        let (t, ch) = normalize("\u{1112}\u{1161}\u{11AB}글", &NormalizeOptions::default());
        assert_eq!(t, "한글");
        assert_eq!(ch[0].rule, "normalize.nfc");
        assert_eq!((ch[0].start, ch[0].end), (0, 3));
    }

    #[test]
    fn nfc_changes_are_reported_per_word() {
        let (t, ch) = normalize("\u{F9B5} 그리고 \u{F9B5}", &NormalizeOptions::default());
        assert_eq!(t, "\u{4F8B} 그리고 \u{4F8B}");
        assert_eq!(ch.len(), 2);
        assert_eq!((ch[1].start, ch[1].end), (6, 7));
    }

    #[test]
    fn fullwidth_is_optional() {
        let o = NormalizeOptions {
            fullwidth_ascii: true,
            ..Default::default()
        };
        assert_eq!(normalize("ＡＢＣ１２３！", &o).0, "ABC123!");
        assert_eq!(norm("ＡＢＣ"), "ＡＢＣ");
    }

    #[test]
    fn newlines_kept_once() {
        assert_eq!(norm("  첫 줄 \r\n\n  둘째   줄  "), "첫 줄\n둘째 줄");
        assert_eq!(
            normalize(
                "a\n\nb",
                &NormalizeOptions {
                    keep_newlines: false,
                    ..Default::default()
                }
            )
            .0,
            "a b"
        );
    }
}
