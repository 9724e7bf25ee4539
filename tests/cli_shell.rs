//! The CLI as a shell user meets it: examples in every `--help`, completions and a man page
//! generated from the same definitions, and no colour codes in a pipe.

mod common;
use common::{kcurate, stderr, stdout};

/// The subcommands `kcurate --help` lists (the `help` pseudo-command aside).
fn subcommands() -> Vec<String> {
    let o = kcurate(&["--help"]);
    let text = stdout(&o);
    let list = text
        .split("Commands:")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .unwrap();
    list.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_subcommand_help_has_an_example() {
    let cmds = subcommands();
    assert!(cmds.len() >= 20, "{cmds:?}");
    for c in &cmds {
        let o = kcurate(&[c, "--help"]);
        assert!(o.status.success(), "{c} --help");
        let help = stdout(&o);
        assert!(
            help.contains("Examples:\n  kcurate ") || help.contains("Examples:\n  echo "),
            "`kcurate {c} --help` has no example:\n{help}"
        );
    }
}

#[test]
fn completions_cover_every_subcommand_in_bash_zsh_and_fish() {
    let cmds = subcommands();
    for shell in ["bash", "zsh", "fish"] {
        let o = kcurate(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        for c in &cmds {
            assert!(script.contains(c.as_str()), "{shell} completion lacks {c}");
        }
    }
}

#[test]
fn man_page_renders_and_writes_one_page_per_subcommand() {
    let o = kcurate(&["man"]);
    assert!(o.status.success());
    let page = stdout(&o);
    assert!(page.contains(".TH kcurate 1"), "{page}");
    assert!(page.contains("verify"));
    let dir = tempfile::tempdir().unwrap();
    let o = kcurate(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for page in ["kcurate.1", "kcurate-run.1", "kcurate-audit.1"] {
        assert!(dir.path().join(page).is_file(), "{page} missing");
    }
}

#[test]
fn no_colour_codes_when_stderr_is_not_a_terminal() {
    let out = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "--log",
        "info",
        "run",
        "configs/default.toml",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("release written"),
        "no log line to check: {err}"
    );
    assert!(
        !err.contains('\u{1b}'),
        "ANSI escape in piped stderr: {err:?}"
    );
}
