//! The revision this binary was built from, as `build.rs` read it from the checkout: no hand-kept
//! version number (the seed rejects one by name: it drifts, and it said `0.1.0` for the project's
//! whole life). Uses nothing of the crate.

/// The full commit hash, `unknown` when the build had no git checkout (or `TLC_COMMIT`'s value
/// when the builder set it).
pub(crate) const COMMIT: &str = env!("TLC_COMMIT_FULL");
/// The commit's date (`YYYY-MM-DD`), empty when unknown.
pub(crate) const COMMIT_DATE: &str = env!("TLC_COMMIT_DATE");
/// `clean`, `dirty` (the files the binary is built from had uncommitted changes) or `unknown`.
pub(crate) const TREE_STATE: &str = env!("TLC_TREE_STATE");
/// The checkout the binary was built from (what `tlc update` fetches and rebuilds).
pub(crate) const SOURCE_DIR: &str = env!("TLC_SOURCE_DIR");
/// `tlc --version`'s line after the name, which `tlc version` also prints first.
pub(crate) const LINE: &str = env!("TLC_LONG_VERSION");

/// A commit cut to the 12 characters every line shows (`tlc version`, `tlc update`).
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// What a project database records of the binary its hooks ran: the commit, marked when dirty.
pub(crate) fn recorded() -> String {
    if TREE_STATE == "dirty" {
        format!("{COMMIT}+dirty")
    } else {
        COMMIT.to_string()
    }
}
