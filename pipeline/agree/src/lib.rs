//! kcurate-agree (being built).
