use super::*;

fn key() -> PiiKey {
    PiiKey::new(b"test-key".to_vec()).unwrap()
}

#[test]
fn pseudonyms_keep_type_format_and_consistency() {
    for (kind, v) in [
        ("phone", "010-2345-6789"),
        ("rrn", "600216-1013884"),
        ("frn", "810514-6988058"),
        ("card", "4375 9735 2929 7829"),
        ("brn", "102-86-99574"),
        ("email", "minsu@naver.com"),
        ("ip", "192.168.0.1"),
        ("mac", "00:1A:2B:3C:4D:5E"),
        ("mention", "@gildong"),
        ("passport", "M123A4567"),
        ("vehicle_plate", "12가3456"),
        ("url", "https://www.example.co.kr/board"),
        ("address", "분당구 정자일로 95"),
        ("address", "충청남도 공주시 문화로 337"),
        ("user_id", "jin1****"),
    ] {
        let p = pseudonymise(&key(), kind, v);
        assert_ne!(p, v, "{kind}");
        // Addresses keep their structure, not their length (real names differ in length).
        if kind != "address" {
            assert_eq!(p.chars().count(), v.chars().count(), "{kind}: {v} → {p}");
        }
        assert!(
            valid_as(kind, &p),
            "{kind}: {v} → {p} is not detected as {kind}"
        );
        assert_eq!(
            p,
            pseudonymise(&key(), kind, v),
            "{kind}: not deterministic"
        );
        let other = pseudonymise(&PiiKey::new(b"other".to_vec()).unwrap(), kind, v);
        assert_ne!(p, other, "{kind}: the key does not change the mapping");
    }
    // Separators differ, same digits: same digits out, each keeping its separators.
    let a = pseudonymise(&key(), "phone", "010-2345-6789");
    let b = pseudonymise(&key(), "phone", "01023456789");
    assert_eq!(a.replace('-', ""), b);
}

#[test]
fn fingerprints_are_keyed() {
    assert_ne!(
        fingerprint(&key(), "phone", "010-2345-6789"),
        fingerprint(
            &PiiKey::new(b"x".to_vec()).unwrap(),
            "phone",
            "010-2345-6789"
        )
    );
    assert_eq!(
        fingerprint(&key(), "phone", "010-2345-6789"),
        fingerprint(&key(), "phone", "01023456789")
    );
}
