//! Validators from SPEC.md: check digits, dates, prefixes, letter sets. They take digit
//! strings (separators removed) and never read the wall clock: the reference date is a
//! parameter.

/// (year, month, day)
pub type Date = (i32, u32, u32);

/// The "today" of birth-date checks unless a caller gives another (no wall clock).
pub const REFERENCE_DATE: Date = (2025, 12, 31);

fn leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days in month `m` of year `y` (0 for a month that does not exist).
pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// The decimal digits of `s`, in order (separators dropped).
pub fn digits(s: &str) -> Vec<u32> {
    s.chars().filter_map(|c| c.to_digit(10)).collect()
}

/// Birth date of a 13-digit RRN/FRN for its gender digit, if real and not after `reference`.
pub fn birth_date(d: &[u32], reference: Date) -> Option<Date> {
    let century = match d[6] {
        1 | 2 | 5 | 6 => 1900,
        3 | 4 | 7 | 8 => 2000,
        9 | 0 => 1800,
        _ => return None,
    };
    let y = century + (d[0] * 10 + d[1]) as i32;
    let m = d[2] * 10 + d[3];
    let day = d[4] * 10 + d[5];
    if !(1..=12).contains(&m) || day == 0 || day > days_in_month(y, m) {
        return None;
    }
    ((y, m, day) <= reference).then_some((y, m, day))
}

const RRN_WEIGHTS: [u32; 12] = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5];

fn weighted(d: &[u32]) -> u32 {
    d.iter().zip(RRN_WEIGHTS).map(|(a, w)| a * w).sum()
}

/// The check digit of a resident registration number's first 12 digits.
pub fn rrn_check(d: &[u32]) -> u32 {
    (11 - weighted(&d[..12]) % 11) % 10
}

/// The check digit of a foreigner registration number's first 12 digits.
pub fn frn_check(d: &[u32]) -> u32 {
    (13 - weighted(&d[..12]) % 11) % 10
}

/// Whether 13 digits are a valid RRN: a gender digit, a real birth date not after
/// `reference`, and the check digit (which numbers of births from 2020-10-05 on lack).
pub fn is_rrn(d: &[u32], reference: Date) -> bool {
    if d.len() != 13 || ![1, 2, 3, 4, 9, 0].contains(&d[6]) {
        return false;
    }
    let Some(born) = birth_date(d, reference) else {
        return false;
    };
    if matches!(d[6], 3 | 4) && born >= (2020, 10, 5) {
        return true;
    }
    rrn_check(d) == d[12]
}

/// Whether 13 digits are a plausible FRN (gender digit 5-8 and a real birth date).
pub fn is_frn(d: &[u32], reference: Date) -> bool {
    d.len() == 13 && (5..=8).contains(&d[6]) && birth_date(d, reference).is_some()
}

/// Whether the digits pass the Luhn check.
pub fn luhn(d: &[u32]) -> bool {
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| {
            if i % 2 == 1 {
                let y = x * 2;
                if y > 9 { y - 9 } else { y }
            } else {
                x
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The Luhn check digit for the digits before it.
pub fn luhn_digit(body: &[u32]) -> u32 {
    for c in 0..10 {
        let mut v = body.to_vec();
        v.push(c);
        if luhn(&v) {
            return c;
        }
    }
    0
}

/// Whether a 15- or 16-digit card number has a known brand prefix.
pub fn card_brand_ok(d: &[u32]) -> bool {
    let p2 = d[0] * 10 + d[1];
    let p4 = p2 * 100 + d[2] * 10 + d[3];
    match d.len() {
        16 => {
            d[0] == 4
                || (51..=55).contains(&p2)
                || (2221..=2720).contains(&p4)
                || p2 == 35
                || p2 == 62
                || d[0] == 9
        }
        15 => p2 == 34 || p2 == 37,
        _ => false,
    }
}

/// The check digit of a business registration number's first 9 digits.
pub fn brn_check(d: &[u32]) -> u32 {
    const W: [u32; 9] = [1, 3, 7, 1, 3, 7, 1, 3, 5];
    let s: u32 = d[..9].iter().zip(W).map(|(a, w)| a * w).sum::<u32>() + (d[8] * 5) / 10;
    (10 - s % 10) % 10
}

/// Whether 10 digits are a valid business registration number.
pub fn is_brn(d: &[u32]) -> bool {
    d.len() == 10 && d[0] != 0 && brn_check(d) == d[9]
}

/// The region codes a driver's licence number may start with.
pub const LICENSE_REGIONS: [u32; 17] = [
    11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28,
];

/// Licence-plate letters of private cars.
pub const PLATE_PRIVATE: &str = "가나다라마거너더러머버서어저고노도로모보소오조구누두루무부수우주";
/// Licence-plate letters of commercial vehicles.
pub const PLATE_COMMERCIAL: &str = "바사아자";
/// The licence-plate letter of delivery vehicles.
pub const PLATE_DELIVERY: &str = "배";
/// Licence-plate letters of rental cars.
pub const PLATE_RENTAL: &str = "하허호";

/// The use class of a plate letter, if it is one.
pub fn plate_class(c: char) -> Option<&'static str> {
    [
        PLATE_PRIVATE,
        PLATE_COMMERCIAL,
        PLATE_DELIVERY,
        PLATE_RENTAL,
    ]
    .into_iter()
    .find(|set| set.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrn_check_digit_and_post_2020_rule() {
        assert!(is_rrn(&digits("600216-1013884"), REFERENCE_DATE));
        assert!(!is_rrn(&digits("850803-1056740"), REFERENCE_DATE));
        assert!(!is_rrn(&digits("123456-1234567"), REFERENCE_DATE));
        // born 2021-03-04, gender 3: random digits accepted
        assert!(is_rrn(&digits("210304-3999999"), REFERENCE_DATE));
    }

    #[test]
    fn luhn_and_brn() {
        assert!(!luhn(&digits("1234567890123456")));
        assert!(luhn(&digits("4111111111111111")));
        assert!(!is_brn(&digits("1234567890")));
        assert!(is_brn(&digits("102-86-99574")));
    }
}
