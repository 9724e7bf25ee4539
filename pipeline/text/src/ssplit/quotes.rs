//! Matched quotes and brackets: no sentence boundary falls inside one.

pub(super) const MAX_QUOTE_BYTES: usize = 1200;

/// Matched quote and bracket pairs, as merged byte intervals `[open, after_close)`.
pub(super) fn protected_spans(text: &str) -> Vec<(usize, usize)> {
    if !may_quote(text.as_bytes()) {
        return Vec::new();
    }
    protected_spans_scan(text)
}

/// False when the text has none of the brackets and quotes [`protected_spans_scan`] pairs
/// up, so it would find no span: most reviews, checked on bytes without decoding a char.
pub(super) fn may_quote(b: &[u8]) -> bool {
    b.iter().enumerate().any(|(i, &x)| match x {
        b'(' | b'[' | b'{' | b')' | b']' | b'}' | b'"' | b'\'' => true,
        // U+3000–U+303F: 「」『』《》〈〉【】 and other CJK punctuation.
        0xE3 => b.get(i + 1) == Some(&0x80),
        // ‘ ’ “ ” (U+2018, U+2019, U+201C, U+201D).
        0xE2 => {
            b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0x98 | 0x99 | 0x9C | 0x9D))
        }
        // U+FF00–U+FF3F: （ ） ［ ］ and other full-width forms.
        0xEF => b.get(i + 1) == Some(&0xBC),
        _ => false,
    })
}

pub(super) fn protected_spans_scan(text: &str) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    // Stack of (opening char, byte offset).
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut prev = ' ';
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, c)| c).unwrap_or(' ');
        match c {
            '\n' | '\r' => stack.clear(),
            '(' | '[' | '{' | '「' | '『' | '《' | '〈' | '【' | '“' | '‘' | '（' | '［' => {
                stack.push((c, i))
            }
            ')' | ']' | '}' | '」' | '』' | '》' | '〉' | '】' | '”' | '’' | '）' | '］' =>
            {
                let open = match c {
                    ')' => '(',
                    ']' => '[',
                    '}' => '{',
                    '」' => '「',
                    '』' => '『',
                    '》' => '《',
                    '〉' => '〈',
                    '】' => '【',
                    '”' => '“',
                    '’' => '‘',
                    '）' => '（',
                    _ => '［',
                };
                let alt = match c {
                    '”' => '"',
                    '’' => '\'',
                    _ => open,
                };
                if let Some(k) = stack.iter().rposition(|&(o, _)| o == open || o == alt) {
                    pairs.push((stack[k].1, i + c.len_utf8()));
                    stack.truncate(k);
                }
            }
            '"' => {
                if let Some(k) = stack.iter().rposition(|&(o, _)| o == '"' || o == '“') {
                    pairs.push((stack[k].1, i + 1));
                    stack.truncate(k);
                } else {
                    stack.push(('"', i));
                }
            }
            '\'' => {
                let apostrophe = prev.is_ascii_alphanumeric() && next.is_ascii_alphanumeric();
                if !apostrophe {
                    if let Some(k) = stack.iter().rposition(|&(o, _)| o == '\'' || o == '‘') {
                        if !prev.is_whitespace() {
                            pairs.push((stack[k].1, i + 1));
                            stack.truncate(k);
                        }
                    } else if !next.is_whitespace() {
                        stack.push(('\'', i));
                    }
                }
            }
            _ => {}
        }
        prev = c;
    }
    if pairs.is_empty() {
        return pairs;
    }
    // A pair longer than any sentence is a stray quote, not a quotation.
    pairs.retain(|&(s, e)| e - s <= MAX_QUOTE_BYTES);
    if pairs.is_empty() {
        return pairs;
    }
    pairs.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(pairs.len());
    for (s, e) in pairs {
        match merged.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}
