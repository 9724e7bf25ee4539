//! kcurate-pii (being built).
