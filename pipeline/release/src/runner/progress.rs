//! What a run reports as it goes, for a progress display (`kcurate run` draws one line per
//! stage): a stage starts with its unit and, when known, its total; it advances; it ends.
//! The runner only reads its own counters to report them, so the bytes of a release are
//! the same with or without a display.

use kcurate_core::StageStats;

/// Receives a run's progress events. Calls may come from several threads; a stage's
/// `start` comes before its `advance` and `finish` calls.
pub trait Progress: Send + Sync {
    /// `stage` starts: it counts `unit` (`bytes`, `documents`, `sentences`, `records` ...),
    /// `total` of them when known.
    fn start(&self, stage: &str, unit: &str, total: Option<u64>);
    /// `stage` has done `done` units so far.
    fn advance(&self, stage: &str, done: u64);
    /// `stage` ended after `done` units.
    fn finish(&self, stage: &str, done: u64);
}

/// Receives nothing: the events of a run without a display.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: &str, _: Option<u64>) {}
    fn advance(&self, _: &str, _: u64) {}
    fn finish(&self, _: &str, _: u64) {}
}

/// The progress of stages whose counts live in the books (per-record stages, an online
/// corpus stage): each starts on its first item, in the unit of the items it received,
/// and advances with the items it received.
pub(super) struct Meters<'a> {
    sink: &'a dyn Progress,
    names: Vec<&'a str>,
    /// The total of each stage, when known at its start.
    totals: Vec<Option<u64>>,
    started: Vec<bool>,
}

impl<'a> Meters<'a> {
    pub(super) fn new(sink: &'a dyn Progress, names: Vec<&'a str>) -> Self {
        let n = names.len();
        Meters {
            sink,
            names,
            totals: vec![None; n],
            started: vec![false; n],
        }
    }

    /// Stage `i` will receive `total` items.
    pub(super) fn with_total(mut self, i: usize, total: u64) -> Self {
        self.totals[i] = Some(total);
        self
    }

    /// Reports stage `i`'s items so far (the items its books say it received).
    pub(super) fn update(&mut self, i: usize, stats: &StageStats) {
        if stats.items_in == 0 {
            return;
        }
        self.start(i, stats);
        self.sink.advance(self.names[i], stats.items_in);
    }

    fn start(&mut self, i: usize, stats: &StageStats) {
        if !self.started[i] {
            self.started[i] = true;
            let unit = match stats.unit_in.as_str() {
                "" => "items",
                u => u,
            };
            self.sink.start(self.names[i], unit, self.totals[i]);
        }
    }

    /// Stage `i` ended (a stage that received nothing starts and ends at 0).
    pub(super) fn finish(&mut self, i: usize, stats: &StageStats) {
        self.start(i, stats);
        self.sink.finish(self.names[i], stats.items_in);
    }
}
