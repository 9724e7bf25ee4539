//! The progress display of `run`, `finalise`, `challenge` and `rebuild`: one line per stage
//! on stderr (name, items done / total or items, rate, ETA when the total is known), drawn
//! from the runner's progress events. Only on a terminal unless `--progress always`; never
//! into a pipe or a file by default, and nothing of it reaches an output.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use kcurate_release::runner::Progress;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write as _};
use std::sync::{Arc, Mutex};

/// When the progress lines are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    /// Only when stderr is a terminal (not in a pipe, a file or CI).
    #[default]
    Auto,
    /// Always, also into a pipe (cursor moves as ANSI escapes).
    Always,
    /// Never.
    Never,
}

/// One line per stage, in the order the stages start.
pub struct StageLines {
    multi: MultiProgress,
    /// The line of each stage by name (a stage that starts again gets a new line).
    bars: Mutex<BTreeMap<String, ProgressBar>>,
}

impl StageLines {
    /// The display for `when`; `None` when nothing is to be drawn.
    pub fn new(when: When) -> Option<Arc<StageLines>> {
        let terminal = std::io::stderr().is_terminal();
        let target = match when {
            When::Never => return None,
            When::Auto if !terminal => return None,
            When::Auto => ProgressDrawTarget::stderr(),
            When::Always if terminal => ProgressDrawTarget::stderr(),
            When::Always => ProgressDrawTarget::term_like_with_hz(Box::new(Piped::default()), 10),
        };
        Some(Arc::new(StageLines {
            multi: MultiProgress::with_draw_target(target),
            bars: Mutex::new(BTreeMap::new()),
        }))
    }

    fn bar(&self, stage: &str) -> Option<ProgressBar> {
        let bars = self.bars.lock().unwrap_or_else(|e| e.into_inner());
        bars.get(stage).cloned()
    }
}

impl Progress for StageLines {
    fn start(&self, stage: &str, unit: &str, total: Option<u64>) {
        let bar = self.multi.add(ProgressBar::with_draw_target(
            total,
            ProgressDrawTarget::hidden(),
        ));
        bar.set_style(running(unit == "bytes", total.is_some()));
        bar.set_prefix(stage.to_string());
        bar.set_message(unit.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
        let mut bars = self.bars.lock().unwrap_or_else(|e| e.into_inner());
        bars.insert(stage.to_string(), bar);
    }

    fn advance(&self, stage: &str, done: u64) {
        if let Some(bar) = self.bar(stage) {
            bar.set_position(done);
        }
    }

    fn finish(&self, stage: &str, done: u64) {
        if let Some(bar) = self.bar(stage) {
            bar.set_position(done);
            bar.set_style(finished(bar.message() == "bytes"));
            bar.finish();
        }
    }
}

/// The style of a running stage: bytes or items, with or without a known total.
fn running(bytes: bool, total: bool) -> ProgressStyle {
    let template = match (bytes, total) {
        (true, true) => {
            "{prefix:<13} {binary_bytes:>11} / {binary_total_bytes}  {bytes_rate}  ETA {eta_known}  ({elapsed})"
        }
        (true, false) => "{prefix:<13} {binary_bytes:>11}  {bytes_rate}  {elapsed}",
        (false, true) => {
            "{prefix:<13} {human_pos:>11} / {human_len} {msg}  {rate}  ETA {eta_known}  ({elapsed})"
        }
        (false, false) => "{prefix:<13} {human_pos:>11} {msg}  {rate}  {elapsed}",
    };
    style(template)
}

/// The style of a finished stage: what it did, its mean rate and its time.
fn finished(bytes: bool) -> ProgressStyle {
    style(if bytes {
        "{prefix:<13} {binary_bytes:>11}  {bytes_rate}  done in {elapsed}"
    } else {
        "{prefix:<13} {human_pos:>11} {msg}  {rate}  done in {elapsed}"
    })
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("static template")
        .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{}/s", rate(s.per_sec()));
        })
        .with_key(
            "bytes_rate",
            |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let r = s.per_sec();
                let _ = match r.is_finite() {
                    true => write!(w, "{}/s", indicatif::BinaryBytes(r as u64)),
                    false => write!(w, "-/s"),
                };
            },
        )
        .with_key(
            "eta_known",
            |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                // Before the first item there is no rate to estimate from.
                let _ = match s.pos() {
                    0 => write!(w, "-"),
                    _ => write!(w, "{:#}", indicatif::HumanDuration(s.eta())),
                };
            },
        )
}

/// A rate with as many digits as it needs: whole numbers from 100 up (with thousands
/// separators), one decimal from 10, two below.
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec < 0.0 {
        return "-".into();
    }
    if per_sec >= 100.0 {
        let digits = format!("{:.0}", per_sec);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else if per_sec >= 10.0 {
        format!("{per_sec:.1}")
    } else {
        format!("{per_sec:.2}")
    }
}

/// stderr when it is not a terminal but `--progress always` asks for the lines: the cursor
/// moves are ANSI escapes. indicatif ends a line by padding it to the terminal's width and
/// lets the terminal wrap; here the padding becomes a newline (so a log or a test reads one
/// stage a line), and the next move up counts that newline.
#[derive(Debug, Default)]
struct Piped {
    /// The last write ended a line with a newline indicatif does not know of.
    ended: std::sync::atomic::AtomicBool,
}

impl Piped {
    fn put(&self, s: &str) -> std::io::Result<()> {
        self.ended
            .store(false, std::sync::atomic::Ordering::Relaxed);
        std::io::stderr().lock().write_all(s.as_bytes())
    }

    fn moved(&self, n: usize, dir: char) -> std::io::Result<()> {
        match n {
            0 => Ok(()),
            n => self.put(&format!("\x1b[{n}{dir}")),
        }
    }
}

impl indicatif::TermLike for Piped {
    fn width(&self) -> u16 {
        200
    }
    fn height(&self) -> u16 {
        1000
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        let extra = self.ended.load(std::sync::atomic::Ordering::Relaxed);
        self.moved(n + usize::from(extra), 'A')
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.moved(n, 'B')
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.moved(n, 'C')
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.moved(n, 'D')
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.put(&format!("{s}\n"))
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        if !s.is_empty() && s.bytes().all(|b| b == b' ') {
            self.put("\n")?;
            self.ended.store(true, std::sync::atomic::Ordering::Relaxed);
            return Ok(());
        }
        self.put(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.put("\r\x1b[2K")
    }
    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().lock().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_carry_the_digits_they_need() {
        assert_eq!(rate(123_456.789), "123,457");
        assert_eq!(rate(100.0), "100");
        assert_eq!(rate(99.94), "99.9");
        assert_eq!(rate(12.345), "12.3");
        assert_eq!(rate(1.2345), "1.23");
        assert_eq!(rate(0.0), "0.00");
        assert_eq!(rate(f64::INFINITY), "-");
        assert_eq!(rate(1_000.4), "1,000");
    }
}
