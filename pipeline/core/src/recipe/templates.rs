//! The recipes kcurate ships, as text: a recipe for another dataset that copies one of
//! their motivations word for word would make its card say why a different dataset was
//! built, so `check` and `run` refuse it.

/// (path in the repository, text) of every shipped recipe.
const SHIPPED: [(&str, &str); 19] = [
    (
        "configs/challenge-nli-hard.toml",
        include_str!("../../../../configs/challenge-nli-hard.toml"),
    ),
    (
        "configs/challenge-sentineg-nsmc-fresh.toml",
        include_str!("../../../../configs/challenge-sentineg-nsmc-fresh.toml"),
    ),
    (
        "configs/challenge-sentineg-nsmc-fresh2.toml",
        include_str!("../../../../configs/challenge-sentineg-nsmc-fresh2.toml"),
    ),
    (
        "configs/challenge-sentineg-nsmc-fresh3.toml",
        include_str!("../../../../configs/challenge-sentineg-nsmc-fresh3.toml"),
    ),
    (
        "configs/challenge-sentineg-nsmc-train.toml",
        include_str!("../../../../configs/challenge-sentineg-nsmc-train.toml"),
    ),
    (
        "configs/challenge-sentineg-nsmc.toml",
        include_str!("../../../../configs/challenge-sentineg-nsmc.toml"),
    ),
    (
        "configs/challenge-sentineg.toml",
        include_str!("../../../../configs/challenge-sentineg.toml"),
    ),
    (
        "configs/default.toml",
        include_str!("../../../../configs/default.toml"),
    ),
    (
        "configs/jglue-jnli.toml",
        include_str!("../../../../configs/jglue-jnli.toml"),
    ),
    (
        "configs/jglue-jsts.toml",
        include_str!("../../../../configs/jglue-jsts.toml"),
    ),
    (
        "configs/klue-nli.toml",
        include_str!("../../../../configs/klue-nli.toml"),
    ),
    (
        "configs/klue-sts-parakqc.toml",
        include_str!("../../../../configs/klue-sts-parakqc.toml"),
    ),
    (
        "configs/klue-sts.toml",
        include_str!("../../../../configs/klue-sts.toml"),
    ),
    (
        "configs/klue-tc-wikinews.toml",
        include_str!("../../../../configs/klue-tc-wikinews.toml"),
    ),
    (
        "configs/klue-tc.toml",
        include_str!("../../../../configs/klue-tc.toml"),
    ),
    (
        "configs/nli-hard-klue.toml",
        include_str!("../../../../configs/nli-hard-klue.toml"),
    ),
    (
        "configs/nli-hard-xnli.toml",
        include_str!("../../../../configs/nli-hard-xnli.toml"),
    ),
    (
        "configs/nsmc-reviews-toxicity.toml",
        include_str!("../../../../configs/nsmc-reviews-toxicity.toml"),
    ),
    (
        "configs/nsmc-wikinews.toml",
        include_str!("../../../../configs/nsmc-wikinews.toml"),
    ),
];

/// The shipped recipe whose `[release] motivation` is `motivation` (spaces collapsed) while
/// its `name` is not `name`: the motivation was copied from a template for another dataset.
pub(super) fn motivation_copied_from(name: &str, motivation: &str) -> Option<&'static str> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let wanted = norm(motivation);
    SHIPPED.iter().find_map(|(path, text)| {
        let t: toml::Table = toml::from_str(text).ok()?;
        let theirs = t.get("release")?.get("motivation")?.as_str()?;
        let their_name = t.get("name")?.as_str()?;
        (norm(theirs) == wanted && their_name != name).then_some(*path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_recipe_is_read() {
        for (path, text) in SHIPPED {
            assert!(toml::from_str::<toml::Table>(text).is_ok(), "{path}");
        }
    }

    #[test]
    fn every_recipe_in_configs_is_listed() {
        let mut on_disk: Vec<String> = std::fs::read_dir("../../configs")
            .unwrap()
            .map(|e| format!("configs/{}", e.unwrap().file_name().to_string_lossy()))
            .filter(|p| p.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let listed: Vec<&str> = SHIPPED.iter().map(|(p, _)| *p).collect();
        assert_eq!(on_disk, listed);
    }

    #[test]
    fn a_motivation_of_a_shipped_recipe_is_found_only_under_another_name() {
        let Some((path, motivation, name)) = SHIPPED.iter().find_map(|(p, text)| {
            let t: toml::Table = toml::from_str(text).ok()?;
            let m = t.get("release")?.get("motivation")?.as_str()?.to_string();
            Some((*p, m, t.get("name")?.as_str()?.to_string()))
        }) else {
            panic!("no shipped recipe states a motivation");
        };
        assert_eq!(motivation_copied_from("my-corpus", &motivation), Some(path));
        assert_eq!(motivation_copied_from(&name, &motivation), None);
        assert_eq!(
            motivation_copied_from("my-corpus", "Our own reasons."),
            None
        );
    }
}
