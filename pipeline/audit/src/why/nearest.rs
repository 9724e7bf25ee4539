//! The answer to a text query nothing matches: the nearest released and the nearest dropped
//! text, with their similarity and the counts searched, so a user sees how far the query
//! is from anything the release holds instead of an empty answer.

use super::{Candidate, Hit, SIMILAR, bigrams, dice};

/// The most similar released and the most similar dropped candidate to `query` (spaces
/// collapsed), each as a hit whose `matched` starts with `nearest` and says its similarity
/// and how many texts of each kind were compared; ties go to the smaller item id. Empty
/// when the release holds no text.
pub(super) fn hits(cands: &[Candidate], query: &str) -> Vec<Hit> {
    let qb = bigrams(query);
    let kept = cands.iter().filter(|c| !c.dropped).count();
    let dropped = cands.len() - kept;
    let mut out = Vec::new();
    for (is_dropped, kind) in [(false, "released"), (true, "dropped")] {
        let best = cands
            .iter()
            .filter(|c| c.dropped == is_dropped)
            .map(|c| (dice(&qb, &bigrams(&c.text)), c))
            .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.item.cmp(&a.1.item)));
        if let Some((s, c)) = best {
            out.push(Hit {
                item: c.item.clone(),
                matched: format!(
                    "nearest {kind} text (similarity {:.2}); no match: none of {kept} released \
                     and {dropped} dropped texts reaches {SIMILAR}",
                    (s * 100.0).round() / 100.0
                ),
                origin: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(item: &str, text: &str, dropped: bool) -> Candidate {
        Candidate {
            item: item.into(),
            text: text.into(),
            dropped,
        }
    }

    #[test]
    fn the_nearest_of_each_kind_is_reported_with_the_counts_searched() {
        let cands = [
            cand("a", "오늘 날씨 맑음", false),
            cand("b", "부산 날씨 흐림", false),
            cand("c", "영화 최악이다", true),
        ];
        let h = hits(&cands, "부산 날씨 어때");
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].item, "b");
        assert!(
            h[0].matched
                .starts_with("nearest released text (similarity 0.")
        );
        assert!(h[0].matched.contains("none of 2 released and 1 dropped"));
        assert_eq!(h[1].item, "c");
        assert!(
            h[1].matched
                .starts_with("nearest dropped text (similarity 0.00)")
        );
    }

    #[test]
    fn a_release_without_text_gives_no_hit() {
        assert!(hits(&[], "무엇이든").is_empty());
    }
}
