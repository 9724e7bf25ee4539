use super::*;

#[test]
fn config_names_its_vote_controls() {
    let xml = r#"<View><Text name="text" value="$premise"/>
            <Choices name="label" toName="text" choice="single"><Choice value="entailment"/></Choices>
            <TextArea name="comment" toName="text"/></View>"#;
    assert_eq!(config_controls(xml), ["label"]);
    let two = r#"<View><Rating name='stars' toName="t"/><Number name="score" toName="t"/></View>"#;
    assert_eq!(config_controls(two), ["stars", "score"]);
}

fn elements(text: &str, max_bytes: usize, max_depth: usize) -> Vec<(u64, Element)> {
    let mut r = Reader {
        inner: text.as_bytes(),
        line: 1,
    };
    let mut out = Vec::new();
    while let Some(b) = r.peek_token().unwrap() {
        if b == b',' {
            r.inner.consume(1);
            continue;
        }
        let line = r.line;
        out.push((line, r.element(max_bytes, max_depth).unwrap()));
    }
    out
}

/// Values are cut at their ends (strings holding brackets and quotes included), with
/// the line each starts on; one past a cap is skipped whole and the next one read.
#[test]
fn elements_are_cut_at_their_ends_and_capped() {
    let text = "{\"a\": \"}]\\\"\n\"}, [1,\n[2]] ,\n\"s,]\" 12\n{\"b\":[[[0]]]},{}";
    let whole = |s: &str| Element::Whole(s.as_bytes().to_vec());
    assert_eq!(
        elements(text, 100, 10),
        [
            (1, whole("{\"a\": \"}]\\\"\n\"}")),
            (2, whole("[1,\n[2]]")),
            (4, whole("\"s,]\"")),
            (4, whole("12")),
            (5, whole("{\"b\":[[[0]]]}")),
            (5, whole("{}")),
        ]
    );
    let capped = elements(text, 13, 3);
    assert_eq!(capped[0], (1, Element::TooLong));
    assert_eq!(capped[1], (2, whole("[1,\n[2]]")));
    assert_eq!(capped[4], (5, Element::TooDeep));
    assert_eq!(capped[5], (5, whole("{}")));
}
