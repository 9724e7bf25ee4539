//! The checks `accept` runs on a candidate span, apart from the patterns: the characters
//! around it (boundaries, cue words, digit groups, masks), separator consistency, the
//! phone-number layouts, and the trimming of URLs and IPv4 ranges.

use crate::fold::Folded;

pub(super) fn is_ascii_alnum(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric())
}

pub(super) fn is_digit(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_digit())
}

pub(super) fn is_hangul(c: char) -> bool {
    ('가'..='힣').contains(&c)
}

/// Does one of `cues` end at most 12 characters before char index `start`?
pub(super) fn cue_before(f: &Folded, start: usize, cues: &[String]) -> bool {
    let from = start.saturating_sub(12 + 12);
    let window: String = f.chars[from..start].iter().collect();
    let wchars: Vec<char> = window.chars().collect();
    cues.iter().any(|cue| {
        let cc: Vec<char> = cue.chars().collect();
        (0..wchars.len()).any(|i| {
            wchars[i..].starts_with(&cc) && {
                let end = from + i + cc.len();
                start - end <= 12
            }
        })
    })
}

/// A bare digit group (not the tail of a date or time) right before `start`, separated by
/// one space or dash: the candidate is then a piece of a longer number.
pub(super) fn digit_group_before(f: &Folded, start: usize) -> bool {
    if !matches!(f.get(start as isize - 1), Some(' ' | '-')) {
        return false;
    }
    let mut i = start as isize - 2;
    let mut n = 0;
    while is_digit(f.get(i)) {
        i -= 1;
        n += 1;
    }
    n >= 2 && !matches!(f.get(i), Some('.' | '/' | ':'))
}

pub(super) fn digit_group_after(f: &Folded, end: usize) -> bool {
    if !matches!(f.get(end as isize), Some(' ' | '-')) {
        return false;
    }
    let mut i = end as isize + 1;
    let mut n = 0;
    while is_digit(f.get(i)) {
        i += 1;
        n += 1;
    }
    n >= 2 && !matches!(f.get(i), Some('.' | '/' | ':'))
}

pub(super) fn masked_after(f: &Folded, end: usize) -> bool {
    matches!(f.get(end as isize), Some('*' | 'X' | 'x' | '●' | '•'))
}

/// Separators used in `s` (non-digit characters between digits), for consistency checks.
pub(super) fn separators(s: &str) -> Vec<char> {
    s.chars().filter(|c| !c.is_ascii_digit()).collect()
}

pub(super) fn consistent(s: &str) -> bool {
    let seps = separators(s);
    seps.windows(2).all(|w| w[0] == w[1])
}

pub(super) fn groups(s: &str) -> Vec<usize> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .map(str::len)
        .collect()
}

pub(super) const AREA: [&str; 16] = [
    "031", "032", "033", "041", "042", "043", "044", "051", "052", "053", "054", "055", "061",
    "062", "063", "064",
];
pub(super) const REPRESENTATIVE: [&str; 14] = [
    "1588", "1577", "1544", "1566", "1599", "1600", "1644", "1661", "1670", "1688", "1800", "1833",
    "1855", "1899",
];

pub(super) fn phone_ok(s: &str) -> bool {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("+82") {
        let d: String = rest.chars().filter(char::is_ascii_digit).collect();
        if !consistent(rest.trim_start_matches(['-', ' '])) {
            return false;
        }
        return (d.starts_with("10") && d.len() == 10)
            || (d.starts_with('2') && (d.len() == 8 || d.len() == 9))
            || (d.starts_with("70") && d.len() == 10)
            || (AREA.iter().any(|a| d.starts_with(&a[1..])) && (d.len() == 9 || d.len() == 10));
    }
    if s.starts_with('(') {
        let inner = s.trim_start_matches('(');
        let (area, rest) = inner.split_once(')').unwrap_or(("", ""));
        let g = groups(rest);
        // `(010)2345-6789`: a mobile or 070 prefix in brackets, as an area code is written.
        let mobile = match area {
            "010" | "070" => g.first() == Some(&4),
            "011" | "016" | "017" | "018" | "019" => true,
            _ => false,
        };
        return (area == "02" || AREA.contains(&area) || mobile)
            && g.len() == 2
            && (g[0] == 3 || g[0] == 4)
            && g[1] == 4;
    }
    if !consistent(s) {
        return false;
    }
    let g = groups(s);
    let d: String = s.chars().filter(char::is_ascii_digit).collect();
    if s.starts_with('1') {
        // 15XX/16XX/18XX with a separator (the list in SPEC.md gives examples, not all).
        return g.len() == 2
            && d.len() == 8
            && (d.starts_with("15") || d.starts_with("16") || d.starts_with("18"))
            && REPRESENTATIVE.len() == 14;
    }
    let prefix_ok = |p: &str, mids: &[usize]| -> bool {
        if !d.starts_with(p) {
            return false;
        }
        let rest = d.len() - p.len();
        if g.len() == 1 {
            return mids.iter().any(|m| rest == m + 4);
        }
        g.len() == 3 && g[0] == p.len() && mids.contains(&g[1]) && g[2] == 4
    };
    prefix_ok("010", &[4])
        || ["011", "016", "017", "018", "019"]
            .iter()
            .any(|p| prefix_ok(p, &[3, 4]))
        || prefix_ok("02", &[3, 4])
        || AREA.iter().any(|p| prefix_ok(p, &[3, 4]))
        || prefix_ok("070", &[4])
        || ["0502", "0503", "0504", "0505", "0506", "0507"]
            .iter()
            .any(|p| prefix_ok(p, &[3, 4]))
        || prefix_ok("080", &[3, 4])
}

pub(super) fn url_trim(s: &str) -> &str {
    let mut s = s;
    loop {
        let before = s;
        s = s.trim_end_matches(['.', ',', '!', '?', ':', ';', '\'', '"', '~']);
        if s.ends_with(')') && s.matches('(').count() < s.matches(')').count() {
            s = &s[..s.len() - 1];
        }
        if s.ends_with(']') && s.matches('[').count() < s.matches(']').count() {
            s = &s[..s.len() - 1];
        }
        if s == before {
            return s;
        }
    }
}

/// An IPv4 written as a network or a count, not a host: CIDR (`/16`), `… 대역` (a range),
/// one end of `a~b`, or a number of parts (`1.2.3.4편`).
pub(super) fn ip_range(f: &Folded, start: usize, end: usize) -> bool {
    let next = f.get(end as isize);
    let cidr = next == Some('/') && is_digit(f.get(end as isize + 1));
    let tilde = next == Some('~') || f.get(start as isize - 1) == Some('~');
    let after: String = f.chars[end..(end + 3).min(f.chars.len())].iter().collect();
    let band = after.trim_start().starts_with("대역");
    let count = next.is_some_and(|c| "편부위등차회번점개명년월일시분초".contains(c));
    cidr || tilde || band || count
}
