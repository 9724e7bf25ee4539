//! The books of one run: ingest's, the licence gate's and each recipe stage's counts, and
//! the metrics the whole-corpus stages report. Every count the run keeps goes through the
//! methods here, so the place of a stage in the books is its place in the plan and nothing
//! else.

use super::segment::Segment;
use kcurate_core::{Decision, StageStats};
use std::collections::BTreeMap;

/// A whole-corpus stage's own metrics, by metric name.
pub(super) type Metrics = BTreeMap<String, serde_json::Value>;

/// The books of one run.
#[derive(Default)]
pub(super) struct Books {
    /// Ingest, counting documents: one in per item read, one out per record it made.
    pub(super) ingest: StageStats,
    /// The licence gate, counting sources.
    pub(super) license: StageStats,
    /// Each recipe stage, in plan order.
    stages: Vec<StageStats>,
    /// Per stage or side input, what it reported beyond the counts.
    pub(super) metrics: BTreeMap<String, Metrics>,
}

impl Books {
    /// Empty books of a run of `stages` recipe stages.
    pub(super) fn new(stages: usize) -> Self {
        Books {
            stages: vec![StageStats::default(); stages],
            ..Books::default()
        }
    }

    /// The books of the recipe stage at `at` in the plan.
    pub(super) fn stage(&self, at: usize) -> &StageStats {
        &self.stages[at]
    }

    /// The recipe stages' books, in plan order.
    pub(super) fn stages(&self) -> &[StageStats] {
        &self.stages
    }

    /// Adds what the recipe stage at `at` counted.
    pub(super) fn add_stage(&mut self, at: usize, stats: &StageStats) {
        self.stages[at] += stats;
    }

    /// Adds what the stages of `segment` counted (one entry per stage, in order).
    pub(super) fn add_segment(&mut self, segment: Segment, stats: &[StageStats]) {
        for (s, x) in self.stages[segment.range()].iter_mut().zip(stats) {
            *s += x;
        }
    }

    /// A whole-corpus stage's metrics, kept when it reported any.
    pub(super) fn add_metrics(&mut self, stage: &str, metrics: Metrics) {
        if !metrics.is_empty() {
            self.metrics.insert(stage.to_string(), metrics);
        }
    }

    /// Ingest read an item and made a record of it.
    pub(super) fn ingest_record(&mut self) {
        self.ingest.items_in += 1;
        self.ingest.items_out += 1;
    }

    /// Ingest read an item it could not make a record of: `d` drops it.
    pub(super) fn ingest_malformed(&mut self, d: &Decision) {
        self.ingest.items_in += 1;
        drop_one(&mut self.ingest, d);
    }

    /// The licence gate let a source through.
    pub(super) fn license_allowed(&mut self) {
        self.license.items_in += 1;
        self.license.items_out += 1;
    }

    /// The licence gate refused a source: `d` drops it.
    pub(super) fn license_refused(&mut self, d: &Decision) {
        self.license.items_in += 1;
        drop_one(&mut self.license, d);
    }
}

/// One item dropped by `d`.
fn drop_one(s: &mut StageStats, d: &Decision) {
    s.count(d);
    s.dropped += 1;
}
