//! The run's memory budget (`kcurate run --memory`): how many bytes of records the
//! whole-corpus stages may hold in memory before they spill to their encrypted sorted runs
//! (`spill.rs`) or records file (`keyed.rs`). A corpus whose held records fit runs without
//! touching the disk; one that does not stays flat, as the spill keeps it. The outputs do
//! not depend on the budget: records come back in the same order from memory and from disk.
//!
//! The budget counts records held by the runner only (an estimate of their heap size), not
//! a stage's own index (dedup's signatures, the ingest's duplicate-id table), the writer's
//! buffers or the allocator's slack. The estimate sums the strings and a flat cost per
//! field; the allocator's size classes and the field maps' nodes make the resident cost of
//! held records about three times that, so peak RSS is the run's floor plus about three
//! times the budget (bench/flat_memory.sh's 1x corpus: 194 MB at `--memory 1`, 284 MB at
//! 32 MiB, 382 MB at 64 MiB, 428 MB at 128 MiB, where nothing spills).

use kcurate_core::Record;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The default budget: an eighth of the machine's memory, at least 16 MiB and at most
/// 32 MiB. The cap keeps the default chain over 900k NSMC reviews under 300 MB of peak RSS
/// whatever the machine (see the module doc for how the budget relates to RSS); spilling
/// past it costs that run no measurable time, and a larger budget is asked for with
/// `--memory`.
pub const DEFAULT_SHARE: u64 = 8;
/// Bounds of the default budget (see [`DEFAULT_SHARE`]).
pub const DEFAULT_MIN: u64 = 16 << 20;
/// Bounds of the default budget (see [`DEFAULT_SHARE`]).
pub const DEFAULT_MAX: u64 = 32 << 20;

/// A `--memory` size that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("{given:?} is not a memory size: {why} (e.g. 512M, 2G, 1.5GiB, 300000000)")]
pub struct MemorySizeError {
    given: String,
    why: &'static str,
}

/// Parses a size: a number of bytes with an optional unit, `K`, `M`, `G`, `T` (or `KB`,
/// `KiB`, … ; all powers of 1024), case-insensitive.
pub fn parse_size(s: &str) -> Result<u64, MemorySizeError> {
    let err = |why| MemorySizeError {
        given: s.to_string(),
        why,
    };
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num.parse().map_err(|_| err("no number"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(err("unknown unit")),
    };
    let bytes = num * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(err("too large"));
    }
    Ok(bytes as u64)
}

/// The machine's physical memory in bytes, when the system says.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The budget when `--memory` is not given (see [`DEFAULT_SHARE`]).
pub fn default_budget() -> u64 {
    machine_memory()
        .map_or(DEFAULT_MIN, |m| m / DEFAULT_SHARE)
        .clamp(DEFAULT_MIN, DEFAULT_MAX)
}

/// An estimate of what a held record costs: the struct, its strings' heap and its fields
/// (a map node and the value's text per field).
pub(super) fn record_bytes(r: &Record) -> usize {
    let strings = r.id.len()
        + r.source.len()
        + r.text.len()
        + r.date.as_ref().map_or(0, String::len)
        + r.label.as_ref().map_or(0, String::len)
        + r.parents.iter().map(|p| 24 + p.len()).sum::<usize>();
    let fields: usize = r
        .fields
        .iter()
        .map(|(k, v)| 96 + k.len() + value_bytes(v))
        .sum();
    std::mem::size_of::<Record>() + std::mem::size_of::<bool>() + strings + fields + 64
}

fn value_bytes(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::String(s) => s.len(),
        serde_json::Value::Array(a) => a.iter().map(|x| 32 + value_bytes(x)).sum(),
        serde_json::Value::Object(o) => o.iter().map(|(k, x)| 96 + k.len() + value_bytes(x)).sum(),
        _ => 0,
    }
}

/// The share of the budget the holders of one run draw from (cloned into each).
#[derive(Clone, Debug)]
pub(super) struct Budget {
    limit: usize,
    used: Arc<AtomicUsize>,
}

impl Budget {
    pub(super) fn new(limit: u64) -> Self {
        Budget {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            used: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The budget in bytes.
    pub(super) fn limit(&self) -> usize {
        self.limit
    }

    /// Takes `n` bytes if they fit; false (nothing taken) when they do not.
    pub(super) fn take(&self, n: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                u.checked_add(n).filter(|&t| t <= self.limit)
            })
            .is_ok()
    }

    /// Gives back `n` bytes taken before.
    pub(super) fn give_back(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("300000000").unwrap(), 300_000_000);
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("2g").unwrap(), 2 << 30);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size(" 64 kb ").unwrap(), 64 << 10);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn default_budget_is_bounded() {
        let b = default_budget();
        assert!((DEFAULT_MIN..=DEFAULT_MAX).contains(&b), "{b}");
    }

    #[test]
    fn budget_takes_only_what_fits_and_is_shared() {
        let a = Budget::new(100);
        let b = a.clone();
        assert!(a.take(60));
        assert!(!b.take(50));
        assert!(b.take(40));
        a.give_back(60);
        assert!(b.take(50));
    }
}
