//! report.html in headless Chromium (Debian's `chromium`, installed by .ci/run): it loads
//! with no console error, and a screenshot is saved to target/report.png.

mod common;
use common::*;

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn report_renders_in_headless_chromium_without_console_errors() {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let chromium = chromium.expect(
        "chromium is required for this test (apt-get install chromium; .ci/run installs it)",
    );
    let (_a, dir) = default_release("2");
    let profile = tempfile::tempdir().unwrap();
    let shot = repo().join("target/report.png");
    let url = format!("file://{}", dir.join("report.html").display());
    let o = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1000,2400",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    let console_errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") && l.to_lowercase().contains("error"))
        .collect();
    assert!(
        console_errors.is_empty(),
        "console errors: {console_errors:?}"
    );
    assert!(
        shot.exists() && std::fs::metadata(&shot).unwrap().len() > 10_000,
        "no screenshot: {log}"
    );
    println!("screenshot: {}", shot.display());
}
