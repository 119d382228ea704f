//! Adoption: THE one writer of a project config (`<repo>/.tlc/harness/config.toml`).
//!
//! A repository becomes tlc's the first time tlc works in it (a hook that drives work, a
//! mutating command), never when somebody only reads: `Project::adopt` decides whether adoption
//! applies and `hook::adopt` which hook events adopt. [`scaffold`] is the only code that creates
//! the project config, and a test keeps it so. It is idempotent and never raises: it returns
//! [`ScaffoldOutcome::Written`], [`ScaffoldOutcome::Present`] (nothing done) or
//! [`ScaffoldOutcome::NotWritten`] with the reason. It never opens an existing config for writing.
//!
//! What it writes: a three-line provenance header, then the compiled-in template with every key
//! and every table header commented out except `[project]`, so the project restates nothing and
//! keeps inheriting the machine tier. `owner`/`repo` come from the `origin` remote only when both
//! are plain GitHub names; a value that fails is dropped, never escaped.

use super::edit::{ConfigEdit, EditError};
use crate::paths::{escape_from, Paths};
use std::io::Write;
use std::path::PathBuf;

/// What [`scaffold`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScaffoldOutcome {
    /// The project config was created at this path.
    Written(PathBuf),
    /// A project config was already there: nothing was done.
    Present(PathBuf),
    /// Nothing was written anywhere; the warning says why.
    NotWritten(String),
}

/// GitHub's own owner/repo charset: nothing that can quote, end a line or start a new key.
fn plain_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric()) && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Owner and repository from a GitHub remote URL (https, ssh, scp-like), only when both are plain
/// names. Anything else is `None`: the scaffold then leaves both empty.
pub(crate) fn github_owner_repo(url: &str) -> Option<(String, String)> {
    let url = url.trim();
    let path = ["https://", "http://", "ssh://", "git://", "git+ssh://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme))
        .map(|rest| {
            let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
            let (host, path) = rest.split_once('/')?;
            let host = host.split(':').next().unwrap_or(host);
            is_github(host).then_some(path)
        })
        .unwrap_or_else(|| {
            // scp-like: git@github.com:owner/repo.git
            let rest = url.rsplit_once('@').map_or(url, |(_, r)| r);
            let (host, path) = rest.split_once(':')?;
            is_github(host).then_some(path)
        })?;
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let (owner, repo) = path.split_once('/')?;
    (plain_name(owner) && plain_name(repo)).then(|| (owner.to_string(), repo.to_string()))
}

fn is_github(host: &str) -> bool {
    host.eq_ignore_ascii_case("github.com") || host.eq_ignore_ascii_case("www.github.com")
}

/// The template with every key and table header commented out except `[project]`, and
/// `owner`/`repo` filled in by a line-anchored edit bounded by the `[project]` table.
pub(crate) fn render(template: &str, owner_repo: Option<(&str, &str)>, written_at: &str) -> String {
    let mut out = String::with_capacity(template.len() + 512);
    out.push_str(&format!(
        "# Written by tlc at {written_at}, the first time it worked in this repository (adoption).\n"
    ));
    out.push_str("# Every policy key below is commented out, so this project inherits the machine tier ($TLC_HOME/config.toml).\n");
    out.push_str(
        "# To tailor it, uncomment only the keys this project decides: see `tlc init --help`, docs/init.md and docs/config.md.\n\n",
    );
    let mut in_project = false;
    for line in template.lines() {
        let trimmed = line.trim_start();
        let is_header = trimmed.starts_with('[');
        if is_header {
            in_project = trimmed.starts_with("[project]");
        }
        let is_comment_or_blank = trimmed.is_empty() || trimmed.starts_with('#');
        if is_comment_or_blank {
            out.push_str(line);
        } else if in_project {
            match (owner_repo, key_of(trimmed)) {
                (Some((owner, _)), Some("owner")) => out.push_str(&format!("owner = \"{owner}\"")),
                (Some((_, repo)), Some("repo")) => out.push_str(&format!("repo = \"{repo}\"")),
                _ => out.push_str(line),
            }
        } else {
            out.push_str("# ");
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn key_of(line: &str) -> Option<&str> {
    line.split_once('=').map(|(k, _)| k.trim())
}

/// Adopts the repository at `paths.root` with the built-in default config. Never panics, never
/// raises, never opens an existing config for writing. `origin` is the `origin` remote's URL.
pub(crate) fn scaffold(paths: &Paths, origin: Option<&str>) -> ScaffoldOutcome {
    match std::panic::catch_unwind(|| scaffold_inner(paths, origin)) {
        Ok(outcome) => outcome,
        Err(_) => ScaffoldOutcome::NotWritten("the scaffold failed unexpectedly; nothing was written".into()),
    }
}

fn scaffold_inner(paths: &Paths, origin: Option<&str>) -> ScaffoldOutcome {
    let dest = paths.project_config();
    if paths.root_overlaps_home() {
        return ScaffoldOutcome::NotWritten(format!(
            "{}: the project root holds the runtime home; not adopted",
            paths.root.display()
        ));
    }
    if let Some(why) = escape_from(&paths.root) {
        return ScaffoldOutcome::NotWritten(format!("{why}; nothing was written"));
    }
    if std::fs::symlink_metadata(&dest).is_ok() {
        return ScaffoldOutcome::Present(dest);
    }
    let owner_repo = origin.and_then(github_owner_repo);
    let text = render(
        super::TEMPLATE,
        owner_repo.as_ref().map(|(o, r)| (o.as_str(), r.as_str())),
        &crate::clock::now_stamp(),
    );
    for dir in [paths.root.join(".tlc"), paths.project_harness_dir()] {
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return ScaffoldOutcome::NotWritten(format!("{}: cannot create: {e}; nothing was written", dir.display())),
        }
    }
    // Re-check after creating the folders: a symlink raced in stops the write.
    if let Some(why) = escape_from(&paths.root) {
        return ScaffoldOutcome::NotWritten(format!("{why}; nothing was written"));
    }
    // Written whole to a private temp name, then linked into place: link() never replaces an
    // existing file, and a concurrent reader never sees half a config.
    super::edit::remove_stale_temps(&dest);
    let (tmp, mut file) = match crate::fswrite::temp_beside(&dest, 0o644) {
        Ok(t) => t,
        Err(e) => return ScaffoldOutcome::NotWritten(format!("{}: cannot write: {e}", dest.display())),
    };
    let written = file.write_all(text.as_bytes()).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return ScaffoldOutcome::NotWritten(format!("{}: cannot write: {e}", dest.display()));
    }
    let linked = std::fs::hard_link(&tmp, &dest);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return ScaffoldOutcome::Present(dest),
        // A filesystem without hard links: create the file exclusively and write it in place.
        Err(_) => {
            let direct = crate::fswrite::create_new(&dest, 0o644);
            let mut f = match direct {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return ScaffoldOutcome::Present(dest),
                Err(e) => return ScaffoldOutcome::NotWritten(format!("{}: cannot create: {e}", dest.display())),
            };
            if let Err(e) = f.write_all(text.as_bytes()).and_then(|()| f.sync_all()) {
                drop(f);
                let _ = std::fs::remove_file(&dest);
                return ScaffoldOutcome::NotWritten(format!("{}: cannot write: {e}", dest.display()));
            }
        }
    }
    ScaffoldOutcome::Written(dest)
}

/// Opens the project config of `paths.root` for an edit by a tlc command (`guest`: the
/// repository is one tlc never writes into). The file must exist (made by [`scaffold`]): the
/// editor never creates a project config, and never writes through a `.tlc` that leaves the
/// repository or into a guest.
pub(crate) fn edit_project_config(paths: &Paths, guest: bool) -> Result<ConfigEdit, EditError> {
    if guest {
        return Err(EditError::NotWritable(format!(
            "{} is a guest repository (machine tier [guest]), not a git repository, or holds the runtime home: tlc never writes into it",
            paths.root.display()
        )));
    }
    if let Some(why) = escape_from(&paths.root) {
        return Err(EditError::NotWritable(format!("{why}: refusing to write")));
    }
    let path = paths.project_config();
    if !path.is_file() {
        return Err(EditError::NotWritable(format!(
            "{}: no project config (run `tlc init` in a git repository first)",
            path.display()
        )));
    }
    ConfigEdit::open(&path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn paths_at(root: &Path, home: &Path) -> Paths {
        Paths {
            home: home.to_path_buf(),
            root: root.to_path_buf(),
            in_git: true,
        }
    }

    #[test]
    fn owner_repo_come_only_from_plain_github_names() {
        assert_eq!(
            github_owner_repo("https://github.com/acme/widgets.git"),
            Some(("acme".into(), "widgets".into()))
        );
        assert_eq!(
            github_owner_repo("git@github.com:acme/wid.gets"),
            Some(("acme".into(), "wid.gets".into()))
        );
        assert_eq!(
            github_owner_repo("ssh://git@github.com/acme/widgets"),
            Some(("acme".into(), "widgets".into()))
        );
        assert_eq!(
            github_owner_repo("https://user:tok@github.com/acme/widgets/"),
            Some(("acme".into(), "widgets".into()))
        );
        for bad in [
            "https://github.com/ac\"me/widgets.git",
            "https://github.com/acme/wid\ngets",
            "git@github.com:acme/a: b",
            "https://github.com/-acme/widgets",
            "https://github.com/acme/group/widgets",
            "https://gitlab.com/acme/widgets",
            "/some/local/path",
            "",
        ] {
            assert_eq!(github_owner_repo(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_rendered_default_restates_nothing_and_keeps_comments() {
        let text = render(crate::config::TEMPLATE, Some(("acme", "widgets")), "2026-11-29T00:00:00.000Z");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("# Written by tlc at 2026-11-29T00:00:00.000Z"));
        assert!(lines[2].contains("tlc init") && lines[2].contains("docs/config.md"));
        let doc: toml_edit::DocumentMut = text.parse().expect("valid TOML");
        let keys: Vec<String> = doc.iter().map(|(k, _)| k.to_string()).collect();
        assert_eq!(keys, vec!["project".to_string()], "only [project] is live");
        assert_eq!(doc["project"]["owner"].as_str(), Some("acme"));
        assert_eq!(doc["project"]["repo"].as_str(), Some("widgets"));
        // Every comment line of the template survives.
        for l in crate::config::TEMPLATE.lines().filter(|l| l.starts_with('#')) {
            assert!(text.contains(l), "comment lost: {l}");
        }
        assert!(text.contains("# mode = \"solo\"") && text.contains("# [grind]"));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, &text).unwrap();
        let cfg = crate::config::Config::load_files(&dir.path().join("none.toml"), Some(&p)).expect("loads as a project tier");
        let policy: Vec<_> = cfg
            .declared
            .iter()
            .filter(|(_, k, _, _)| crate::config::registry::spec(k).is_some_and(|s| s.policy))
            .collect();
        assert!(policy.is_empty(), "{policy:?}");
    }

    #[test]
    fn scaffold_is_idempotent_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("r");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let paths = paths_at(&root, &dir.path().join("home"));
        let first = scaffold(&paths, Some("https://github.com/acme/widgets"));
        assert_eq!(first, ScaffoldOutcome::Written(paths.project_config()));
        let bytes = std::fs::read(paths.project_config()).unwrap();
        assert_eq!(scaffold(&paths, None), ScaffoldOutcome::Present(paths.project_config()));
        std::fs::write(paths.project_config(), "mode = \"focus\"\n").unwrap();
        assert_eq!(scaffold(&paths, None), ScaffoldOutcome::Present(paths.project_config()));
        assert_eq!(std::fs::read_to_string(paths.project_config()).unwrap(), "mode = \"focus\"\n");
        assert!(String::from_utf8(bytes).unwrap().contains("owner = \"acme\""));
    }

    #[test]
    fn a_symlink_leaving_the_repository_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("r");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join(".tlc")).unwrap();
        let paths = paths_at(&root, &dir.path().join("home"));
        assert!(matches!(scaffold(&paths, None), ScaffoldOutcome::NotWritten(w) if w.contains("outside the repository")));
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        // A symlink staying inside is fine.
        std::fs::remove_file(root.join(".tlc")).unwrap();
        std::fs::create_dir_all(root.join("inner")).unwrap();
        std::os::unix::fs::symlink(root.join("inner"), root.join(".tlc")).unwrap();
        assert!(matches!(scaffold(&paths, None), ScaffoldOutcome::Written(_)));
        // The config file itself as a dangling symlink: present, never followed.
        let r2 = dir.path().join("r2");
        std::fs::create_dir_all(r2.join(".tlc/harness")).unwrap();
        std::os::unix::fs::symlink(outside.join("x.toml"), r2.join(".tlc/harness/config.toml")).unwrap();
        let p2 = paths_at(&r2, &dir.path().join("home"));
        assert!(matches!(scaffold(&p2, None), ScaffoldOutcome::NotWritten(_)));
        assert!(!outside.join("x.toml").exists());
    }

    /// The scaffold is the only code that creates or edits the project config: no other source
    /// file both names the project config's path and writes files, and no other file spells the
    /// file name.
    #[test]
    fn only_the_scaffold_writes_the_project_config() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut stack = vec![src.clone()];
        let writes = [
            "fs::write",
            "File::create",
            "OpenOptions",
            "write_atomic",
            "ConfigEdit::open",
            "create_new",
        ];
        let mut offenders = Vec::new();
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.extension().is_none_or(|x| x != "rs") {
                    continue;
                }
                let rel = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
                // `tests.rs` files are test modules (fixtures), not code that ships.
                if rel == "config/scaffold.rs" || rel == "paths.rs" || rel.ends_with("tests.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                // Test modules may build fixtures; only the code above them counts.
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                let names_it = code.contains("project_config()") || code.contains("\"config.toml\"");
                if names_it && writes.iter().any(|w| code.contains(w)) {
                    offenders.push(rel);
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "only config/scaffold.rs may write the project config: {offenders:?}"
        );
    }
}
