//! kcurate-release: the runner, the release writer, manifest, verify and rebuild.
