//! Whether a pattern's candidate span is PII: per kind, the boundaries, cue words and
//! validators a match must pass (the patterns themselves are in `rules/pii.toml`).

use super::Detector;
use super::checks::*;
use crate::fold::Folded;
use crate::validate::{self, Date, digits};

/// Checks one candidate of `kind` at chars [start, end) and returns the (possibly trimmed) span.
pub(super) fn accept(
    kind: &str,
    f: &Folded,
    start: usize,
    end: usize,
    det: &Detector,
    reference: Date,
) -> Option<(usize, usize)> {
    let s = f.slice(start, end);
    let prev = f.get(start as isize - 1);
    let next = f.get(end as isize);
    // Not part of a longer run of digit groups (`9642 1688 0931 3253` holds no phone).
    let in_run = !matches!(kind, "card" | "rrn" | "frn")
        && (digit_group_before(f, start) || digit_group_after(f, end));
    let numeric_bounds = !is_digit(prev) && !is_digit(next) && !masked_after(f, end) && !in_run;
    match kind {
        "email" => {
            // A local part does not start with a dot (`…습니다.minsu@…` ends a sentence).
            let lead = s.chars().take_while(|c| *c == '.').count();
            let start = start + lead;
            let prev = f.get(start as isize - 1);
            let bad_prev =
                lead == 0 && prev.is_some_and(|c| c.is_ascii_alphanumeric() || "._%+-".contains(c));
            (!bad_prev && !is_ascii_alnum(next)).then_some((start, end))
        }
        "url" => {
            if prev.is_some_and(|c| c.is_ascii_alphanumeric() || "._@/-:".contains(c)) {
                return None;
            }
            let t = url_trim(&s);
            let e = start + t.chars().count();
            // A bare domain must be lower case (README.md, Node.js are not URLs).
            let has_scheme = t.to_ascii_lowercase().starts_with("http") || t.starts_with("www.");
            if !has_scheme && t.chars().any(|c| c.is_ascii_uppercase()) {
                return None;
            }
            // A bare Hangul domain (`부동산.한국`) is not glued to the next word:
            // `좋구요.한국영화` is two sentences.
            if !has_scheme && t.ends_with("한국") && f.get(e as isize).is_some_and(is_hangul) {
                return None;
            }
            (!is_ascii_alnum(f.get(e as isize))).then_some((start, e))
        }
        "mention" => {
            // The @ starts a word: not after a letter or digit of any script (`강남스탈＠NX1000`
            // is a product "at", `존@나` a masked word, `minsu@naver.com` an email).
            if prev.is_some_and(|c| c.is_alphanumeric() || "_.@".contains(c)) {
                return None;
            }
            let t = s.trim_end_matches('.');
            let handle = &t[1..];
            if handle.is_empty()
                || handle.len() > 30
                || !handle.chars().any(|c| c.is_ascii_alphabetic())
            {
                return None;
            }
            let e = start + t.chars().count();
            (!f.get(e as isize)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
            .then_some((start, e))
        }
        "ip" => {
            if s.contains(':') {
                if prev.is_some_and(|c| c.is_ascii_hexdigit() || c == ':') {
                    return None;
                }
                // The longest prefix that parses (a trailing `.` or `:` may be punctuation).
                let t = [
                    s.as_str(),
                    s.trim_end_matches('.'),
                    s.trim_end_matches(['.', ':']),
                ]
                .into_iter()
                .find(|t| t.parse::<std::net::Ipv6Addr>().is_ok())?;
                let e = start + t.chars().count();
                if f.get(e as isize).is_some_and(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                // Six 2-hex groups are a MAC, not IPv6. A host has a group of 3+ hex digits
                // or an embedded IPv4: `::` and `2::8` in prose are punctuation and ratios.
                let long_group = t.split([':', '.']).any(|g| g.len() >= 3);
                let prefix = f.get(e as isize) == Some('/') && is_digit(f.get(e as isize + 1));
                ((t.contains("::") || t.matches(':').count() >= 7 || t.contains('.'))
                    && (long_group || t.contains('.'))
                    && !prefix)
                    .then_some((start, e))
            } else {
                let ok = s.split('.').all(|o| {
                    o.parse::<u32>().is_ok_and(|v| v <= 255)
                        && (o.len() == 1 || !o.starts_with('0'))
                });
                let next2 = f.get(end as isize + 1);
                let bad_next = is_digit(next) || (next == Some('.') && is_digit(next2));
                (ok && !is_digit(prev)
                    && !ip_range(f, start, end)
                    && prev != Some('.')
                    && !bad_next
                    && !prev.is_some_and(|c| c.is_ascii_alphabetic()))
                .then_some((start, end))
            }
        }
        "mac" => (!is_ascii_alnum(prev)
            && !is_ascii_alnum(next)
            && prev != Some(':')
            && next != Some(':'))
        .then_some((start, end)),
        "rrn" | "frn" => {
            if !numeric_bounds || !consistent(&s) {
                return None;
            }
            let d = digits(&s);
            let ok = if kind == "rrn" {
                validate::is_rrn(&d, reference)
            } else {
                validate::is_frn(&d, reference)
            };
            let corporate = ["법인등록번호", "법인번호"].map(String::from);
            (ok && !cue_before(f, start, &corporate)).then_some((start, end))
        }
        "card" => {
            let d = digits(&s);
            (numeric_bounds && consistent(&s) && validate::card_brand_ok(&d) && validate::luhn(&d))
                .then_some((start, end))
        }
        "phone" => (numeric_bounds && prev != Some('+') && phone_ok(&s)).then_some((start, end)),
        "brn" => {
            let d = digits(&s);
            let plain = s.chars().all(|c| c.is_ascii_digit());
            (numeric_bounds
                && consistent(&s)
                && validate::is_brn(&d)
                && (!plain || cue_before(f, start, &det.cues)))
            .then_some((start, end))
        }
        "driver_license" => {
            if !numeric_bounds
                || (s.chars().next().is_some_and(|c| c.is_ascii_digit()) && !consistent(&s))
            {
                return None;
            }
            if s.chars().next().is_some_and(is_hangul) {
                return Some((start, end));
            }
            let d = digits(&s);
            let plain = s.chars().all(|c| c.is_ascii_digit());
            let region = d[0] * 10 + d[1];
            (validate::LICENSE_REGIONS.contains(&region)
                && (!plain || cue_before(f, start, &det.cues)))
            .then_some((start, end))
        }
        "health_insurance" => {
            let plain = s.chars().all(|c| c.is_ascii_digit());
            if !numeric_bounds || prev == Some('-') || next == Some('-') {
                return None;
            }
            if plain {
                return (!s.starts_with("01") && cue_before(f, start, &det.cues))
                    .then_some((start, end));
            }
            Some((start, end))
        }
        "passport" => (!is_ascii_alnum(prev) && !is_ascii_alnum(next)).then_some((start, end)),
        "vehicle_plate" => {
            // The Hangul letter after the class digits (skipping a region prefix).
            let letter = s
                .chars()
                .skip_while(|c| is_hangul(*c) || *c == ' ')
                .find(|c| is_hangul(*c))?;
            let unit =
                next.is_some_and(|c| "억조만원명년개대호층배%".contains(c) || c == 'm' || c == 'k');
            (validate::plate_class(letter).is_some() && !is_digit(prev) && !is_digit(next) && !unit)
                .then_some((start, end))
        }
        "bank_account" => {
            let d = digits(&s);
            if !numeric_bounds
                || !consistent(&s)
                || !(10..=14).contains(&d.len())
                || prev == Some('-')
                || next == Some('-')
            {
                return None;
            }
            let after: String = f.chars[end..(end + 12).min(f.chars.len())].iter().collect();
            let bank_after = after.trim_start().starts_with('(')
                && det
                    .cues
                    .iter()
                    .take(33)
                    .any(|c| after.trim_start()[1..].starts_with(c.as_str()));
            (cue_before(f, start, &det.cues) || bank_after).then_some((start, end))
        }
        "user_id" => {
            // A shown id: not the tail of a longer ASCII word, with a letter (not a number).
            // What follows the stars may be glued on (`apsa****2013.09.29`, the date).
            let id = s.trim_end_matches('*');
            (!is_ascii_alnum(prev)
                && prev != Some('@')
                && next != Some('*')
                && id.chars().any(|c| c.is_ascii_alphabetic()))
            .then_some((start, end))
        }
        _ => None,
    }
}
