//! Whether a pattern's candidate span is PII: per kind, the boundaries, cue words and
//! validators a match must pass (the patterns themselves are in `rules/pii.toml`). [`accept`]
//! dispatches on the kind; each check returns the span, possibly trimmed, or `None`.

use super::Detector;
use super::checks::*;
use crate::fold::Folded;
use crate::validate::{self, Date, digits};

/// A candidate span at chars [start, end) of the folded text, with what the checks look at.
struct Cand<'a> {
    f: &'a Folded,
    start: usize,
    end: usize,
    /// The span's text.
    s: String,
    /// The characters just before and just after the span.
    prev: Option<char>,
    next: Option<char>,
    /// Not glued to a digit, a mask or a longer run of digit groups: a number's bounds.
    numeric_bounds: bool,
}

impl Cand<'_> {
    /// The span unchanged.
    fn whole(&self) -> Option<(usize, usize)> {
        Some((self.start, self.end))
    }

    /// Whether the span is all ASCII digits (no separators).
    fn plain(&self) -> bool {
        self.s.chars().all(|c| c.is_ascii_digit())
    }
}

/// Checks one candidate of `kind` at chars [start, end) and returns the (possibly trimmed) span.
pub(super) fn accept(
    kind: &str,
    f: &Folded,
    start: usize,
    end: usize,
    det: &Detector,
    reference: Date,
) -> Option<(usize, usize)> {
    let prev = f.get(start as isize - 1);
    let next = f.get(end as isize);
    // Not part of a longer run of digit groups (`9642 1688 0931 3253` holds no phone).
    let in_run = !matches!(kind, "card" | "rrn" | "frn")
        && (digit_group_before(f, start) || digit_group_after(f, end));
    let c = Cand {
        f,
        start,
        end,
        s: f.slice(start, end),
        prev,
        next,
        numeric_bounds: !is_digit(prev) && !is_digit(next) && !masked_after(f, end) && !in_run,
    };
    let cues = &det.cues;
    match kind {
        "email" => email(&c),
        "url" => url(&c),
        "mention" => mention(&c),
        "ip" if c.s.contains(':') => ipv6(&c),
        "ip" => ipv4(&c),
        "mac" => (!is_ascii_alnum(prev)
            && !is_ascii_alnum(next)
            && prev != Some(':')
            && next != Some(':'))
        .then_some((start, end)),
        "rrn" | "frn" => registration(&c, kind == "rrn", reference),
        "card" => {
            let d = digits(&c.s);
            (c.numeric_bounds
                && consistent(&c.s)
                && validate::card_brand_ok(&d)
                && validate::luhn(&d))
            .then_some((start, end))
        }
        "phone" => {
            (c.numeric_bounds && prev != Some('+') && phone_ok(&c.s)).then_some((start, end))
        }
        "brn" => {
            let d = digits(&c.s);
            (c.numeric_bounds
                && consistent(&c.s)
                && validate::is_brn(&d)
                && (!c.plain() || cue_before(f, start, cues)))
            .then_some((start, end))
        }
        "driver_license" => driver_license(&c, cues),
        "health_insurance" => health_insurance(&c, cues),
        "passport" => (!is_ascii_alnum(prev) && !is_ascii_alnum(next)).then_some((start, end)),
        "vehicle_plate" => vehicle_plate(&c),
        "bank_account" => bank_account(&c, cues),
        "user_id" => {
            // A shown id: not the tail of a longer ASCII word, with a letter (not a number).
            // What follows the stars may be glued on (`apsa****2013.09.29`, the date).
            let id = c.s.trim_end_matches('*');
            (!is_ascii_alnum(prev)
                && prev != Some('@')
                && next != Some('*')
                && id.chars().any(|c| c.is_ascii_alphabetic()))
            .then_some((start, end))
        }
        _ => None,
    }
}

fn email(c: &Cand) -> Option<(usize, usize)> {
    // A local part does not start with a dot (`…습니다.minsu@…` ends a sentence).
    let lead = c.s.chars().take_while(|c| *c == '.').count();
    let start = c.start + lead;
    let prev = c.f.get(start as isize - 1);
    let bad_prev =
        lead == 0 && prev.is_some_and(|c| c.is_ascii_alphanumeric() || "._%+-".contains(c));
    (!bad_prev && !is_ascii_alnum(c.next)).then_some((start, c.end))
}

fn url(c: &Cand) -> Option<(usize, usize)> {
    if c.prev
        .is_some_and(|c| c.is_ascii_alphanumeric() || "._@/-:".contains(c))
    {
        return None;
    }
    let t = url_trim(&c.s);
    let e = c.start + t.chars().count();
    // A bare domain must be lower case (README.md, Node.js are not URLs).
    let has_scheme = t.to_ascii_lowercase().starts_with("http") || t.starts_with("www.");
    if !has_scheme && t.chars().any(|c| c.is_ascii_uppercase()) {
        return None;
    }
    // A bare Hangul domain (`부동산.한국`) is not glued to the next word:
    // `좋구요.한국영화` is two sentences.
    if !has_scheme && t.ends_with("한국") && c.f.get(e as isize).is_some_and(is_hangul) {
        return None;
    }
    (!is_ascii_alnum(c.f.get(e as isize))).then_some((c.start, e))
}

fn mention(c: &Cand) -> Option<(usize, usize)> {
    // The @ starts a word: not after a letter or digit of any script (`강남스탈＠NX1000`
    // is a product "at", `존@나` a masked word, `minsu@naver.com` an email).
    if c.prev
        .is_some_and(|c| c.is_alphanumeric() || "_.@".contains(c))
    {
        return None;
    }
    let t = c.s.trim_end_matches('.');
    let handle = &t[1..];
    if handle.is_empty() || handle.len() > 30 || !handle.chars().any(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let e = c.start + t.chars().count();
    (!c.f
        .get(e as isize)
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some((c.start, e))
}

fn ipv6(c: &Cand) -> Option<(usize, usize)> {
    if c.prev.is_some_and(|c| c.is_ascii_hexdigit() || c == ':') {
        return None;
    }
    // The longest prefix that parses (a trailing `.` or `:` may be punctuation).
    let s = c.s.as_str();
    let t = [s, s.trim_end_matches('.'), s.trim_end_matches(['.', ':'])]
        .into_iter()
        .find(|t| t.parse::<std::net::Ipv6Addr>().is_ok())?;
    let e = c.start + t.chars().count();
    if c.f.get(e as isize).is_some_and(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    // Six 2-hex groups are a MAC, not IPv6. A host has a group of 3+ hex digits
    // or an embedded IPv4: `::` and `2::8` in prose are punctuation and ratios.
    let long_group = t.split([':', '.']).any(|g| g.len() >= 3);
    let prefix = c.f.get(e as isize) == Some('/') && is_digit(c.f.get(e as isize + 1));
    ((t.contains("::") || t.matches(':').count() >= 7 || t.contains('.'))
        && (long_group || t.contains('.'))
        && !prefix)
        .then_some((c.start, e))
}

fn ipv4(c: &Cand) -> Option<(usize, usize)> {
    let (prev, next) = (c.prev, c.next);
    let ok = c
        .s
        .split('.')
        .all(|o| o.parse::<u32>().is_ok_and(|v| v <= 255) && (o.len() == 1 || !o.starts_with('0')));
    let next2 = c.f.get(c.end as isize + 1);
    let bad_next = is_digit(next) || (next == Some('.') && is_digit(next2));
    (ok && !is_digit(prev)
        && !ip_range(c.f, c.start, c.end)
        && prev != Some('.')
        && !bad_next
        && !prev.is_some_and(|c| c.is_ascii_alphabetic()))
    .then_some((c.start, c.end))
}

/// A resident (`rrn`) or foreigner (`frn`) registration number: valid, and not a
/// corporate registration number by its cue.
fn registration(c: &Cand, resident: bool, reference: Date) -> Option<(usize, usize)> {
    if !c.numeric_bounds || !consistent(&c.s) {
        return None;
    }
    let d = digits(&c.s);
    let ok = if resident {
        validate::is_rrn(&d, reference)
    } else {
        validate::is_frn(&d, reference)
    };
    let corporate = ["법인등록번호", "법인번호"].map(String::from);
    (ok && !cue_before(c.f, c.start, &corporate)).then_some((c.start, c.end))
}

fn driver_license(c: &Cand, cues: &[String]) -> Option<(usize, usize)> {
    if !c.numeric_bounds
        || (c.s.chars().next().is_some_and(|c| c.is_ascii_digit()) && !consistent(&c.s))
    {
        return None;
    }
    if c.s.chars().next().is_some_and(is_hangul) {
        return c.whole();
    }
    let d = digits(&c.s);
    let region = d[0] * 10 + d[1];
    (validate::LICENSE_REGIONS.contains(&region) && (!c.plain() || cue_before(c.f, c.start, cues)))
        .then_some((c.start, c.end))
}

fn health_insurance(c: &Cand, cues: &[String]) -> Option<(usize, usize)> {
    if !c.numeric_bounds || c.prev == Some('-') || c.next == Some('-') {
        return None;
    }
    if c.plain() {
        return (!c.s.starts_with("01") && cue_before(c.f, c.start, cues))
            .then_some((c.start, c.end));
    }
    c.whole()
}

fn vehicle_plate(c: &Cand) -> Option<(usize, usize)> {
    // The Hangul letter after the class digits (skipping a region prefix).
    let letter =
        c.s.chars()
            .skip_while(|c| is_hangul(*c) || *c == ' ')
            .find(|c| is_hangul(*c))?;
    let unit = c
        .next
        .is_some_and(|c| "억조만원명년개대호층배%".contains(c) || c == 'm' || c == 'k');
    (validate::plate_class(letter).is_some() && !is_digit(c.prev) && !is_digit(c.next) && !unit)
        .then_some((c.start, c.end))
}

fn bank_account(c: &Cand, cues: &[String]) -> Option<(usize, usize)> {
    let d = digits(&c.s);
    if !c.numeric_bounds
        || !consistent(&c.s)
        || !(10..=14).contains(&d.len())
        || c.prev == Some('-')
        || c.next == Some('-')
    {
        return None;
    }
    let f = c.f;
    let after: String = f.chars[c.end..(c.end + 12).min(f.chars.len())]
        .iter()
        .collect();
    let bank_after = after.trim_start().starts_with('(')
        && cues
            .iter()
            .take(33)
            .any(|c| after.trim_start()[1..].starts_with(c.as_str()));
    (cue_before(f, c.start, cues) || bank_after).then_some((c.start, c.end))
}
