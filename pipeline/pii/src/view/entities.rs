//! HTML character references: numeric (`&#45;`, `&#x2D;`) and the named ones a PII value
//! can be spelled with (separators, `@`, `.`, brackets, spaces, invisible characters).

/// Named references and what they read as (HTML's names; a reference needs its `;`).
const NAMED: [(&str, char); 34] = [
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", '\u{A0}'),
    ("commat", '@'),
    ("period", '.'),
    ("hyphen", '\u{2010}'),
    ("dash", '\u{2010}'),
    ("ndash", '\u{2013}'),
    ("mdash", '\u{2014}'),
    ("minus", '\u{2212}'),
    ("lpar", '('),
    ("rpar", ')'),
    ("lsqb", '['),
    ("rsqb", ']'),
    ("lbrack", '['),
    ("rbrack", ']'),
    ("plus", '+'),
    ("num", '#'),
    ("colon", ':'),
    ("sol", '/'),
    ("lowbar", '_'),
    ("percnt", '%'),
    ("comma", ','),
    ("equals", '='),
    ("ast", '*'),
    ("shy", '\u{AD}'),
    ("zwsp", '\u{200B}'),
    ("ZeroWidthSpace", '\u{200B}'),
    ("zwj", '\u{200D}'),
    ("zwnj", '\u{200C}'),
    ("NoBreak", '\u{2060}'),
];

/// The character the reference at the start of `w` (which starts with `&`) stands for, and
/// its length in characters; `None` when `w` does not start with a reference.
pub(super) fn reference(w: &[char]) -> Option<(char, usize)> {
    // The longest reference here is `&ZeroWidthSpace;` (16), a numeric one `&#1114111;` (10).
    let semi = w.iter().take(18).position(|c| *c == ';')?;
    let body: String = w[1..semi].iter().collect();
    let c = if let Some(num) = body.strip_prefix('#') {
        let (digits, radix) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16),
            None => (num, 10),
        };
        if digits.is_empty() || digits.len() > 7 || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let v = u32::from_str_radix(digits, radix).ok()?;
        char::from_u32(v).filter(|c| !c.is_control() || *c == '\n')?
    } else {
        NAMED.iter().find(|(n, _)| *n == body).map(|(_, c)| *c)?
    };
    Some((c, semi + 1))
}
