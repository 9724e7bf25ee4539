use super::*;

fn screen() -> Screen {
    Screen::parse(Path::new("rules/nli_screen.toml"), NLI_SCREEN_TOML).unwrap()
}

fn first(premise: &str, hypothesis: &str, label: &str) -> Option<String> {
    screen()
        .screen(&[ScreenPair {
            premise,
            hypothesis,
            label,
            fields: None,
        }])
        .remove(0)
        .map(|h| h.rule)
}

#[test]
fn the_shipped_file_parses_with_every_kind() {
    let s = screen();
    assert_eq!(s.rules[0].id, "nli_screen.conflict");
    assert!(s.rules.len() >= 9);
}

#[test]
fn a_clean_pair_passes_and_each_kind_fires() {
    assert_eq!(first("그는 집에 갔다.", "그는 집에 있다.", "neutral"), None);
    assert_eq!(
        first("그는 집에 갔다.", "He went home.", "neutral").as_deref(),
        Some("nli_screen.hangul_share")
    );
    assert_eq!(
        first("보고서, 2001년 5월", "보고서가 있다.", "entailment").as_deref(),
        Some("nli_screen.fragment")
    );
    assert_eq!(
        first("그는 집에 갔다.", "그는 집에 갔다.", "contradiction").as_deref(),
        Some("nli_screen.copy")
    );
}

#[test]
fn repeats_fillers_and_latin_runs_are_counted_on_tokens() {
    assert_eq!(repeated("만약, 만약 비가 오면"), None);
    assert_eq!(repeated("어, 어, 어, 그러니까").as_deref(), Some("어"));
    assert_eq!(
        repeated("다시 보지, 다시 보지 못했다").as_deref(),
        Some("다시 보지")
    );
    assert_eq!(repeated("비가 오면 집에 간다"), None);
    assert_eq!(repeated("a b a b").as_deref(), Some("a b"));
    assert_eq!(latin_run("나는 Blessed Be the Words That Bind를 들었다"), 6);
    assert_eq!(latin_run("나는 Is That All There Is? 를 들었다"), 0);
    assert_eq!(latin_run("IBM과 계약"), 0);
    assert_eq!(latin_run("Peter C. Newman과 Pierre Berton은"), 0);
    assert_eq!(latin_run("coureurs de bois가 멈춘 곳"), 3);
    assert_eq!(latin_run("in Manning, ed."), 3);
    assert_eq!(hangul_share("Hillary Clinton은 배울 수 있었다"), Some(1.0));
    assert_eq!(hangul_share("He read it"), Some(0.0));
}

#[test]
fn a_bad_kind_or_missing_threshold_names_the_rule() {
    let t = "[[rule]]\nid = \"nli_screen.x\"\ndescription = \"x\"\nkind = \"hangul_share\"\n[[rule.example]]\ntext = \"a\"\n";
    let e = Screen::parse(Path::new("r.toml"), t).unwrap_err();
    assert!(
        e.to_string().contains("nli_screen.x") && e.to_string().contains("min_share"),
        "{e}"
    );
}
