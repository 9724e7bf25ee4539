//! The KLUE STS builder (§3.2) as one corpus stage, `sts`:
//!
//! 1. candidate pairs: from intent groups (paraKQC: the same intent → `paraKQC-para`, the
//!    same topic and another intent → `paraKQC-sampled`), from Greedy Sentence Matching over
//!    other sources (`<source>-sampled`) and from imported round-trip translations
//!    (`<source>-rtt`);
//! 2. annotation: imported 0–5 scores (long TSV/JSONL, Label Studio) or seeded simulated
//!    annotators whose scores follow the pair's content ([`sim`], fitted on KLUE STS dev);
//! 3. KLUE's filters: annotators with Pearson r < 0.80 or nominal α < 0.20 against the others
//!    are dropped (decisions), labels are means rounded to one decimal, binary labels cut at
//!    3.0; optional 2-SD outlier and JSTS variance filters;
//! 4. splits: dev and test uniform over 0.5-wide score bins (per-bin caps), the rest train,
//!    no sentence in two splits; rows in the public KLUE STS schema.

pub mod labels;
pub mod sim;
pub mod stage;
