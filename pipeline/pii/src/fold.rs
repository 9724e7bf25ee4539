//! A width-folded copy of the text that maps one character to one character, so a match on
//! the copy has the same character offsets in the original.

/// Full-width digits, letters and punctuation to ASCII; dash variants to `-`.
pub fn fold_char(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2212}' => '-',
        '\u{3000}' => ' ',
        _ => c,
    }
}

/// The folded text and, for every byte offset of it, the character index.
pub struct Folded {
    /// The folded text.
    pub text: String,
    /// Its characters, one per character of the original.
    pub chars: Vec<char>,
    /// byte offset in `text` → char index (len + 1 entries at char starts; others unused).
    byte_to_char: Vec<u32>,
}

impl Folded {
    /// Folds `original`.
    pub fn new(original: &str) -> Folded {
        let chars: Vec<char> = original.chars().map(fold_char).collect();
        let text: String = chars.iter().collect();
        let mut byte_to_char = vec![0u32; text.len() + 1];
        for (ci, (bi, _)) in text.char_indices().enumerate() {
            byte_to_char[bi] = ci as u32;
        }
        byte_to_char[text.len()] = chars.len() as u32;
        Folded {
            text,
            chars,
            byte_to_char,
        }
    }

    /// The character index of byte offset `b` of the folded text (a character start).
    pub fn char_at_byte(&self, b: usize) -> usize {
        self.byte_to_char[b] as usize
    }

    /// The character at index `i`, `None` outside the text.
    pub fn get(&self, i: isize) -> Option<char> {
        if i < 0 {
            None
        } else {
            self.chars.get(i as usize).copied()
        }
    }

    /// The folded characters `start..end`.
    pub fn slice(&self, start: usize, end: usize) -> String {
        self.chars[start..end].iter().collect()
    }
}
