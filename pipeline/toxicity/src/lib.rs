//! kcurate-toxicity (being built).
