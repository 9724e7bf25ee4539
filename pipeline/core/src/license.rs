//! The licence gate: only CC0, CC BY, CC BY-SA, public domain and KOGL type 1 text may
//! enter a release. Everything else (ND, NC, unknown, missing) is refused with a reason.

use serde::{Deserialize, Serialize};

/// A licence the gate accepts, ordered by how much it asks of a derived release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Allowed {
    /// Public domain: no conditions.
    PublicDomain,
    /// CC0 1.0: no conditions.
    Cc0,
    /// KOGL type 1 (공공누리 제1유형): attribution only, compatible with CC BY.
    Kogl1,
    /// CC BY of the given version: attribution.
    CcBy(String),
    /// CC BY-SA of the given version: attribution, share alike.
    CcBySa(String),
}

impl Allowed {
    /// The SPDX-like id as the release card writes it.
    pub fn spdx(&self) -> String {
        match self {
            Allowed::PublicDomain => "public-domain".into(),
            Allowed::Cc0 => "CC0-1.0".into(),
            Allowed::Kogl1 => "KOGL-Type1".into(),
            Allowed::CcBy(v) => format!("CC-BY-{v}"),
            Allowed::CcBySa(v) => format!("CC-BY-SA-{v}"),
        }
    }
}

/// Why the gate refuses a licence; each names the licence as the recipe wrote it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// No licence, or an empty one.
    #[error("no licence given")]
    Missing,
    /// A no-derivatives licence (CC ND).
    #[error("{0}: no-derivatives licences forbid a derived dataset")]
    NoDerivatives(String),
    /// A non-commercial licence (CC NC).
    #[error("{0}: non-commercial licences are not open enough for a release")]
    NonCommercial(String),
    /// A KOGL type other than 1.
    #[error("{0}: only KOGL type 1 allows derivatives for any use")]
    KoglNotType1(String),
    /// Anything else.
    #[error(
        "{0}: unknown licence; allowed are CC0-1.0, CC-BY-x, CC-BY-SA-x, public-domain, KOGL-Type1"
    )]
    Unknown(String),
}

/// Parses a recipe's licence string. `Err` says why the gate refuses it.
pub fn check(license: Option<&str>) -> Result<Allowed, Refused> {
    let Some(raw) = license.map(str::trim).filter(|s| !s.is_empty()) else {
        return Err(Refused::Missing);
    };
    let norm: String = raw
        .to_ascii_uppercase()
        .chars()
        .map(|c| if c == ' ' || c == '_' { '-' } else { c })
        .collect();
    let norm = norm.trim_end_matches("-INTERNATIONAL").to_string();
    if norm.contains("-ND") || norm.contains("NODERIV") {
        return Err(Refused::NoDerivatives(raw.to_string()));
    }
    if norm.contains("-NC") || norm.contains("NONCOMMERCIAL") {
        return Err(Refused::NonCommercial(raw.to_string()));
    }
    match norm.as_str() {
        "CC0" | "CC0-1.0" => return Ok(Allowed::Cc0),
        "PUBLIC-DOMAIN" | "PD" | "PUBLICDOMAIN" => return Ok(Allowed::PublicDomain),
        "KOGL-TYPE1" | "KOGL-1" | "KOGL-TYPE-1" | "KOGL1" => return Ok(Allowed::Kogl1),
        _ => {}
    }
    let version = |rest: &str| -> Option<String> {
        let v = rest.trim_start_matches('-');
        let ok = ["1.0", "2.0", "2.5", "3.0", "4.0"].contains(&v);
        ok.then(|| v.to_string())
    };
    if let Some(rest) = norm.strip_prefix("CC-BY-SA") {
        if let Some(v) = version(rest) {
            return Ok(Allowed::CcBySa(v));
        }
    } else if let Some(rest) = norm.strip_prefix("CC-BY")
        && let Some(v) = version(rest)
    {
        return Ok(Allowed::CcBy(v));
    }
    if norm.starts_with("KOGL") {
        return Err(Refused::KoglNotType1(raw.to_string()));
    }
    Err(Refused::Unknown(raw.to_string()))
}

/// The licence of a release made from these inputs: the strictest share-alike among them
/// (CC BY-SA at the highest version present, since BY-SA allows later versions), else CC BY
/// at the highest version, else CC0.
pub fn release_license(inputs: &[Allowed]) -> String {
    let max = |f: fn(&Allowed) -> Option<&String>| {
        inputs.iter().filter_map(f).max_by(|a, b| a.cmp(b)).cloned()
    };
    if let Some(v) = max(|a| {
        if let Allowed::CcBySa(v) = a {
            Some(v)
        } else {
            None
        }
    }) {
        return format!("CC-BY-SA-{v}");
    }
    let by = max(|a| {
        if let Allowed::CcBy(v) = a {
            Some(v)
        } else {
            None
        }
    });
    if let Some(v) = by {
        return format!("CC-BY-{v}");
    }
    if inputs.iter().any(|a| matches!(a, Allowed::Kogl1)) {
        return "CC-BY-4.0".into();
    }
    "CC0-1.0".into()
}

/// The Hugging Face card's `license:` value for a release licence.
pub fn hf_license(spdx: &str) -> String {
    spdx.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_open_licences() {
        assert_eq!(check(Some("CC0-1.0")), Ok(Allowed::Cc0));
        assert_eq!(
            check(Some("CC-BY-SA-4.0")),
            Ok(Allowed::CcBySa("4.0".into()))
        );
        assert_eq!(check(Some("cc by 2.5")), Ok(Allowed::CcBy("2.5".into())));
        assert_eq!(check(Some("public-domain")), Ok(Allowed::PublicDomain));
        assert_eq!(check(Some("KOGL-Type1")), Ok(Allowed::Kogl1));
    }

    #[test]
    fn refuses_nd_nc_unknown_and_missing() {
        let nd = |l: &str| Err(Refused::NoDerivatives(l.into()));
        let nc = |l: &str| Err(Refused::NonCommercial(l.into()));
        assert_eq!(check(Some("CC-BY-NC-4.0")), nc("CC-BY-NC-4.0"));
        assert_eq!(check(Some("CC-BY-ND-4.0")), nd("CC-BY-ND-4.0"));
        assert_eq!(check(Some("CC-BY-NC-SA-4.0")), nc("CC-BY-NC-SA-4.0"));
        assert_eq!(
            check(Some("GPL-3.0")),
            Err(Refused::Unknown("GPL-3.0".into()))
        );
        assert_eq!(
            check(Some(" KOGL-Type2 ")),
            Err(Refused::KoglNotType1("KOGL-Type2".into()))
        );
        assert_eq!(check(Some("")), Err(Refused::Missing));
        assert_eq!(check(None), Err(Refused::Missing));
        // The reasons are the text that decisions and errors show.
        assert_eq!(Refused::Missing.to_string(), "no licence given");
        assert_eq!(
            nd("CC-BY-ND-4.0").unwrap_err().to_string(),
            "CC-BY-ND-4.0: no-derivatives licences forbid a derived dataset"
        );
    }

    #[test]
    fn release_takes_the_strictest_share_alike() {
        let l = release_license(&[
            Allowed::Cc0,
            Allowed::CcBy("2.5".into()),
            Allowed::CcBySa("3.0".into()),
            Allowed::CcBySa("4.0".into()),
        ]);
        assert_eq!(l, "CC-BY-SA-4.0");
        assert_eq!(
            release_license(&[Allowed::Cc0, Allowed::CcBy("2.5".into())]),
            "CC-BY-2.5"
        );
        assert_eq!(release_license(&[Allowed::Cc0]), "CC0-1.0");
    }
}
