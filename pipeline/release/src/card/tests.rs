use super::*;

#[test]
fn size_categories_follow_the_hub_list_past_ten_million() {
    let cases = [
        (0, "n<1K"),
        (999, "n<1K"),
        (1_000, "1K<n<10K"),
        (99_999, "10K<n<100K"),
        (999_999, "100K<n<1M"),
        (9_999_999, "1M<n<10M"),
        (10_000_000, "10M<n<100M"),
        (100_000_000, "100M<n<1B"),
        (1_000_000_000, "1B<n<1T"),
        (1_000_000_000_000, "n>1T"),
    ];
    for (n, want) in cases {
        assert_eq!(size_category(n), want, "{n}");
    }
}

#[test]
fn splits_types_merge_null_int_and_struct_fields() {
    assert_eq!(
        merge(Feature::Value("null"), Feature::Value("string")),
        Feature::Value("string")
    );
    assert_eq!(
        merge(Feature::Value("int64"), Feature::Value("float64")),
        Feature::Value("float64")
    );
    let a = Feature::Struct(vec![("x".into(), Feature::Value("int64"))]);
    let b = Feature::Struct(vec![
        ("y".into(), Feature::Value("string")),
        ("x".into(), Feature::Value("float64")),
    ]);
    assert_eq!(
        merge(a, b),
        Feature::Struct(vec![
            ("x".into(), Feature::Value("float64")),
            ("y".into(), Feature::Value("string")),
        ])
    );
}

#[test]
fn features_are_written_in_the_hubs_yaml_form() {
    let mut s = String::new();
    write_features(
        &mut s,
        &[
            (
                "label".into(),
                Feature::ClassLabel(vec!["a".into(), "b".into()]),
            ),
            (
                "m".into(),
                Feature::Struct(vec![(
                    "xs".into(),
                    Feature::List(Box::new(Feature::Value("int64"))),
                )]),
            ),
            ("분야".into(), Feature::Value("string")),
        ],
        2,
    );
    assert_eq!(
        s,
        "  - name: label\n    dtype:\n      class_label:\n        names:\n          '0': \"a\"\n          '1': \"b\"\n  \
             - name: m\n    struct:\n    - name: xs\n      sequence: int64\n  - name: \"분야\"\n    dtype: string\n"
    );
}
