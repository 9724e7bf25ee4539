//! kcurate-pii: the 16 Korean PII types KLUE pseudonymised (KISA guideline; KLUE §4.1,
//! Table 29), following `../shared/reference/pii/SPEC.md`.
//!
//! - [`detect::detect`]: spans `{start, end, type}` in character offsets. Candidate patterns
//!   live in `rules/pii.toml`; validators (check digits, dates, prefixes, letter classes) in
//!   [`validate`].
//! - [`view`]: the text as a reader sees it (character references decoded, invisible
//!   characters removed, wrapped numbers joined, `hong(at)example.com`), which the detectors
//!   read besides the text as written.
//! - [`pseudo`]: format-preserving, keyed, consistent pseudonyms, and keyed fingerprints for
//!   the audit trail (never the original).
//! - [`stage`]: the `pii` stage (pseudonymise, drop or flag per type).
//! - [`jsonl`]: `pii detect`, `pii pseudonymise` and `pii leak-check`, which reads a release
//!   as written and with its own reading, [`reread`].

pub mod detect;
pub mod fold;
pub mod jsonl;
pub mod pseudo;
pub mod reread;
pub mod stage;
pub mod validate;
pub mod view;

pub use detect::{PiiSpan, TYPES, detect};
