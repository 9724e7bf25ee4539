//! kcurate-tasks: task builders. So far: Korean ROUGE ([`rouge`]) and Greedy Sentence
//! Matching ([`gsm`], KLUE §3.2 Algorithm 1), exact, with a naive oracle and a pruned fast
//! version that gives the same pairs; NLI hypothesis-only dev/test selection ([`nli`]).
//!
//! - [`sts`], [`nli`], [`tc`] (with [`tc_topics`]): the KLUE STS, NLI and TC builder stages.
//! - [`challenge`]: SentiNeg flips, hypothesis-only-hard NLI, and the date and unseen-term
//!   split strategies.
//! - [`split_targets`]: dev/test targets as caps that follow the corpus.
//! - [`votes`]: the simulated validators' vote model; [`annotations`]: people's labels a
//!   stage imports.

mod annotation_figures;
pub mod annotations;
pub mod challenge;
pub mod gsm;
pub mod nli;
pub mod rouge;
pub mod split_targets;
pub mod sts;
pub mod tc;
pub mod tc_topics;
pub mod votes;
