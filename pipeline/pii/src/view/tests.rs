use super::*;

#[test]
fn a_reading_decodes_references_drops_invisible_characters_and_joins_wrapped_numbers() {
    for (written, read) in [
        ("010&#45;2345&#45;6789", "010-2345-6789"),
        ("010&#x2D;2345&#X2d;6789", "010-2345-6789"),
        ("hong&commat;example&period;com", "hong@example.com"),
        ("010-23\u{AD}45-67\u{200B}89", "010-2345-6789"),
        ("010-2345-\n6789", "010-2345-6789"),
        ("010-2345- \r\n 6789", "010-2345-6789"),
        ("010-2345\n-6789", "010-2345-6789"),
        ("hong @ example.com", "hong@example.com"),
        ("hong(at)example(dot)com", "hong@example.com"),
        ("hong [AT] example [dot] com", "hong@example.com"),
        ("a&nbsp;b", "a b"),
    ] {
        assert_eq!(View::new(written).text, read, "{written:?}");
    }
}

#[test]
fn ordinary_text_reads_as_written() {
    for t in [
        "3시 @ 강남역에서 만나요",
        "메일(at)주소는 안 적었다",
        "AT&T 와 R&D, &없는;것 &#;",
        "1990년\n2000년",
        "점수 10\n다음 줄",
        "@gildong 님 안녕하세요",
        "재밌다 @ @ 끝",
    ] {
        assert_eq!(View::new(t).text, t, "{t:?}");
    }
}

#[test]
fn spans_of_the_reading_are_spans_of_the_written_text() {
    let w = "전화 010&#45;2345&#45;6789 로";
    let v = View::new(w);
    let start = v.text[..v.text.find("010").unwrap()].chars().count();
    let (s, e) = v.to_written(start, start + 13);
    let got: String = w.chars().skip(s).take(e - s).collect();
    assert_eq!(got, "010&#45;2345&#45;6789");
}

#[test]
fn a_rewrite_keeps_the_spelling_of_what_it_does_not_change() {
    let cases = [
        (
            "010&#45;2345&#45;6789",
            "010-7391-2045",
            "010&#45;7391&#45;2045",
        ),
        (
            "010-23\u{AD}45-6789",
            "010-7391-2045",
            "010-73\u{AD}91-2045",
        ),
        ("010-2345-\n6789", "010-7391-2045", "010-7391-\n2045"),
        (
            "０１０－２３４５－６７８９",
            "010-7391-2045",
            "０１０－７３９１－２０４５",
        ),
        ("010-2345-&#54;&#55;", "010-2345-89", "010-2345-&#56;&#57;"),
        (
            "hong(at)example.com",
            "abcd@efghijk.com",
            "abcd(at)efghijk.com",
        ),
        (
            "ｈｏｎｇ＠ｅｘ．ｃｏｍ",
            "abcd@ef.com",
            "ａｂｃｄ＠ｅｆ．ｃｏｍ",
        ),
    ];
    for (written, read, want) in cases {
        assert_eq!(
            View::new(written).respell(written, read),
            want,
            "{written:?}"
        );
    }
    // Another length: returned as it is.
    assert_eq!(View::new("ab").respell("ab", "abc"), "abc");
}

#[test]
fn needed_is_false_for_plain_text_and_true_for_every_spelling() {
    assert!(!needed("010-2345-6789 로 연락"));
    assert!(!needed("hong@example.com"));
    assert!(!needed("hong＠example.com 과 재밌다…ㅋㅋ “좋다”\n다음 줄"));
    for t in [
        "010&#45;2345",
        "010-23\u{AD}45",
        "010-2345-\n6789",
        "hong @ example.com",
        "hong(at)example.com",
        "hong [dot] com",
        "a\u{A0}b",
        "hong ＠ example.com",
        "010–2345–\n6789",
        "０１０－２３４５－\n６７８９",
        "\u{FEFF}010",
        "01\u{2060}0",
    ] {
        assert!(needed(t), "{t:?}");
    }
}
