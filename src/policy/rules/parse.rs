//! A rule file: a frontmatter between two `---` lines, then the operator's text.
//!
//! ```markdown
//! ---
//! on: commit                                # pr-open | commit | push | pr-merge | stop | tool(<name>) | command(<pattern>)
//! require:
//!   - command(cargo test) since session     # subagent | command | gate | file, since HEAD or since session
//! otherwise: deny                           # deny | ask | follow-up | warn
//! ---
//! Run the tests before you commit.
//! ```
//!
//! The frontmatter is the small part of YAML a rule needs — `key: value`, a `require:` list of
//! `- item` lines (or `[a, b]`), `#` comments — read strictly: an unknown key, trigger, proof,
//! gate or verdict, a regular-expression character inside `command(…)` or a glob inside
//! `file(…)` is an error naming the line and what is wrong, never a guess.

use std::fmt;

/// What fires a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// Opening a non-draft pull request, or marking a draft ready.
    PrOpen,
    Commit,
    Push,
    PrMerge,
    /// The turn's stop, after the lint, test and docs gates.
    Stop,
    /// A tool call of exactly this name.
    Tool(String),
    /// A shell command containing these words.
    Command(Pattern),
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trigger::PrOpen => f.write_str("pr-open"),
            Trigger::Commit => f.write_str("commit"),
            Trigger::Push => f.write_str("push"),
            Trigger::PrMerge => f.write_str("pr-merge"),
            Trigger::Stop => f.write_str("stop"),
            Trigger::Tool(name) => write!(f, "tool({name})"),
            Trigger::Command(p) => write!(f, "command({p})"),
        }
    }
}

/// A `command(…)` pattern: plain words, matched in order as a contiguous run of a command's words;
/// a word with no `/` of its own also matches a path ending `/<word>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    pub words: Vec<String>,
}

/// Characters that would make a pattern read as a regular expression or a glob.
const REGEX_CHARS: &[char] = &['\\', '^', '$', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|'];

impl Pattern {
    pub(crate) fn parse(text: &str) -> Result<Pattern, String> {
        if let Some(c) = text.chars().find(|c| REGEX_CHARS.contains(c)) {
            return Err(format!(
                "`{c}` in command({text}) is a regular-expression character: a command pattern is plain words, matched in order"
            ));
        }
        let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            return Err("command() names no words".into());
        }
        Ok(Pattern { words })
    }

    /// Whether the pattern's words are a contiguous run of `words`, in order.
    pub(crate) fn matches(&self, words: &[String]) -> bool {
        let n = self.words.len();
        n <= words.len() && words.windows(n).any(|w| w.iter().zip(&self.words).all(|(a, p)| word_matches(p, a)))
    }

    /// A text every matching command contains (the first word).
    pub(crate) fn needle(&self) -> &str {
        self.words.first().map_or("", String::as_str)
    }
}

/// `p` is `a`, or names the file `a` is a path to (`build.sh` and `./scripts/build.sh`).
fn word_matches(p: &str, a: &str) -> bool {
    a == p || (!p.contains('/') && a.len() > p.len() && a.ends_with(p) && a[..a.len() - p.len()].ends_with('/'))
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words.join(" "))
    }
}

/// What a proof names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ProofKind {
    /// A subagent of this declared type finished.
    Subagent,
    /// A shell command containing the pattern ran and did not fail.
    Command,
    /// One of tlc's gates (lint, test, docs) passed.
    Gate,
    /// A write tool wrote a file matching the pattern.
    File,
}

impl ProofKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ProofKind::Subagent => "subagent",
            ProofKind::Command => "command",
            ProofKind::Gate => "gate",
            ProofKind::File => "file",
        }
    }
}

/// The only names a tlc gate reports.
pub(crate) const GATES: &[&str] = &["lint", "test", "docs"];

/// The window a proof must fall in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Since {
    /// Stamped with the HEAD the check reads now.
    Head,
    /// Observed in the same session.
    Session,
}

/// One `require:` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Requirement {
    pub kind: ProofKind,
    /// The text between the parentheses.
    pub arg: String,
    /// The parsed pattern of a `command(…)`.
    pub pattern: Option<Pattern>,
    pub since: Since,
}

impl Requirement {
    /// Whether an observed value (a command line, a subagent type, a gate name, a path) satisfies
    /// the proof's name.
    pub(crate) fn matches(&self, value: &str) -> bool {
        match self.kind {
            ProofKind::Subagent | ProofKind::Gate => value == self.arg,
            // What ran, as `ran::executed` stored it; the operator's PATH says which program a
            // bare pattern word names.
            ProofKind::Command => self
                .pattern
                .as_ref()
                .is_some_and(|p| super::ran::proves(&p.words, value, std::env::var_os("PATH").as_deref())),
            ProofKind::File => file_matches(&self.arg, value),
        }
    }

    /// A text every matching value contains, for the store to look by.
    pub(crate) fn needle(&self) -> &str {
        match (&self.pattern, self.kind) {
            (Some(p), _) => p.needle(),
            (None, ProofKind::File) => self.arg.trim_start_matches('*').trim_end_matches('/'),
            _ => &self.arg,
        }
    }
}

/// `file(<pattern>)`: an exact path, `*<suffix>` (the path's end) or `<dir>/` (a prefix).
fn file_matches(pattern: &str, path: &str) -> bool {
    let path = path.strip_prefix("./").unwrap_or(path);
    if let Some(suffix) = pattern.strip_prefix('*') {
        path.ends_with(suffix)
    } else if pattern.ends_with('/') {
        path.starts_with(pattern)
    } else {
        path == pattern
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let since = match self.since {
            Since::Head => "HEAD",
            Since::Session => "session",
        };
        write!(f, "{}({}) since {since}", self.kind.as_str(), self.arg)
    }
}

/// What happens when a fired rule's proofs are missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) enum Verdict {
    #[serde(rename = "deny")]
    Deny,
    /// Asks under `paired`, refuses otherwise; refuses a stop.
    #[serde(rename = "ask")]
    Ask,
    /// Allows an action; refuses a stop, framed as the next action.
    #[serde(rename = "follow-up")]
    FollowUp,
    /// Allows, with the rule's text.
    #[serde(rename = "warn")]
    Warn,
}

impl Verdict {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Deny => "deny",
            Verdict::Ask => "ask",
            Verdict::FollowUp => "follow-up",
            Verdict::Warn => "warn",
        }
    }
}

/// What an enabled rule enforces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spec {
    pub on: Trigger,
    /// Every item must hold (a conjunction).
    pub require: Vec<Requirement>,
    pub otherwise: Verdict,
}

/// A parsed rule file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    /// `enabled: false` enforces nothing (and, in a project, switches the global rule of the same
    /// file name off).
    pub enabled: bool,
    /// Present whenever the rule is enabled; a disabled rule may leave it out.
    pub spec: Option<Spec>,
    /// The operator's text after the frontmatter, injected as it is written when the rule fires
    /// (only the blank lines around it dropped).
    pub body: String,
}

const TRIGGERS: &str = "pr-open, commit, push, pr-merge, stop, tool(<name>) or command(<pattern>)";

/// Parses a rule file's text.
pub(crate) fn parse(text: &str) -> Result<Rule, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("no frontmatter: a rule file begins with a line `---`, then on:, require: and otherwise:, then `---`".into());
    }
    let mut front: Vec<(usize, &str)> = Vec::new();
    let mut closed = false;
    let mut consumed = 1;
    for (i, line) in lines.by_ref().enumerate() {
        consumed += 1;
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        front.push((i + 2, line));
    }
    if !closed {
        return Err("the frontmatter is not closed: no second `---` line".into());
    }
    let body = text.split('\n').skip(consumed).collect::<Vec<_>>().join("\n");
    let body = body.trim_matches(|c| c == '\n' || c == '\r').trim_end().to_string();

    let mut on: Option<(usize, String)> = None;
    let mut otherwise: Option<(usize, String)> = None;
    let mut enabled: Option<(usize, String)> = None;
    let mut require: Option<Vec<(usize, String)>> = None;
    let mut in_require = false;
    for (n, raw) in front {
        let line = strip_comment(raw);
        if line.trim().is_empty() {
            continue;
        }
        let item = line.trim_start().strip_prefix('-').filter(|_| line.starts_with([' ', '\t', '-']));
        if let Some(item) = item {
            if !in_require {
                return Err(format!("line {n}: a list item outside require:"));
            }
            let item = unquote(item.trim());
            if !item.is_empty() {
                require.get_or_insert_with(Vec::new).push((n, item.to_string()));
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return Err(format!("line {n}: an indented line that is not a `- ` list item"));
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(format!("line {n}: `{}` is not `key: value`", line.trim()));
        };
        let (key, value) = (key.trim(), unquote(value.trim()));
        in_require = false;
        let slot = match key {
            "on" => &mut on,
            "otherwise" => &mut otherwise,
            "enabled" => &mut enabled,
            "require" => {
                if require.is_some() {
                    return Err(format!("line {n}: require: given twice"));
                }
                let items = require.insert(Vec::new());
                in_require = true;
                if let Some(list) = value.strip_prefix('[') {
                    let Some(list) = list.strip_suffix(']') else {
                        return Err(format!("line {n}: require: [ is not closed"));
                    };
                    items.extend(split_list(list).into_iter().map(|i| (n, unquote(i.trim()).to_string())));
                    in_require = false;
                } else if !value.is_empty() {
                    items.push((n, value.to_string()));
                    in_require = false;
                }
                continue;
            }
            other => {
                return Err(format!(
                    "line {n}: unknown key `{other}`: a rule's frontmatter has on, require, otherwise and enabled"
                ))
            }
        };
        if slot.is_some() {
            return Err(format!("line {n}: {key}: given twice"));
        }
        *slot = Some((n, value.to_string()));
    }

    let enabled = match enabled {
        None => true,
        Some((_, v)) if v == "true" => true,
        Some((_, v)) if v == "false" => false,
        Some((n, v)) => return Err(format!("line {n}: enabled: `{v}` is not true or false")),
    };
    let on = on
        .filter(|(_, v)| !v.is_empty())
        .map(|(n, v)| parse_trigger(&v).map_err(|e| format!("line {n}: {e}")))
        .transpose()?;
    let otherwise = otherwise
        .filter(|(_, v)| !v.is_empty())
        .map(|(n, v)| parse_verdict(&v).map_err(|e| format!("line {n}: {e}")))
        .transpose()?;
    let require = require
        .unwrap_or_default()
        .into_iter()
        .map(|(n, v)| parse_requirement(&v).map_err(|e| format!("line {n}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let spec = match (on, otherwise, require.is_empty()) {
        (Some(on), Some(otherwise), false) => Some(Spec { on, require, otherwise }),
        _ if !enabled => None,
        (None, _, _) => return Err(format!("no `on:`: a rule needs a trigger ({TRIGGERS})")),
        (_, None, _) => return Err("no `otherwise:`: a rule needs a verdict (deny, ask, follow-up or warn)".into()),
        (_, _, true) => {
            return Err("`require:` names no proof, so the rule could never fire: list subagent(…), command(…), gate(…) or file(…) items, each since HEAD or since session".into())
        }
    };
    Ok(Rule { enabled, spec, body })
}

/// The line without a `#` comment (one at the start or after a space, outside parentheses).
fn strip_comment(line: &str) -> &str {
    let mut depth = 0i32;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '#' if depth <= 0 && prev.is_whitespace() => return &line[..i],
            _ => {}
        }
        prev = c;
    }
    line
}

fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

/// A flow list's items, split at commas outside parentheses.
fn split_list(list: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth <= 0 => {
                out.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&list[start..]);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// `name(arg)` split, or `None` when the text is not of that shape.
fn call(text: &str) -> Option<(&str, &str)> {
    let (name, rest) = text.split_once('(')?;
    let arg = rest.strip_suffix(')')?;
    Some((name.trim(), arg.trim()))
}

fn parse_trigger(v: &str) -> Result<Trigger, String> {
    Ok(match v {
        "pr-open" => Trigger::PrOpen,
        "commit" => Trigger::Commit,
        "push" => Trigger::Push,
        "pr-merge" => Trigger::PrMerge,
        "stop" => Trigger::Stop,
        _ => match call(v) {
            Some(("tool", name)) if !name.is_empty() && !name.contains(char::is_whitespace) => Trigger::Tool(name.to_string()),
            Some(("tool", name)) => return Err(format!("tool({name}) names no single tool")),
            Some(("command", pattern)) => Trigger::Command(Pattern::parse(pattern)?),
            _ => return Err(format!("unknown trigger `on: {v}`: a rule fires on {TRIGGERS}")),
        },
    })
}

fn parse_verdict(v: &str) -> Result<Verdict, String> {
    match v {
        "deny" => Ok(Verdict::Deny),
        "ask" => Ok(Verdict::Ask),
        "follow-up" => Ok(Verdict::FollowUp),
        "warn" => Ok(Verdict::Warn),
        _ => Err(format!("unknown verdict `otherwise: {v}`: deny, ask, follow-up or warn")),
    }
}

fn parse_requirement(v: &str) -> Result<Requirement, String> {
    let Some((proof, since)) = v.rsplit_once(" since ") else {
        return Err(format!("`{v}` says no window: end it with `since HEAD` or `since session`"));
    };
    let since = match since.trim() {
        "HEAD" | "head" => Since::Head,
        "session" => Since::Session,
        other => return Err(format!("`since {other}` in `{v}`: a proof counts since HEAD or since session")),
    };
    let proof = proof.trim();
    let Some((kind, arg)) = call(proof) else {
        return Err(format!(
            "unknown proof `{proof}`: a proof is subagent(<type>), command(<pattern>), gate(<name>) or file(<pattern>)"
        ));
    };
    let (kind, pattern) = match kind {
        "subagent" if !arg.is_empty() => (ProofKind::Subagent, None),
        "command" => (ProofKind::Command, Some(Pattern::parse(arg)?)),
        "gate" if GATES.contains(&arg) => (ProofKind::Gate, None),
        "gate" => return Err(format!("gate({arg}): tlc's gates are lint, test and docs, and only a pass counts")),
        "file" => {
            let body = arg.strip_prefix('*').unwrap_or(arg);
            if body.is_empty() || body.contains(['*', '?', '[', ']', '{', '}']) {
                return Err(format!(
                    "file({arg}): a file proof is an exact path, `*<suffix>` or `<dir>/`, not a glob"
                ));
            }
            (ProofKind::File, None)
        }
        "subagent" => return Err("subagent() names no type".into()),
        other => {
            return Err(format!(
                "unknown proof `{other}(…)`: a proof is subagent(<type>), command(<pattern>), gate(<name>) or file(<pattern>)"
            ))
        }
    };
    let arg = match kind {
        ProofKind::File => arg.strip_prefix("./").unwrap_or(arg).to_string(),
        ProofKind::Command => pattern.as_ref().map(ToString::to_string).unwrap_or_default(),
        _ => arg.to_string(),
    };
    Ok(Requirement { kind, arg, pattern, since })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_example_parses() {
        let r = parse(
            "---\non: pr-open                            # pr-open | commit | push | pr-merge | stop | tool(<name>) | command(<pattern>)\nrequire:\n  - subagent(the-jury) since HEAD      # subagent | command | gate | file, since HEAD or since session\notherwise: deny                        # deny | ask | follow-up | warn\n---\n\nConvene the jury on this branch. Checklist: docs/review-checklist.md\n",
        )
        .unwrap();
        let spec = r.spec.unwrap();
        assert_eq!(spec.on, Trigger::PrOpen);
        assert_eq!(spec.otherwise, Verdict::Deny);
        assert_eq!(spec.require.len(), 1);
        assert_eq!(spec.require[0].to_string(), "subagent(the-jury) since HEAD");
        assert_eq!(r.body, "Convene the jury on this branch. Checklist: docs/review-checklist.md");
        assert!(r.enabled);
    }

    #[test]
    fn every_shape_of_trigger_and_proof() {
        let r = parse("---\non: command(./scripts/release.sh)\nrequire: [command(cargo test) since session, gate(test) since HEAD, file(*.md) since HEAD, file(docs/) since session]\notherwise: follow-up\n---\n").unwrap();
        let spec = r.spec.unwrap();
        assert_eq!(spec.on.to_string(), "command(./scripts/release.sh)");
        assert_eq!(spec.require.len(), 4);
        assert_eq!(spec.otherwise, Verdict::FollowUp);
        assert_eq!(r.body, "");
        let tool = parse("---\non: tool(mcp__github__merge_pull_request)\nrequire:\n - \"gate(lint) since HEAD\"\notherwise: ask\n---\nx")
            .unwrap();
        assert_eq!(tool.spec.unwrap().on, Trigger::Tool("mcp__github__merge_pull_request".into()));
        let off = parse("---\nenabled: false\n---\nNo reviewers here.\n").unwrap();
        assert!(!off.enabled && off.spec.is_none());
        assert_eq!(off.body, "No reviewers here.");
    }

    #[test]
    fn what_is_wrong_is_named() {
        let cases = [
            ("no frontmatter", "on: commit\n"),
            ("not closed", "---\non: commit\n"),
            (
                "line 2: unknown trigger `on: pr-close`",
                "---\non: pr-close\nrequire:\n  - gate(test) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "line 4: unknown proof `review(…)`",
                "---\non: commit\nrequire:\n  - review(x) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "`^` in command(^cargo test$) is a regular-expression character",
                "---\non: commit\nrequire:\n  - command(^cargo test$) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "`*` in command(cargo .*) is a regular-expression character",
                "---\non: command(cargo .*)\nrequire:\n  - gate(test) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "gate(build): tlc's gates are lint, test and docs",
                "---\non: commit\nrequire:\n  - gate(build) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "file(src/**/*.rs): a file proof is an exact path",
                "---\non: commit\nrequire:\n  - file(src/**/*.rs) since HEAD\notherwise: deny\n---\n",
            ),
            (
                "says no window",
                "---\non: commit\nrequire:\n  - gate(test)\notherwise: deny\n---\n",
            ),
            (
                "unknown verdict `otherwise: block`",
                "---\non: commit\nrequire:\n  - gate(test) since HEAD\notherwise: block\n---\n",
            ),
            ("unknown key `when`", "---\nwhen: commit\n---\n"),
            ("no `on:`", "---\nrequire:\n  - gate(test) since HEAD\notherwise: deny\n---\n"),
            ("`require:` names no proof", "---\non: commit\notherwise: deny\n---\n"),
            ("enabled: `maybe`", "---\nenabled: maybe\n---\n"),
            ("on: given twice", "---\non: commit\non: push\n---\n"),
        ];
        for (want, text) in cases {
            let e = parse(text).expect_err(text);
            assert!(e.contains(want), "{want:?} not in {e:?}");
        }
    }

    #[test]
    fn command_patterns_match_words_in_order_and_paths_by_file_name() {
        let p = Pattern::parse("gh pr create").unwrap();
        let w = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert!(p.matches(&w("gh pr create --fill")));
        assert!(!p.matches(&w("gh api pulls")));
        assert!(!p.matches(&w("gh pr view create")));
        let b = Pattern::parse("build.sh").unwrap();
        assert!(b.matches(&w("./scripts/build.sh --release")));
        assert!(b.matches(&w("/opt/tools/build.sh")));
        assert!(!b.matches(&w("./mybuild.sh")));
        assert!(!Pattern::parse("scripts/build.sh").unwrap().matches(&w("./scripts/build.sh")));
    }

    #[test]
    fn file_proofs_have_three_shapes() {
        assert!(file_matches("src/lib.rs", "src/lib.rs"));
        assert!(!file_matches("src/lib.rs", "src/lib.rs.bak"));
        assert!(file_matches("*.md", "docs/policy.md"));
        assert!(file_matches("docs/", "docs/policy.md"));
        assert!(!file_matches("docs/", "src/docs.rs"));
    }
}
