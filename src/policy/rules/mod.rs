//! Operator rules (`rules.enabled`): the operator writes one rule per markdown file — a trigger,
//! the proofs tlc must have observed, a verdict — and tlc enforces it. Two tiers apply together:
//! `$TLC_HOME/rules/*.md` for every repository on this machine and `.tlc/harness/rules/*.md` for
//! the project, deduplicated by file name with the project winning; a project rule carrying
//! `enabled: false` switches the global one of that name off there.
//!
//! What each part does: [`parse`] reads a file's frontmatter (pure), [`trigger`] says which
//! triggers an act fires (the shell engine's parsed commands, the `gh api` REST forms of the
//! checkout's own remote, the GitHub MCP server's `create_pull_request`), [`proof`] keeps what tlc
//! observed ([`ProofStore`], the `rule_proofs` table) and says what a rule is missing. The
//! per-event rail is `rails::operator_rule`; `on: stop` rules are read by `gate::stop` after the
//! lint, test and docs gates.
//!
//! A rule file is read through `fsread` (a regular file, not a symlink, at most
//! [`crate::fsread::RULE_CAP`]); a file that cannot be read or parsed is listed with its error and
//! enforces nothing. Nothing here reads a file unless the caller asked (the hook only with the
//! switch on).

pub(crate) mod parse;
pub(crate) mod proof;
pub(crate) mod ran;
pub(crate) mod trigger;

pub(crate) use parse::{ProofKind, Rule, Spec, Trigger, Verdict};
pub(crate) use proof::{Miss, ProofStore, Scope};

use crate::fsread::{self, Links};
use crate::paths::Paths;
use std::path::{Path, PathBuf};

/// The rule name every decision and stop outcome of an operator rule carries, before `:<file>`.
pub(crate) const RULE: &str = "operator-rule";
/// Rule files read from one folder; more are listed as not read.
pub(crate) const MAX_FILES: usize = 200;

/// The rule name of the rule in file `name` (`operator-rule:require-tests.md`): reports count
/// each rule file on its own.
pub(crate) fn rule_name(name: &str) -> String {
    format!("{RULE}:{name}")
}

/// Where a rule file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Tier {
    /// `$TLC_HOME/rules/`: every repository on this machine.
    Global,
    /// `.tlc/harness/rules/`: this project, versioned with it.
    Project,
}

impl Tier {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Tier::Global => "global",
            Tier::Project => "project",
        }
    }
}

/// Whether a listed rule file enforces anything, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum State {
    Active,
    /// Its own frontmatter says `enabled: false`.
    Disabled,
    /// A project rule of the same file name replaces it.
    Shadowed {
        by: PathBuf,
    },
    /// A project rule of the same file name says `enabled: false`.
    SwitchedOff {
        by: PathBuf,
    },
    /// It could not be read or parsed: it enforces nothing.
    Broken,
}

impl State {
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            State::Active => "active",
            State::Disabled => "disabled",
            State::Shadowed { .. } => "shadowed",
            State::SwitchedOff { .. } => "switched-off",
            State::Broken => "broken",
        }
    }

    /// The project rule that replaces or switches this one off.
    pub(crate) fn by(&self) -> Option<&Path> {
        match self {
            State::Shadowed { by } | State::SwitchedOff { by } => Some(by),
            _ => None,
        }
    }
}

/// One rule file as it was read.
#[derive(Debug, Clone)]
pub(crate) struct RuleFile {
    /// The file name, by which the tiers are deduplicated.
    pub name: String,
    pub tier: Tier,
    pub path: PathBuf,
    /// The rule, or what is wrong with the file (the path is not repeated in it).
    pub rule: Result<Rule, String>,
    pub state: State,
}

impl RuleFile {
    /// The rule's trigger, requirements and verdict, when it is active.
    pub(crate) fn active(&self) -> Option<&Spec> {
        match (&self.state, &self.rule) {
            (State::Active, Ok(rule)) => rule.spec.as_ref(),
            _ => None,
        }
    }

    /// The error, with the file it is about.
    pub(crate) fn error(&self) -> Option<String> {
        self.rule.as_ref().err().map(|e| format!("{}: {e}", self.path.display()))
    }

    pub(crate) fn rule_name(&self) -> String {
        rule_name(&self.name)
    }
}

/// One of the two folders rules are read from.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Folder {
    pub tier: Tier,
    pub path: PathBuf,
    pub exists: bool,
    /// Why the folder, or some of its files, could not be listed.
    pub problem: Option<String>,
}

/// Both tiers' rule files, deduplicated.
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleSet {
    /// Global files first, then the project's, each tier sorted by file name.
    pub files: Vec<RuleFile>,
    pub folders: Vec<Folder>,
}

impl RuleSet {
    /// The rules that enforce something, in file-name order (a project rule of a name before a
    /// global one of another).
    pub(crate) fn active(&self) -> Vec<(&RuleFile, &Spec)> {
        let mut out: Vec<(&RuleFile, &Spec)> = self.files.iter().filter_map(|f| f.active().map(|s| (f, s))).collect();
        out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        out
    }

    /// The files that could not be read or parsed.
    pub(crate) fn broken(&self) -> impl Iterator<Item = &RuleFile> {
        self.files.iter().filter(|f| f.state == State::Broken)
    }

    /// Problems listing a folder (an unreadable folder, too many files).
    pub(crate) fn folder_problems(&self) -> impl Iterator<Item = String> + '_ {
        self.folders
            .iter()
            .filter_map(|f| f.problem.as_ref().map(|p| format!("{}: {p}", f.path.display())))
    }

    /// Whether some active rule fires on an action (not only at the stop): only then does the
    /// rail need HEAD.
    pub(crate) fn acts_on_actions(&self) -> bool {
        self.active().iter().any(|(_, s)| s.on != Trigger::Stop)
    }
}

/// What the hook hands the operator-rule rail on an acting event (read only with `rules.enabled`):
/// the rule files, HEAD as read before the event's transaction, and the tool's input (an MCP
/// call's `owner`/`repo`/`draft`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Input {
    pub set: RuleSet,
    /// The stored form of HEAD (`gate::changes::Head::stored`).
    pub head: Option<String>,
    pub tool_input: Option<serde_json::Value>,
}

/// A fired rule whose proofs are missing.
#[derive(Debug, Clone)]
pub(crate) struct Unmet<'r> {
    pub file: &'r RuleFile,
    pub spec: &'r Spec,
    pub missing: Vec<Miss>,
}

impl Unmet<'_> {
    pub(crate) fn rule_name(&self) -> String {
        self.file.rule_name()
    }

    /// The operator's text, as written.
    pub(crate) fn body(&self) -> &str {
        self.file.rule.as_ref().map_or("", |r| r.body.as_str())
    }

    /// `missing …; missing … (ran, but …) — checked <root> at <sha>`.
    pub(crate) fn missing_line(&self, scope: &Scope<'_>) -> String {
        let missing: Vec<String> = self.missing.iter().map(ToString::to_string).collect();
        format!("{} {}", missing.join("; "), scope.checked())
    }

    /// The rule file, its trigger and verdict, what is missing and where it was checked.
    pub(crate) fn headline(&self, scope: &Scope<'_>) -> String {
        format!(
            "tlc operator rule {} (on: {}, otherwise: {}): {}",
            self.file.path.display(),
            self.spec.on,
            self.spec.otherwise.as_str(),
            self.missing_line(scope)
        )
    }

    /// The headline, then the operator's text verbatim.
    pub(crate) fn text(&self, scope: &Scope<'_>) -> String {
        let mut t = self.headline(scope);
        if !self.body().is_empty() {
            t.push_str("\n\n");
            t.push_str(self.body());
        }
        t
    }
}

/// The rules of `fired` (active rules whose trigger fired) whose proofs are missing in `scope`.
pub(crate) fn unmet<'r>(
    conn: &rusqlite::Connection,
    fired: impl IntoIterator<Item = (&'r RuleFile, &'r Spec)>,
    scope: &Scope<'_>,
) -> rusqlite::Result<Vec<Unmet<'r>>> {
    let store = ProofStore::new(conn);
    let mut out = Vec::new();
    for (file, spec) in fired {
        let missing = store.missing(spec, scope)?;
        if !missing.is_empty() {
            out.push(Unmet { file, spec, missing });
        }
    }
    Ok(out)
}

/// `$TLC_HOME/rules`.
pub(crate) fn global_dir(paths: &Paths) -> PathBuf {
    paths.home.join("rules")
}

/// `<project>/.tlc/harness/rules`.
pub(crate) fn project_dir(paths: &Paths) -> PathBuf {
    paths.project_harness_dir().join("rules")
}

/// Reads both tiers' rule files. Never fails: a folder or file that cannot be read is listed
/// with its problem.
pub(crate) fn load(paths: &Paths) -> RuleSet {
    load_from(&global_dir(paths), &project_dir(paths))
}

/// [`load`] from two folders.
pub(crate) fn load_from(global: &Path, project: &Path) -> RuleSet {
    load_given(global, project, &|_| None)
}

/// The text of each rule file of a folder as a session baselined it (issue 51: the rule folders
/// are policy sources like the config): `(file name, text)`, sorted by name.
pub(crate) type FolderText = Vec<(String, String)>;

/// [`load_from`], with a folder for which `given` answers read from that text instead of the disk
/// (`Some(empty)`: the folder was absent at the baseline).
pub(crate) fn load_given(global: &Path, project: &Path, given: &dyn Fn(&Path) -> Option<FolderText>) -> RuleSet {
    let mut set = RuleSet::default();
    for (tier, dir) in [(Tier::Global, global), (Tier::Project, project)] {
        let (files, folder) = match given(dir) {
            Some(texts) => given_folder(tier, dir, texts),
            None => read_folder(tier, dir),
        };
        set.files.extend(files);
        set.folders.push(folder);
    }
    let project: Vec<(String, PathBuf, bool)> = set
        .files
        .iter()
        .filter(|f| f.tier == Tier::Project)
        .map(|f| (f.name.clone(), f.path.clone(), matches!(&f.rule, Ok(r) if !r.enabled)))
        .collect();
    for f in set.files.iter_mut().filter(|f| f.tier == Tier::Global) {
        if let Some((_, by, off)) = project.iter().find(|(n, _, _)| *n == f.name) {
            f.state = if *off {
                State::SwitchedOff { by: by.clone() }
            } else {
                State::Shadowed { by: by.clone() }
            };
        }
    }
    set
}

fn read_folder(tier: Tier, dir: &Path) -> (Vec<RuleFile>, Folder) {
    let mut folder = Folder {
        tier,
        path: dir.to_path_buf(),
        exists: false,
        problem: None,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => return (Vec::new(), folder),
        Err(e) => {
            folder.exists = true;
            folder.problem = Some(format!("cannot list the folder: {e}"));
            return (Vec::new(), folder);
        }
    };
    folder.exists = true;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .collect();
    names.sort();
    if names.len() > MAX_FILES {
        folder.problem = Some(format!(
            "{} rule files, more than the {MAX_FILES} read from one folder: {} and the rest were not read",
            names.len(),
            names[MAX_FILES]
        ));
        names.truncate(MAX_FILES);
    }
    let files = names
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            let rule = read_rule(&path);
            let state = match &rule {
                Ok(r) if r.enabled => State::Active,
                Ok(_) => State::Disabled,
                Err(_) => State::Broken,
            };
            RuleFile {
                name,
                tier,
                path,
                rule,
                state,
            }
        })
        .collect();
    (files, folder)
}

/// A folder's rule files from their baselined text.
fn given_folder(tier: Tier, dir: &Path, texts: FolderText) -> (Vec<RuleFile>, Folder) {
    let folder = Folder {
        tier,
        path: dir.to_path_buf(),
        exists: !texts.is_empty(),
        problem: None,
    };
    let files = texts
        .into_iter()
        .map(|(name, text)| {
            let rule = parse::parse(&text);
            let state = match &rule {
                Ok(r) if r.enabled => State::Active,
                Ok(_) => State::Disabled,
                Err(_) => State::Broken,
            };
            RuleFile {
                path: dir.join(&name),
                name,
                tier,
                rule,
                state,
            }
        })
        .collect();
    (files, folder)
}

/// The rule files of `dir` as text, for a policy baseline: `None` when the folder does not
/// exist; a file that cannot be read is kept with its problem as its text (it then fails to
/// parse, as it does when loaded).
pub(crate) fn folder_text(dir: &Path) -> Option<FolderText> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .collect();
    names.sort();
    names.truncate(MAX_FILES);
    Some(
        names
            .into_iter()
            .map(|name| {
                let text = match fsread::read_capped_text(&dir.join(&name), fsread::RULE_CAP, Links::Refuse) {
                    Ok(Some(t)) => t,
                    Ok(None) => "[vanished while it was read]".into(),
                    Err(e) => format!("[unreadable: {}]", e.reason()),
                };
                (name, text)
            })
            .collect(),
    )
}

/// One rule file: a regular file (a symlink is refused: a rule is the operator's own file where it
/// is listed), at most [`fsread::RULE_CAP`], UTF-8, with a frontmatter that parses.
fn read_rule(path: &Path) -> Result<Rule, String> {
    match fsread::read_capped_text(path, fsread::RULE_CAP, Links::Refuse) {
        Ok(Some(text)) => parse::parse(&text),
        Ok(None) => Err("vanished while it was read".into()),
        Err(e) => Err(e.reason()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }

    const RULE_TEXT: &str = "---\non: commit\nrequire:\n  - command(cargo test) since session\notherwise: deny\n---\nRun the tests.\n";

    #[test]
    fn the_project_wins_by_file_name_and_can_switch_a_global_rule_off() {
        let d = tempfile::tempdir().unwrap();
        let (g, p) = (d.path().join("g"), d.path().join("p"));
        write(&g, "tests.md", RULE_TEXT);
        write(&g, "review.md", RULE_TEXT);
        write(&g, "lonely.md", RULE_TEXT);
        write(&p, "tests.md", &RULE_TEXT.replace("deny", "warn"));
        write(
            &p,
            "review.md",
            "---\nenabled: false\n---\nNot for this repository: no reviewers.\n",
        );
        write(&p, "notes.txt", "not a rule");
        let set = load_from(&g, &p);
        let state = |tier: Tier, name: &str| {
            set.files
                .iter()
                .find(|f| f.tier == tier && f.name == name)
                .map(|f| f.state.clone())
                .unwrap()
        };
        assert_eq!(state(Tier::Global, "tests.md"), State::Shadowed { by: p.join("tests.md") });
        assert_eq!(state(Tier::Global, "review.md"), State::SwitchedOff { by: p.join("review.md") });
        assert_eq!(state(Tier::Global, "lonely.md"), State::Active);
        assert_eq!(state(Tier::Project, "tests.md"), State::Active);
        assert_eq!(state(Tier::Project, "review.md"), State::Disabled);
        assert_eq!(set.files.len(), 5, "only .md files");
        let active: Vec<(&str, Tier, Verdict)> = set.active().iter().map(|(f, s)| (f.name.as_str(), f.tier, s.otherwise)).collect();
        assert_eq!(
            active,
            vec![
                ("lonely.md", Tier::Global, Verdict::Deny),
                ("tests.md", Tier::Project, Verdict::Warn)
            ]
        );
    }

    #[test]
    fn a_symlink_a_folder_and_an_oversized_file_are_named_errors() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("p");
        write(&p, "real.md", RULE_TEXT);
        std::os::unix::fs::symlink(p.join("real.md"), p.join("link.md")).unwrap();
        std::fs::create_dir_all(p.join("dir.md")).unwrap();
        let big = std::fs::File::create(p.join("big.md")).unwrap();
        big.set_len(10 * 1024 * 1024).unwrap();
        let set = load_from(&d.path().join("none"), &p);
        let err = |name: &str| set.files.iter().find(|f| f.name == name).and_then(RuleFile::error).unwrap();
        assert!(err("link.md").contains("symbolic link"), "{}", err("link.md"));
        assert!(err("dir.md").contains("folder"), "{}", err("dir.md"));
        assert!(err("big.md").contains("10485760 bytes"), "{}", err("big.md"));
        assert!(err("big.md").contains(&p.join("big.md").display().to_string()));
        assert_eq!(set.broken().count(), 3);
        assert_eq!(set.active().len(), 1);
        assert!(!set.folders[0].exists);
    }
}
