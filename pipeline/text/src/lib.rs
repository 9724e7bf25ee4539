//! kcurate-text (being built).
