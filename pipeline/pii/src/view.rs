//! The text as a reader sees it, for detection: HTML character references decoded
//! (`&#45;`, `&#x40;`, `&commat;`), invisible characters removed (soft hyphen, zero-width
//! space and joiners, word joiner, BOM), a number wrapped across a line joined
//! (`010-2345-\n6789`), and the common spellings of an email's `@` and `.` read as those
//! (`hong @ example.com`, `hong(at)example.com`, `hong [at] example(dot)com`).
//!
//! A [`View`] keeps, for each character it shows, the range of written characters it was
//! read from, so a span found on the view is a span of the written text
//! ([`View::to_written`]), and a pseudonym made on the view is written back in the
//! original's spelling ([`View::respell`]): a changed character takes the width or the
//! character reference it was written with; what the reader does not see stays as written.
//! Width folding (`０１０` → `010`) is not done here: it maps one character to one and is
//! [`crate::fold`]'s.

use crate::fold::fold_char;

mod entities;

/// A reading of a text: the characters a reader sees, each with the written characters it
/// comes from.
#[derive(Debug, Clone)]
pub struct View {
    /// The text as read.
    pub text: String,
    chars: Vec<char>,
    /// For each character of `text`, the written characters `[start, end)` it was read from.
    src: Vec<(usize, usize)>,
}

/// Characters a reader does not see: soft hyphen, zero-width space, non-joiner and joiner,
/// word joiner, zero-width no-break space (BOM).
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}' | '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
    )
}

/// Whether the reading of `text` may differ from `text`: one pass over the bytes, as the
/// detectors run on every sentence and most have none of what a reading changes.
pub fn needed(text: &str) -> bool {
    let b = text.as_bytes();
    let at = |i: usize| b.get(i).copied();
    let (mut newline, mut dash) = (false, false);
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'&' => return true,
            b'\n' => newline = true,
            b'-' => dash = true,
            b'(' | b'[' => {
                let word = |w: &[u8]| {
                    b.len() > i + w.len() && b[i + 1..=i + w.len()].eq_ignore_ascii_case(w)
                };
                if word(b"at") || word(b"dot") {
                    return true;
                }
            }
            b'@' if (i > 0 && b[i - 1] == b' ') || at(i + 1) == Some(b' ') => return true,
            // U+00A0 no-break space, U+00AD soft hyphen.
            0xC2 if matches!(at(i + 1), Some(0xA0 | 0xAD)) => return true,
            0xE2 => match (at(i + 1), at(i + 2)) {
                // U+200B..U+200D zero-width space and joiners, U+2060 word joiner.
                (Some(0x80), Some(0x8B..=0x8D)) | (Some(0x81), Some(0xA0)) => return true,
                // U+2010..U+2013 hyphens and dashes, U+2212 minus.
                (Some(0x80), Some(0x90..=0x93)) | (Some(0x88), Some(0x92)) => dash = true,
                _ => {}
            },
            0xEF => match (at(i + 1), at(i + 2)) {
                // U+FEFF BOM.
                (Some(0xBB), Some(0xBF)) => return true,
                // U+FF20 `＠` with a space beside it.
                (Some(0xBC), Some(0xA0))
                    if (i > 0 && b[i - 1] == b' ') || at(i + 3) == Some(b' ') =>
                {
                    return true;
                }
                // U+FF0D full-width hyphen-minus.
                (Some(0xBC), Some(0x8D)) => dash = true,
                _ => {}
            },
            _ => {}
        }
    }
    newline && dash
}

fn is_dash(c: char) -> bool {
    fold_char(c) == '-'
}

fn is_digit(c: char) -> bool {
    fold_char(c).is_ascii_digit()
}

/// A character of an email's local part or domain, after width folding.
fn is_email_char(c: char) -> bool {
    let c = fold_char(c);
    c.is_ascii_alphanumeric() || "._%+-".contains(c)
}

impl View {
    /// Reads `written`.
    pub fn new(written: &str) -> View {
        let w: Vec<char> = written.chars().collect();
        let decoded = decode(&w);
        let mut v = View {
            text: String::with_capacity(written.len()),
            chars: Vec::with_capacity(decoded.len()),
            src: Vec::with_capacity(decoded.len()),
        };
        let mut k = 0;
        while k < decoded.len() {
            if let Some(next) = v
                .line_wrap(&decoded, k)
                .or_else(|| v.obfuscated(&decoded, k))
            {
                k = next;
                continue;
            }
            let (c, s) = decoded[k];
            v.push(if c == '\u{A0}' { ' ' } else { c }, s);
            k += 1;
        }
        v.text = v.chars.iter().collect();
        v
    }

    fn push(&mut self, c: char, src: (usize, usize)) {
        self.chars.push(c);
        self.src.push(src);
    }

    /// At a blank run holding a line break between `<digit>-` and a digit (or between a
    /// digit and `-<digit>`): the index after the run, which the reading skips.
    fn line_wrap(&self, d: &[(char, (usize, usize))], k: usize) -> Option<usize> {
        if !d[k].0.is_whitespace() {
            return None;
        }
        let end = k + d[k..].iter().take_while(|(c, _)| c.is_whitespace()).count();
        if !d[k..end].iter().any(|(c, _)| matches!(c, '\n' | '\r')) {
            return None;
        }
        let n = self.chars.len();
        let before = |i: usize| n.checked_sub(i).map(|j| self.chars[j]);
        let after = |i: usize| d.get(end + i).map(|x| x.0);
        let dash_digit = before(1).is_some_and(is_dash)
            && before(2).is_some_and(is_digit)
            && after(0).is_some_and(is_digit);
        let digit_dash = before(1).is_some_and(is_digit)
            && after(0).is_some_and(is_dash)
            && after(1).is_some_and(is_digit);
        (dash_digit || digit_dash).then_some(end)
    }

    /// At an obfuscated `@` or `.` of an email (`hong @ example.com`, `hong(at)example`,
    /// `example [dot] com`), between email characters: reads it as `@`/`.` and returns the
    /// index after it (the blanks around it are skipped).
    fn obfuscated(&mut self, d: &[(char, (usize, usize))], k: usize) -> Option<usize> {
        if !self.chars.last().is_some_and(|c| is_email_char(*c)) {
            return None;
        }
        let blanks = |from: usize| d[from..].iter().take_while(|(c, _)| *c == ' ').count();
        let at = k + blanks(k);
        if !d
            .get(at)
            .is_some_and(|x| matches!(fold_char(x.0), '@' | '(' | '['))
        {
            return None;
        }
        let word = |w: &str| -> Option<usize> {
            let n = w.chars().count();
            let got: String = d.get(at..at + n)?.iter().map(|(c, _)| *c).collect();
            got.eq_ignore_ascii_case(w).then_some(n)
        };
        let (read, len) = if matches!(d.get(at).map(|x| fold_char(x.0)), Some('@')) {
            ('@', 1)
        } else if let Some(n) = word("(at)").or_else(|| word("[at]")) {
            ('@', n)
        } else if let Some(n) = word("(dot)").or_else(|| word("[dot]")) {
            ('.', n)
        } else {
            return None;
        };
        // A plain `@` or `＠` with nothing around it reads as written.
        if len == 1 && at == k && d.get(k + 1).is_some_and(|x| x.0 != ' ') {
            return None;
        }
        let after = at + len;
        let end = after + blanks(after);
        let next_ok = d
            .get(end)
            .is_some_and(|(c, _)| fold_char(*c).is_ascii_alphanumeric());
        if !next_ok {
            return None;
        }
        let src = (d[at].1.0, d[after - 1].1.1);
        self.push(read, src);
        Some(end)
    }

    /// The characters of the reading.
    pub fn chars(&self) -> &[char] {
        &self.chars
    }

    /// The written span `[start, end)` (character offsets) of the reading's `[start, end)`.
    pub fn to_written(&self, start: usize, end: usize) -> (usize, usize) {
        (self.src[start].0, self.src[end - 1].1)
    }

    /// `read`, a rewrite of this reading with as many characters, in the spelling of
    /// `written` (the text this view read): a character of the reading that `read` keeps
    /// (after width folding) is copied as written; a changed one takes the width or the
    /// character reference it was written with; characters the reading skipped are kept.
    /// A rewrite of another length is returned as it is.
    pub fn respell(&self, written: &str, read: &str) -> String {
        let r: Vec<char> = read.chars().collect();
        if r.len() != self.chars.len() {
            return read.to_string();
        }
        let w: Vec<char> = written.chars().collect();
        let mut out = String::with_capacity(written.len());
        let mut at = 0;
        for (k, &(s, e)) in self.src.iter().enumerate() {
            out.extend(&w[at..s]);
            if fold_char(r[k]) == fold_char(self.chars[k]) {
                out.extend(&w[s..e]);
            } else {
                respell_char(r[k], &w[s..e], &mut out);
            }
            at = e;
        }
        out.extend(&w[at..]);
        out
    }
}

/// `c` written as `like` was: full width, or as a character reference.
fn respell_char(c: char, like: &[char], out: &mut String) {
    match like {
        [w] if ('\u{FF01}'..='\u{FF5E}').contains(w) && ('!'..='~').contains(&c) => {
            out.push(char::from_u32(c as u32 + 0xFEE0).unwrap_or(c));
        }
        ['&', '#', 'x' | 'X', ..] => out.push_str(&format!("&#x{:X};", c as u32)),
        ['&', '#', ..] => out.push_str(&format!("&#{};", c as u32)),
        _ => out.push(c),
    }
}

/// The written characters with character references decoded and invisible characters
/// removed: each read character with its written range.
fn decode(w: &[char]) -> Vec<(char, (usize, usize))> {
    let mut out = Vec::with_capacity(w.len());
    let mut i = 0;
    while i < w.len() {
        let (c, len) = if w[i] == '&' {
            entities::reference(&w[i..]).unwrap_or(('&', 1))
        } else {
            (w[i], 1)
        };
        if !is_invisible(c) {
            out.push((c, (i, i + len)));
        }
        i += len;
    }
    out
}

#[cfg(test)]
mod tests;
