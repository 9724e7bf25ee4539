//! kcurate-tasks (being built).
