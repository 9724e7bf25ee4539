//! Challenge sets derived from a release: SentiNeg-style negation and antonym flips
//! (KoBEST §2.6) and the split strategies (by date, by unseen terms) of KLUE TC (§3.1).

pub mod balance;
pub mod flip;
pub mod nli_hard;
pub mod nli_screen;
pub mod polarity;
pub mod sentineg;
pub mod split_date;
pub mod split_unseen;
