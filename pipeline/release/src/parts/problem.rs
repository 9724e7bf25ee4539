//! What is wrong with a part or decisions file, or with one of its lines.

/// What is wrong with a part or decisions file, or with one of its lines.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// The file cannot be read.
    #[error("{0}")]
    Io(std::io::Error),
    /// A line of an ingest decisions file that is no decision.
    #[error("not a decision: {0}")]
    NotADecision(serde_json::Error),
    /// A part line that starts as a tagged decision and is none.
    #[error("not a tagged decision: {0}")]
    NotATaggedDecision(serde_json::Error),
    /// A part line that is no record (nor any other part line).
    #[error("not a record: {0}")]
    NotARecord(serde_json::Error),
    /// A part line that starts as a key line and is none.
    #[error("not a key line: {0}")]
    NotAKeyLine(serde_json::Error),
    /// A part line that starts as a stats line and is none.
    #[error("not a stats line: {0}")]
    NotAStatsLine(serde_json::Error),
    /// A decision of a stage other than ingest (or the licence gate) in a decisions file.
    #[error(
        "a decision of stage {stage:?}: the decisions files hold ingest's (stage decisions come in the parts)"
    )]
    StageDecision {
        /// The stage the decision names.
        stage: String,
    },
    /// An item whose source or file is not an input of the recipe.
    #[error(
        "{what} from source {source_id:?} at {origin}: not an input of the recipe (a part of another recipe, or its sources changed since ingest)"
    )]
    NotAnInput {
        /// "record" or "decision".
        what: &'static str,
        /// The source the item names (not an error source: thiserror reads a field named
        /// `source` as one).
        source_id: String,
        /// Where the item says it was read.
        origin: String,
    },
    /// A line after the stats line.
    #[error("a line after the part's stats line (the last line a part has)")]
    AfterStats,
    /// A part without its stats line.
    #[error(
        "no stats line: a part is the stdout of `kcurate stage --before-corpus --decisions -`, which ends with one (was the part cut short?)"
    )]
    NoStatsLine,
    /// A key line that does not come right after its record.
    #[error(
        "a key line for {id} that does not follow its record (`stage --dedup-keys` writes it right after the record)"
    )]
    KeyNotAfterRecord {
        /// The record id the key line names.
        id: String,
    },
    /// A key line whose place in input order is not its record's.
    #[error("the key line of {id} puts it at {at:?}; its record is at {place:?}")]
    KeyMisplaced {
        /// The record id.
        id: String,
        /// The place the key line gives.
        at: [u64; 4],
        /// The record's place: source index, file index, line.
        place: [u64; 3],
    },
    /// A part that ran other stages than the parts before it.
    #[error("ran the stages [{}], another part ran [{}]", .ran.join(", "), .other.join(", "))]
    OtherStages {
        /// The stages this part ran.
        ran: Vec<String>,
        /// The stages an earlier part ran.
        other: Vec<String>,
    },
    /// An item seen a second time across the parts.
    #[error("{what} {id} again (first at {first}): a part given twice, or partitions that overlap")]
    Twice {
        /// "record" or "dropped item".
        what: &'static str,
        /// The item id.
        id: String,
        /// Where it was seen first (`part:line`).
        first: String,
    },
    /// Decisions of a stage the stats line does not name.
    #[error(
        "the part has decisions of stage {stage}, which its stats line does not name (an edited or mixed-up part?)"
    )]
    UnnamedStage {
        /// The stage.
        stage: String,
    },
    /// A stage's decisions counted by rule otherwise than the part holds them.
    #[error(
        "the stats line counts {claimed} decision(s) of stage {stage} by rule, the part holds {held} (an edited or mixed-up part?)"
    )]
    RuleCounts {
        /// The stage.
        stage: String,
        /// The decisions the stats line counts.
        claimed: u64,
        /// The decisions the part holds.
        held: u64,
    },
    /// A stage's drops counted otherwise than the part holds them.
    #[error(
        "the stats line says stage {stage} dropped {claimed}, the part holds {held} drop decision(s) of it (an edited or mixed-up part?)"
    )]
    Drops {
        /// The stage.
        stage: String,
        /// The drops the stats line counts.
        claimed: u64,
        /// The drop decisions the part holds.
        held: u64,
    },
    /// A stage that took in items it neither passed on nor dropped.
    #[error(
        "the stats line says stage {stage} took in {items_in}, passed on {items_out} and dropped {dropped}: every item it takes in is passed on or dropped (an edited or mixed-up part?)"
    )]
    Unbalanced {
        /// The stage.
        stage: String,
        /// Items it took in, as claimed.
        items_in: u64,
        /// Items it passed on, as claimed.
        items_out: u64,
        /// Items it dropped, as claimed.
        dropped: u64,
    },
    /// A stage that took in other than the stage before it passed on.
    #[error(
        "the stats line says stage {stage} took in {items_in}, but stage {before} before it passed on {passed} (an edited or mixed-up part?)"
    )]
    Unchained {
        /// The stage.
        stage: String,
        /// Items it took in, as claimed.
        items_in: u64,
        /// The stage before it.
        before: String,
        /// Items that stage passed on, as claimed.
        passed: u64,
    },
    /// A first stage that took in fewer items than the input records the part comes from.
    #[error(
        "the stats line says stage {stage} took in {items_in}, but the part's records and decisions come from {places} input records (an edited or mixed-up part?)"
    )]
    TooFewIn {
        /// The stage.
        stage: String,
        /// Items it took in, as claimed.
        items_in: u64,
        /// Input records the part's lines come from.
        places: usize,
    },
    /// A last stage that passed on other than the records the part holds.
    #[error(
        "the stats line says stage {stage} passed on {claimed} record(s), the part holds {held} (a record injected or lost?)"
    )]
    Records {
        /// The last stage.
        stage: String,
        /// The records it passed on, as claimed.
        claimed: u64,
        /// The records the part holds.
        held: u64,
    },
}
