use super::*;

#[test]
fn keys_ignore_spacing_and_punctuation() {
    assert_eq!(dedup_key("정말 재밌어요!!"), dedup_key("정말재밌어요."));
    assert_eq!(dedup_key("ABC d"), "abcd");
}

#[test]
fn exact_and_near() {
    let mut d = Deduper::new(42, true, Some(NearConfig::default()));
    let a = "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어요";
    let b = "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어요!";
    let c = "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어";
    let z = "주말에 가족들과 함께 공원에 다녀왔는데 날씨가 좋아서 즐거웠습니다";
    assert_eq!(d.offer(a), Verdict::Keep);
    assert_eq!(d.offer(z), Verdict::Keep);
    assert_eq!(d.offer(b), Verdict::Exact { twin: 0 });
    match d.offer(c) {
        Verdict::Near { twin, score } => {
            assert_eq!(twin, 0);
            assert!(score >= 0.8, "{score}");
        }
        v => panic!("expected near, got {v:?}"),
    }
    assert_eq!(d.kept(), 2);
}

/// Texts the generated corpora of the batch and shuffle tests vary (twins, tails, chains):
/// three long enough for MinHash and one short (exact only).
const TWIN_BASES: [&str; 4] = [
    "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어요",
    "주말에 가족들과 함께 공원에 다녀왔는데 날씨가 좋아서 즐거웠습니다",
    "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔다",
    "짧은 글",
];

/// The batch form gives the verdicts of one offer at a time (its oracle), near and exact
/// duplicates inside one window included.
#[test]
fn offer_batch_matches_offer_one_at_a_time() {
    let base = TWIN_BASES;
    let mut texts = Vec::new();
    for i in 0..300usize {
        let b = base[i % base.len()];
        // Exact twins, near twins (a changed tail) and distinct texts, interleaved.
        texts.push(match i % 5 {
            0 => b.to_string(),
            1 => format!("{b}!"),
            2 => format!("{b} {}", i % 7),
            3 => format!("{}{}", &b[..b.len() - 3], i),
            _ => format!("전혀 다른 문장 번호 {i} 입니다 {}", i * 7919),
        });
    }
    let mut one = Deduper::new(3, true, Some(NearConfig::default()));
    let want: Vec<Verdict> = texts.iter().map(|t| one.offer(t)).collect();
    let mut batch = Deduper::new(3, true, Some(NearConfig::default()));
    let got = batch.offer_batch(texts.iter().map(String::as_str));
    assert_eq!(got, want);
    assert!(want.iter().any(|v| matches!(v, Verdict::Near { .. })));
    assert!(want.iter().any(|v| matches!(v, Verdict::Exact { .. })));
    assert_eq!(batch.kept(), one.kept());
}

/// The AVX2 build of the shingle fold gives the baseline's signature bit for bit.
#[test]
fn simd_and_baseline_signatures_agree() {
    let m = MinHasher::new(11, NearConfig::default());
    let mut key = Vec::new();
    key_chars(
        "배우들의 연기가 정말 훌륭했고 음악도 아름다웠던 영화 ABC 123 ㅋㅋㅋ",
        &mut key,
    );
    let mut base = vec![u32::MAX; m.cfg.num_perm];
    m.fold_shingles(&key, m.cfg.ngram, &mut base);
    let mut sig = Vec::new();
    assert!(m.signature_into(&key, &mut sig));
    assert_eq!(sig, base);
}

#[test]
fn seeded_and_portable() {
    assert_eq!(hash64(1, b"abc"), hash64(1, b"abc"));
    assert_ne!(hash64(1, b"abc"), hash64(2, b"abc"));
    // Golden value: a change would silently change which twin a release keeps.
    assert_eq!(hash64(0, b""), 5_197_578_548_964_807_871);
    assert_eq!(
        hash64(42, "정말 재밌어요".as_bytes()),
        1_248_164_935_329_261_326
    );
    let m = MinHasher::new(7, NearConfig::default());
    assert_eq!(
        m.signature("가나다라마바사아자차"),
        m.signature("가나다라마바사아자차")
    );
}

#[test]
fn contamination_lists_violations() {
    let train = [
        (
            "t1",
            "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔다",
        ),
        ("t2", "다른 문장입니다 전혀 관련이 없는 내용"),
    ];
    let eval = [
        (
            "d1",
            "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔다.",
        ),
        (
            "d2",
            "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔어",
        ),
        ("d3", "완전히 새로운 평가 문장이라서 문제가 없다"),
    ];
    let v = contamination(train, eval, 42, Some(NearConfig::default()));
    assert_eq!(v.len(), 2);
    assert_eq!(
        (v[0].eval_id.as_str(), v[0].train_id.as_str(), v[0].kind),
        ("d1", "t1", "exact")
    );
    assert_eq!((v[1].eval_id.as_str(), v[1].kind), ("d2", "near"));
}

#[test]
fn keys_stand_for_their_texts() {
    let texts = [
        "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어요",
        "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어요!",
        "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어",
        "주말에 가족들과 함께 공원에 다녀왔는데 날씨가 좋아서 즐거웠습니다",
        "짧은 글",
        "짧은 글!",
    ];
    let mut by_text = Deduper::new(5, true, Some(NearConfig::default()));
    let mut by_keys = Deduper::new(5, true, Some(NearConfig::default()));
    let probe = "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔다";
    for t in texts {
        let k = by_keys.keys(t);
        assert_eq!(
            by_keys.lookup_keys(&by_keys.keys(probe)),
            by_text.lookup(probe)
        );
        assert_eq!(by_keys.offer_keys(&k), by_text.offer(t), "{t}");
    }
    assert!(by_keys.keys("짧은 글").sig.is_none());
    assert_eq!(by_keys.kept(), 3);
}

/// The shuffle's premise: replaying only the texts that share a meeting key with another
/// (in their order, by their keys) gives every one of them the verdict the whole corpus
/// gives it, naming the same twin; every other text is kept. Includes exact and near
/// twins, chains (a near twin of a dropped text), a crowded bucket past the per-band
/// candidate cap, short texts (exact only) and distinct texts.
#[test]
fn colliding_texts_alone_get_the_whole_corpus_verdicts() {
    let base = TWIN_BASES;
    let mut texts = Vec::new();
    for i in 0..600usize {
        let b = base[i % base.len()];
        texts.push(match i % 7 {
            0 => b.to_string(),
            1 => format!("{b}!"),
            2 => format!("{b} {}", i % 5),
            3 => format!("{}{}", &b[..b.len() - 3], i % 11),
            // A crowd of near-identical boilerplate (more than 16 per bucket).
            4 => format!(
                "공지사항 본 게시물은 운영 정책에 따라 삭제될 수 있습니다 {}",
                i % 40
            ),
            _ => format!("전혀 다른 문장 번호 {i} 입니다 {}", i * 7919),
        });
    }
    for (exact, near) in [(true, true), (false, true), (true, false)] {
        let near = near.then(NearConfig::default);
        let mut whole = Deduper::new(9, exact, near);
        let want: Vec<Verdict> = texts.iter().map(|t| whole.offer(t)).collect();
        let kept_ids = |vs: &[Verdict], ids: &[usize]| -> Vec<Option<usize>> {
            // Verdict → the input index of the twin (None for Keep).
            let mut kept = Vec::new();
            vs.iter()
                .zip(ids)
                .map(|(v, &i)| match v {
                    Verdict::Keep => {
                        kept.push(i);
                        None
                    }
                    Verdict::Exact { twin } | Verdict::Near { twin, .. } => Some(kept[*twin]),
                })
                .collect()
        };
        let all: Vec<usize> = (0..texts.len()).collect();
        let want_twins = kept_ids(&want, &all);
        let keys: Vec<TextKeys> = texts.iter().map(|t| whole.keys(t)).collect();
        let mut count = std::collections::BTreeMap::new();
        let meet: Vec<Vec<(u64, u64)>> = keys
            .iter()
            .map(|k| {
                let m = whole.meeting_keys(k);
                let mut v: Vec<(u64, u64)> = m.bands.iter().map(|&b| (0, b)).collect();
                v.extend(m.exact.map(|(a, b)| (1 + b as u64, a)));
                v
            })
            .collect();
        for m in &meet {
            for k in m {
                *count.entry(*k).or_insert(0) += 1;
            }
        }
        let colliding: Vec<usize> = (0..texts.len())
            .filter(|&i| meet[i].iter().any(|k| count[k] > 1))
            .collect();
        assert!(colliding.len() < texts.len(), "distinct texts meet no one");
        let mut part = Deduper::new(9, exact, near);
        let got: Vec<Verdict> = colliding
            .iter()
            .map(|&i| part.offer_keys(&keys[i]))
            .collect();
        let got_twins = kept_ids(&got, &colliding);
        for (n, &i) in colliding.iter().enumerate() {
            assert_eq!(got_twins[n], want_twins[i], "text {i}");
            match (&got[n], &want[i]) {
                (Verdict::Near { score: a, .. }, Verdict::Near { score: b, .. }) => {
                    assert_eq!(a, b)
                }
                (a, b) => assert_eq!(
                    std::mem::discriminant(a),
                    std::mem::discriminant(b),
                    "text {i}"
                ),
            }
        }
        for i in (0..texts.len()).filter(|i| !colliding.contains(i)) {
            assert_eq!(want[i], Verdict::Keep, "text {i} meets no one");
        }
        assert!(want.iter().any(|v| matches!(v, Verdict::Exact { .. })) == exact);
    }
}
