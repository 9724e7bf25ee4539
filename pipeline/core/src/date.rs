//! Calendar dates of records. A source's `date` field is read as a date and released as ISO
//! `YYYY-MM-DD` (the card's `date32` feature): one type in the JSONL and Parquet files, so
//! that `datasets` and polars read the same column from either.

/// A date as (year, month, day), from YYYY-MM-DD, YYYY.MM.DD, YYYY/MM/DD or NSMC's YY.MM.DD
/// (20YY), with an optional time after a space or `T` (`2020-01-03 09:30`), which is left out.
pub fn parse_date(s: &str) -> Option<(u32, u32, u32)> {
    let s = s.trim();
    let day = s.split([' ', 'T']).next().unwrap_or(s);
    let parts: Vec<&str> = day
        .split(['-', '.', '/'])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() != 3 || parts.iter().any(|p| !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let n: Vec<u32> = parts
        .iter()
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let y = match parts[0].len() {
        2 => 2000 + n[0],
        4 => n[0],
        _ => return None,
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match n[1] {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    ((1..=days).contains(&n[2]) && (1900..=2100).contains(&y)).then_some((y, n[1], n[2]))
}

/// The ISO form (`YYYY-MM-DD`) of a date [`parse_date`] reads.
pub fn iso_date(s: &str) -> Option<String> {
    parse_date(s).map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_corpora_date_forms_and_refuses_the_rest() {
        for (s, want) in [
            ("2020-01-03", "2020-01-03"),
            ("2020.1.3", "2020-01-03"),
            ("2020/01/03", "2020-01-03"),
            ("21.09.27", "2021-09-27"),
            ("2020-01-03 09:30:00", "2020-01-03"),
            ("2020-01-03T09:30:00Z", "2020-01-03"),
            (" 2024-02-29 ", "2024-02-29"),
        ] {
            assert_eq!(iso_date(s).as_deref(), Some(want), "{s}");
        }
        for s in [
            "",
            "2020",
            "2020-13-01",
            "2023-02-29",
            "2020-04-31",
            "20-1-",
            "+2020-01-03",
            "2020-01-03-04",
            "yesterday",
            "1850-01-01",
            "02020-01-03",
        ] {
            assert_eq!(iso_date(s), None, "{s}");
        }
    }
}
