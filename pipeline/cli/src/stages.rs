//! The one table of stages a recipe can name. A new stage is one file in its crate plus
//! one line here.

use kcurate_core::StageEntry;

pub static STAGES: &[StageEntry] = &[
    kcurate_text::stages::normalize::ENTRY,
    kcurate_text::stages::noise::ENTRY,
    kcurate_text::stages::split::ENTRY,
    kcurate_text::stages::filter::ENTRY,
    kcurate_text::stages::dedup::ENTRY,
    kcurate_text::stages::assign_split::ENTRY,
    kcurate_toxicity::stage::ENTRY,
    kcurate_pii::stage::ENTRY,
    kcurate_tasks::sts::stage::ENTRY,
    kcurate_tasks::nli::premise::ENTRY,
    kcurate_tasks::nli::build::ENTRY,
    kcurate_tasks::tc::ENTRY,
    kcurate_tasks::challenge::sentineg::ENTRY,
    kcurate_tasks::challenge::nli_hard::ENTRY,
    kcurate_tasks::challenge::split_date::ENTRY,
    kcurate_tasks::challenge::split_unseen::ENTRY,
];
