//! Pseudonyms: format-preserving (same type, length, separators, widths and character
//! classes), valid (the detector finds the same type and the validator passes), and
//! consistent under a secret key: the same original always gets the same pseudonym, from
//! `HMAC-SHA256(key, type ‖ normalised original)` seeding a ChaCha8 stream, so the result
//! never depends on order or threads. Fingerprints for the audit trail are keyed HMACs too.

use crate::fold::fold_char;
use crate::validate::{self, REFERENCE_DATE};
use crate::view::{self, View};
use hmac::{Hmac, KeyInit, Mac};
use kcurate_core::hash::hex;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use sha2::Sha256;
use unicode_normalization::UnicodeNormalization;

mod address;
use address::{STEMS, pseudo_address};

/// The secret behind pseudonyms and fingerprints. Never written to a release.
#[derive(Clone)]
pub struct PiiKey(Vec<u8>);

/// No usable PII key.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The environment variable is not set.
    #[error(
        "no PII key: set the environment variable {0} (or `key_file` in the stage settings; `kcurate pii keygen FILE` writes a new key)"
    )]
    Missing(String),
    /// The key file cannot be read.
    #[error("{path}: {source}")]
    File {
        /// The key file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The key has no bytes.
    #[error("the PII key is empty")]
    Empty,
    /// The environment variable is set, but not to UTF-8 text (a key file holds any
    /// bytes as text too, so the two ways of giving a key cannot disagree on one).
    #[error(
        "the PII key in the environment variable {0} is not UTF-8 text: set it to the key as text (or give the key in a file)"
    )]
    NotUnicode(String),
}

impl PiiKey {
    /// A key of `bytes` (not empty).
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Self, KeyError> {
        let b = bytes.into();
        if b.is_empty() {
            Err(KeyError::Empty)
        } else {
            Ok(PiiKey(b))
        }
    }

    /// The key in environment variable `var` (trimmed).
    pub fn from_env(var: &str) -> Result<Self, KeyError> {
        let v = std::env::var(var).map_err(|e| match e {
            std::env::VarError::NotPresent => KeyError::Missing(var.to_string()),
            std::env::VarError::NotUnicode(_) => KeyError::NotUnicode(var.to_string()),
        })?;
        PiiKey::new(v.trim().as_bytes().to_vec())
    }

    /// The key in the file at `path` (trimmed).
    pub fn from_file(path: &std::path::Path) -> Result<Self, KeyError> {
        let v = std::fs::read(path).map_err(|e| KeyError::File {
            path: path.display().to_string(),
            source: e,
        })?;
        PiiKey::new(String::from_utf8_lossy(&v).trim().as_bytes().to_vec())
    }

    /// The key's bytes, for a cache tag inside this crate (never written anywhere).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut m =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes any key length");
        for p in parts {
            m.update(&(p.len() as u64).to_le_bytes());
            m.update(p);
        }
        let out = m.finalize().into_bytes();
        let mut a = [0u8; 32];
        a.copy_from_slice(&out);
        a
    }
}

/// The value keyed for consistency: as a reader sees it ([`crate::view`]), NFC, width
/// folded, separators removed for numbers, lower case for emails, URLs and mentions. So
/// `010&#45;2345&#45;6789` and `010-2345-6789` have one fingerprint and one pseudonym.
pub fn normalise(kind: &str, original: &str) -> String {
    if view::needed(original) {
        normalise_read(kind, &View::new(original).text)
    } else {
        normalise_read(kind, original)
    }
}

/// [`normalise`] of a value already read.
fn normalise_read(kind: &str, read: &str) -> String {
    let folded: String = read.nfc().map(fold_char).collect();
    match kind {
        "email" | "url" | "mention" => folded.to_lowercase(),
        "address" => folded.split_whitespace().collect::<Vec<_>>().join(" "),
        _ => folded
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || ('가'..='힣').contains(c))
            .collect(),
    }
}

/// A keyed fingerprint of an original (16 hex digits): what decisions record instead of it.
pub fn fingerprint(key: &PiiKey, kind: &str, original: &str) -> String {
    let m = key.mac(&[
        b"fingerprint",
        kind.as_bytes(),
        normalise(kind, original).as_bytes(),
    ]);
    hex(&m[..8])
}

fn is_fw_digit(c: char) -> bool {
    ('\u{FF10}'..='\u{FF19}').contains(&c)
}

fn digit_char(like: char, d: u32) -> char {
    if is_fw_digit(like) {
        char::from_u32(0xFF10 + d).expect("full-width digit")
    } else {
        char::from_digit(d, 10).expect("digit")
    }
}

fn is_digitish(c: char) -> bool {
    c.is_ascii_digit() || is_fw_digit(c)
}

/// Positions of the digits of `s`.
fn digit_positions(s: &[char]) -> Vec<usize> {
    (0..s.len()).filter(|&i| is_digitish(s[i])).collect()
}

fn set_digits(s: &mut [char], pos: &[usize], d: &[u32]) {
    for (p, v) in pos.iter().zip(d) {
        s[*p] = digit_char(s[*p], *v);
    }
}

fn rand_letter(rng: &mut ChaCha8Rng, like: char) -> char {
    let base = if like.is_ascii_uppercase() {
        b'A'
    } else if ('\u{FF21}'..='\u{FF3A}').contains(&like) {
        return char::from_u32(0xFF21 + rng.random_range(0..26)).expect("fw letter");
    } else {
        b'a'
    };
    (base + rng.random_range(0..26u8)) as char
}

/// Every digit and ASCII letter replaced by one of its class, except positions in `keep`.
fn scramble(s: &mut [char], rng: &mut ChaCha8Rng, keep: &dyn Fn(usize) -> bool) {
    for (i, slot) in s.iter_mut().enumerate() {
        if keep(i) {
            continue;
        }
        let c = *slot;
        if is_digitish(c) {
            *slot = digit_char(c, rng.random_range(0..10));
        } else if c.is_ascii_alphabetic() || ('\u{FF21}'..='\u{FF3A}').contains(&c) {
            *slot = rand_letter(rng, c);
        }
    }
}

/// A random birth date in `century` (1800/1900/2000), not after the reference date; when
/// `post2020` is given, on/after (true) or before (false) 2020-10-05.
fn birth(rng: &mut ChaCha8Rng, century: i32, post2020: Option<bool>) -> (i32, u32, u32) {
    loop {
        let y = century + rng.random_range(0..100);
        let m = rng.random_range(1..=12u32);
        let d = rng.random_range(1..=validate::days_in_month(y, m));
        let date = (y, m, d);
        if date > REFERENCE_DATE {
            continue;
        }
        match post2020 {
            Some(true) if date < (2020, 10, 5) => {
                if century != 2000 {
                    return date;
                }
                continue;
            }
            Some(false) if date >= (2020, 10, 5) => continue,
            _ => return date,
        }
    }
}

/// Whether `generate` can keep the layout of a value of `kind` with `digits` digits and
/// characters `s` (a detected value always can; any other string is scrambled instead).
fn has_layout(kind: &str, s: &[char], digits: usize) -> bool {
    let text: String = s.iter().collect();
    match kind {
        "rrn" | "frn" => digits == 13,
        "card" => digits >= 2,
        "brn" => digits == 10,
        "health_insurance" => digits >= 1,
        "vehicle_plate" => s.iter().any(|c| ('가'..='힣').contains(c)),
        "ip" if !text.contains(':') => {
            let parts: Vec<&str> = text.split('.').collect();
            parts.len() == 4 && parts.iter().all(|p| p.parse::<u8>().is_ok())
        }
        "mac" => s.len() >= 2,
        "email" => s.contains(&'@'),
        "url" => !s.is_empty(),
        _ => true,
    }
}

/// A pseudonym drawn from `rng` for `orig`, a value of `kind` as read and width folded.
#[allow(
    clippy::too_many_lines,
    reason = "a table: one arm per PII kind, each the layout its pseudonym keeps"
)]
fn generate(kind: &str, orig: &[char], rng: &mut ChaCha8Rng) -> Vec<char> {
    let mut s = orig.to_vec();
    let pos = digit_positions(&s);
    let od: Vec<u32> = pos
        .iter()
        .map(|&p| fold_char(s[p]).to_digit(10).unwrap_or(0))
        .collect();
    let text: String = orig.iter().map(|c| fold_char(*c)).collect();
    if !has_layout(kind, orig, od.len()) {
        scramble(&mut s, rng, &|_| false);
        return s;
    }
    match kind {
        "phone" => {
            // Keep the kind: +82 and its code, 02, the area code, 050X, 15XX, 010...
            let keep = if text.starts_with("+82") {
                if od.get(2) == Some(&2) { 3 } else { 4 }
            } else if text.starts_with("(02") || text.starts_with("02") {
                2
            } else if text.starts_with("050") || text.starts_with('1') {
                4
            } else {
                3
            };
            let mut d = od.clone();
            for x in d.iter_mut().skip(keep) {
                *x = rng.random_range(0..10);
            }
            if let Some(x) = d.get_mut(keep) {
                *x = rng.random_range(2..10);
            }
            set_digits(&mut s, &pos, &d);
        }
        "rrn" | "frn" => {
            let g = od[6];
            let century = match g {
                1 | 2 | 5 | 6 => 1900,
                3 | 4 | 7 | 8 => 2000,
                _ => 1800,
            };
            let born = validate::birth_date(&od, REFERENCE_DATE);
            let post = (kind == "rrn" && matches!(g, 3 | 4))
                .then(|| born.is_some_and(|b| b >= (2020, 10, 5)));
            let (y, m, day) = birth(rng, century, post);
            let mut d = vec![
                (y % 100 / 10) as u32,
                (y % 10) as u32,
                m / 10,
                m % 10,
                day / 10,
                day % 10,
                g,
            ];
            for _ in 0..6 {
                d.push(rng.random_range(0..10));
            }
            let needs_check = kind == "rrn" && post != Some(true);
            if needs_check {
                d[12] = validate::rrn_check(&d);
            } else if kind == "frn" && validate::frn_check(&od) == od[12] {
                d[12] = validate::frn_check(&d);
            }
            set_digits(&mut s, &pos, &d);
        }
        "card" => {
            let keep = if od[0] == 2 { 4 } else { 2 };
            let mut d = od.clone();
            for x in d.iter_mut().skip(keep) {
                *x = rng.random_range(0..10);
            }
            let n = d.len();
            d[n - 1] = validate::luhn_digit(&d[..n - 1]);
            set_digits(&mut s, &pos, &d);
        }
        "brn" => {
            let mut d = od.clone();
            d[0] = rng.random_range(1..10);
            d[1] = rng.random_range(0..10);
            d[2] = rng.random_range(0..10);
            for x in d.iter_mut().skip(5) {
                *x = rng.random_range(0..10);
            }
            d[9] = validate::brn_check(&d);
            set_digits(&mut s, &pos, &d);
        }
        "driver_license" | "bank_account" => {
            // Keep the region code / the bank's leading group, redraw the rest.
            let keep = if kind == "driver_license" {
                2
            } else {
                text.split(['-', ' ']).next().map_or(3, |g| g.len().min(4))
            };
            let keep = if s.first().is_some_and(|c| ('가'..='힣').contains(c)) {
                0
            } else {
                keep
            };
            let mut d = od.clone();
            for x in d.iter_mut().skip(keep) {
                *x = rng.random_range(0..10);
            }
            set_digits(&mut s, &pos, &d);
        }
        "health_insurance" => {
            let mut d: Vec<u32> = od.iter().map(|_| rng.random_range(0..10)).collect();
            d[0] = rng.random_range(1..10);
            set_digits(&mut s, &pos, &d);
        }
        "passport" => scramble(&mut s, rng, &|i| i == 0),
        "vehicle_plate" => {
            let letter_at = s
                .iter()
                .enumerate()
                .filter(|(_, c)| ('가'..='힣').contains(*c))
                .map(|(i, _)| i)
                .next_back()
                .unwrap_or(0);
            let class = validate::plate_class(s[letter_at]).unwrap_or(validate::PLATE_PRIVATE);
            let letters: Vec<char> = class.chars().collect();
            s[letter_at] = letters[rng.random_range(0..letters.len())];
            let first_digit = pos.first().copied();
            for &p in &pos {
                if Some(p) != first_digit {
                    s[p] = digit_char(s[p], rng.random_range(0..10));
                }
            }
        }
        "ip" if !text.contains(':') => {
            // Same digit count per octet; private stays private (same block), public stays
            // public.
            let parts: Vec<&str> = text.split('.').collect();
            let o: Vec<u32> = parts.iter().filter_map(|x| x.parse().ok()).collect();
            let same_len = |rng: &mut ChaCha8Rng, len: usize| -> u32 {
                match len {
                    1 => rng.random_range(1..10),
                    2 => rng.random_range(10..100),
                    _ => rng.random_range(100..255),
                }
            };
            let keep = if o[0] == 10 {
                1
            } else if (o[0] == 172 && (16..=31).contains(&o[1])) || (o[0] == 192 && o[1] == 168) {
                2
            } else {
                0
            };
            let mut out: Vec<u32> = o[..keep].to_vec();
            while out.len() < 4 {
                let i = out.len();
                let mut v = same_len(rng, parts[i].len());
                if i == 0 {
                    while matches!(v, 10 | 127 | 172 | 192 | 0) || v >= 224 {
                        v = same_len(rng, parts[i].len());
                    }
                }
                out.push(v);
            }
            let txt = out
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(".");
            return txt.chars().collect();
        }
        "mac" | "ip" => {
            // Hex digits stay hex digits, in the value's case.
            let upper = orig.iter().any(|c| c.is_ascii_uppercase());
            for c in s.iter_mut() {
                if c.is_ascii_hexdigit() {
                    let h = char::from_digit(rng.random_range(0..16u32), 16).expect("hex digit");
                    *c = if upper { h.to_ascii_uppercase() } else { h };
                }
            }
            if kind == "ip" {
                return s;
            }
            // Locally administered, unicast: second hex digit in {2, 6, a, e}.
            let la = ['2', '6', 'a', 'e'][rng.random_range(0..4)];
            s[1] = if s[1].is_ascii_uppercase() || orig[1].is_ascii_uppercase() {
                la.to_ascii_uppercase()
            } else {
                la
            };
        }
        "email" => {
            let at = s.iter().position(|c| *c == '@').unwrap_or(0);
            let domain: String = s[at + 1..].iter().collect::<String>().to_lowercase();
            let free = [
                "naver.com",
                "gmail.com",
                "daum.net",
                "hanmail.net",
                "kakao.com",
                "nate.com",
            ]
            .contains(&domain.as_str());
            let tld_from = s.iter().rposition(|c| *c == '.').unwrap_or(s.len());
            let sld_from = s[..tld_from]
                .iter()
                .rposition(|c| *c == '.')
                .filter(|&p| p > at)
                .filter(|&p| {
                    let sld: String = s[p + 1..tld_from].iter().collect();
                    ["co", "or", "ac", "go", "ne", "re", "pe"].contains(&sld.as_str())
                });
            let keep_from = if free {
                at
            } else {
                sld_from.unwrap_or(tld_from)
            };
            scramble(&mut s, rng, &|i| i >= keep_from);
        }
        "url" => {
            let t: String = s.iter().collect();
            let lower = t.to_lowercase();
            let mut keep_until = 0;
            for p in ["https://", "http://"] {
                if lower.starts_with(p) {
                    keep_until = p.len();
                }
            }
            if lower[keep_until..].starts_with("www.") {
                keep_until += 4;
            }
            let host_end = s
                .iter()
                .enumerate()
                .skip(keep_until)
                .find(|(_, c)| matches!(c, '/' | '?' | '#' | ':'))
                .map_or(s.len(), |(i, _)| i);
            let host: String = s[keep_until..host_end].iter().collect();
            let labels: Vec<&str> = host.split('.').collect();
            let keep_labels = if labels.len() >= 3
                && ["co", "or", "ac", "go", "ne", "re", "pe"].contains(&labels[labels.len() - 2])
            {
                2
            } else {
                1
            };
            let tld_chars: usize = labels[labels.len() - keep_labels..]
                .iter()
                .map(|l| l.chars().count() + 1)
                .sum();
            let tld_start = (host_end + 1).saturating_sub(tld_chars);
            let hangul_host = host.chars().any(|c| ('가'..='힣').contains(&c));
            scramble(&mut s, rng, &|i| {
                i < keep_until
                    || (i >= tld_start && i < host_end)
                    || (i > host_end && !orig[i].is_ascii_alphanumeric())
                    || i == host_end
            });
            if hangul_host {
                for c in s[keep_until..tld_start].iter_mut() {
                    if ('가'..='힣').contains(c) {
                        *c = STEMS[rng.random_range(0..STEMS.len())]
                            .chars()
                            .next()
                            .expect("stem");
                    }
                }
            }
        }
        "mention" => scramble(&mut s, rng, &|i| i == 0),
        "address" => return pseudo_address(&text, rng).chars().collect(),
        _ => scramble(&mut s, rng, &|_| false),
    }
    s
}

/// Reading class of a final digit (Korean particles depend on it): vowel, ㄹ, other.
fn reading_class(c: char) -> u8 {
    match fold_char(c) {
        '2' | '4' | '5' | '9' => 0,
        '1' | '7' | '8' => 1,
        '0' | '3' | '6' => 2,
        _ => 3,
    }
}

/// Is `cand` detected as `kind` (with the cue a cue-bound type needs)?
pub fn valid_as(kind: &str, cand: &str) -> bool {
    let cue = match kind {
        "bank_account" => "계좌 ",
        "brn" => "사업자 ",
        "driver_license" => "면허 ",
        "health_insurance" => "건강보험 ",
        _ => "",
    };
    let text = format!("{cue}{cand} 입니다");
    let start = cue.chars().count();
    let end = start + cand.chars().count();
    let opts = crate::detect::Options {
        user_ids: kind == "user_id",
    };
    crate::detect::detect_opts(&text, REFERENCE_DATE, opts)
        .iter()
        .any(|s| s.kind == kind && s.start == start && s.end == end)
}

/// The pseudonym of `original` (a span of `kind`), in its spelling: made on the value as a
/// reader sees it, width folded, then written back the way `original` was written
/// ([`View::respell`]: widths, character references and invisible characters kept).
pub fn pseudonymise(key: &PiiKey, kind: &str, original: &str) -> String {
    let v = View::new(original);
    let read: Vec<char> = v.chars().iter().map(|c| fold_char(*c)).collect();
    v.respell(original, &pseudonymise_read(key, kind, &read))
}

/// The pseudonym of `orig`, a value as read and width folded.
fn pseudonymise_read(key: &PiiKey, kind: &str, orig: &[char]) -> String {
    let original: String = orig.iter().collect();
    let norm = normalise_read(kind, &original);
    let last_class = orig.last().map_or(3, |c| reading_class(*c));
    let mut fallback = None;
    for counter in 0u32..200 {
        let seed = key.mac(&[
            b"pseudonym",
            kind.as_bytes(),
            norm.as_bytes(),
            &counter.to_le_bytes(),
        ]);
        let mut rng = ChaCha8Rng::from_seed(seed);
        let mut cand = generate(kind, orig, &mut rng);
        if let (Some(l), Some(o)) = (cand.last_mut(), orig.last())
            && !is_digitish(*o)
            && kind != "address"
            && kind != "ip"
        {
            *l = *o;
        }
        let c: String = cand.iter().collect();
        if c == original || !valid_as(kind, &c) {
            continue;
        }
        if cand.last().map_or(3, |x| reading_class(*x)) == last_class
            || kind == "ip"
            || kind == "address"
        {
            return c;
        }
        fallback.get_or_insert(c);
    }
    // No draw kept the reading class (or none validated): the first valid draw, else a
    // placeholder of the same length that no detector matches.
    fallback.unwrap_or_else(|| {
        orig.iter()
            .map(|c| if c.is_alphanumeric() { '*' } else { *c })
            .collect()
    })
}

#[cfg(test)]
mod tests;
