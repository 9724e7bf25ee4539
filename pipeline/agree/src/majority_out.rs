//! The fast writer of `kcurate agree --aggregate majority`: the same bytes as serializing
//! each [`AggRow::Majority`](crate::report::AggRow) with serde_json (the plain path,
//! [`crate::report::for_each_aggregate`], its test oracle), with each distinct label's JSON
//! and the line's fixed parts written once, and an item id that needs no escaping copied as
//! it is (serde_json escapes only `"`, `\` and control characters).

use crate::report::majority_cells;
use crate::table::Table;
use std::io::Write;

/// Writes `{"item":…,"label":…}` per item (first-seen order), label `null` where there is no
/// gold, one line each.
pub(crate) fn write_majority(
    t: &Table,
    min_votes: usize,
    out: &mut impl Write,
) -> std::io::Result<()> {
    // Per value: `,"label":<json>}\n`; then the same for no gold.
    let mut tails: Vec<Vec<u8>> = t
        .values
        .iter()
        .map(|v| tail(&v.to_json()))
        .collect::<Result<_, _>>()?;
    tails.push(tail(&serde_json::Value::Null)?);
    let none = tails.len() - 1;
    let mut counts = vec![0u32; t.values.len()];
    for (i, id) in t.items.iter().enumerate() {
        out.write_all(b"{\"item\":")?;
        if needs_escape(id) {
            serde_json::to_writer(&mut *out, id)?;
        } else {
            out.write_all(b"\"")?;
            out.write_all(id.as_bytes())?;
            out.write_all(b"\"")?;
        }
        let gold = majority_cells(t.item(i), min_votes, &mut counts);
        out.write_all(&tails[gold.map_or(none, |v| v as usize)])?;
    }
    Ok(())
}

fn tail(label: &serde_json::Value) -> std::io::Result<Vec<u8>> {
    let mut b = b",\"label\":".to_vec();
    serde_json::to_writer(&mut b, label)?;
    b.extend_from_slice(b"}\n");
    Ok(b)
}

/// Whether serde_json writes `s` other than between two quotes as it is.
fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;
    use crate::report::{AggRow, Aggregation, for_each_aggregate};
    use proptest::prelude::*;

    /// The plain path: each row through serde_json.
    fn plain(t: &Table, min_votes: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for_each_aggregate(
            t,
            Aggregation::Majority { min_votes },
            |row: &AggRow<'_>| {
                serde_json::to_writer(&mut out, row)?;
                out.push(b'\n');
                Ok::<_, serde_json::Error>(())
            },
        )
        .unwrap();
        out
    }

    fn label() -> impl Strategy<Value = Label> {
        prop_oneof![
            (-3i32..4).prop_map(|x| Label::Num(f64::from(x))),
            prop::sample::select(vec![0.5, -2.25, 1e20, 3e-7]).prop_map(Label::Num),
            "[a-z가\"\\\\\u{1}/ ]{0,3}".prop_map(Label::Text),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The same bytes as serde_json row by row: item ids with quotes, backslashes,
        /// control characters and Hangul, numeric and text labels, ties and thresholds.
        #[test]
        fn fast_equals_serde(
            items in prop::collection::vec("[a-z0-9가\"\\\\\u{0}\u{1f}\t/]{0,4}", 1..12),
            values in prop::collection::vec(label(), 1..5),
            votes in prop::collection::vec((0..12usize, 0..8u32, 0..5usize), 0..60),
            min_votes in 0..4usize,
        ) {
            let (n, m) = (items.len(), values.len());
            let mut seen = std::collections::BTreeSet::new();
            let triples: Vec<(u32, u32, u32)> = votes
                .into_iter()
                .filter(|&(i, a, _)| seen.insert((i % n, a)))
                .map(|(i, a, v)| ((i % n) as u32, a, (v % m) as u32))
                .collect();
            let mut values = values;
            values.sort();
            values.dedup();
            let triples: Vec<_> = triples.into_iter().map(|(i, a, v)| (i, a, v % values.len() as u32)).collect();
            let annotators = (0..8).map(|a| format!("w{a}")).collect();
            let t = Table::build(items, annotators, values, &triples);
            let mut fast = Vec::new();
            write_majority(&t, min_votes, &mut fast).unwrap();
            let want = plain(&t, min_votes);
            prop_assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&want));
        }
    }
}
