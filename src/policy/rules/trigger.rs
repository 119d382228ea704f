//! Which triggers an acting event fires. Read from the shell engine's parsed simple commands
//! (through wrappers, `sh -c` strings and substitutions; never a substring of the line), so a
//! `git commit` inside a quoted argument or a `grep` fires nothing:
//!
//! - `commit`: `git commit`; `push`: `git push`, or `gh api` `POST`/`PATCH` to a path touching
//!   `git/refs`;
//! - `pr-open`: `gh pr create` unless `--draft`, `gh pr ready` unless `--undo`, `gh api` `POST` to
//!   a path ending in `pulls` (unless it sets `draft=true`), and the GitHub MCP server's
//!   `create_pull_request` (unless `draft` is true);
//! - `pr-merge`: `gh pr merge`, and `gh api` `PUT` to `pulls/<n>/merge`;
//! - `tool(<name>)`: a call of exactly that tool; `command(<pattern>)`: a shell command whose
//!   words hold the pattern.
//!
//! The `gh` and MCP forms are scoped to the checkout's own remote: a call naming another
//! repository (`gh api repos/other/x/pulls`, `gh pr create -R other/x`, an MCP call's
//! `owner`/`repo`) fires nothing here, since this project's proofs say nothing about it. The
//! remote is the `origin` URL of `.git/config`, read only when such a call needs it.

use super::parse::Trigger;
use crate::policy::shell::invocation::invocation;
use crate::policy::shell::parse::Script;
use serde_json::Value;
use std::cell::OnceCell;
use std::path::Path;

/// What one acting event does, as the triggers see it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Act<'a> {
    /// The tool's name as the provider gives it (`Bash`, `Write`, `mcp__github__create_pull_request`;
    /// Cursor's shell events: `shell`).
    pub tool: Option<&'a str>,
    /// A shell act's command line, parsed.
    pub script: Option<&'a Script>,
    /// The call is an MCP server's tool.
    pub mcp: bool,
    /// The tool's input, as the payload gave it (redacted).
    pub input: Option<&'a Value>,
}

/// The checkout's own repository (`owner`, `repo`), from the `origin` remote, read at most once.
pub(crate) struct OwnRepo<'a> {
    root: &'a Path,
    cell: OnceCell<Option<(String, String)>>,
}

impl<'a> OwnRepo<'a> {
    pub(crate) fn new(root: &'a Path) -> OwnRepo<'a> {
        OwnRepo {
            root,
            cell: OnceCell::new(),
        }
    }

    /// The checkout whose remote is `url` as baselined with the session's policy (`None`: it had
    /// none), whatever `origin` says now.
    pub(crate) fn baselined(root: &'a Path, url: Option<&str>) -> OwnRepo<'a> {
        let cell = OnceCell::new();
        let _ = cell.set(url.and_then(owner_repo));
        OwnRepo { root, cell }
    }

    /// A repository known in advance (tests).
    #[cfg(test)]
    pub(crate) fn known(root: &'a Path, owner: &str, repo: &str) -> OwnRepo<'a> {
        let cell = OnceCell::new();
        let _ = cell.set(Some((owner.to_string(), repo.to_string())));
        OwnRepo { root, cell }
    }

    fn get(&self) -> Option<&(String, String)> {
        self.cell
            .get_or_init(|| crate::project::origin_url(self.root).ok().flatten().and_then(|u| owner_repo(&u)))
            .as_ref()
    }

    /// Whether `owner`/`repo` name this checkout's remote. `gh`'s own placeholders
    /// (`{owner}`, `:repo`) stand for it; with no remote, nothing else is this checkout's.
    fn is(&self, owner: &str, repo: &str) -> bool {
        let placeholder = |s: &str, name: &str| s == format!("{{{name}}}") || s == format!(":{name}");
        if placeholder(owner, "owner") && placeholder(repo, "repo") {
            return true;
        }
        self.get()
            .is_some_and(|(o, r)| o.eq_ignore_ascii_case(owner) && r.eq_ignore_ascii_case(repo))
    }

    /// `[HOST/]OWNER/REPO` as `gh -R` takes it.
    fn is_named(&self, spec: &str) -> bool {
        let parts: Vec<&str> = spec.trim_end_matches('/').rsplit('/').take(2).collect();
        match parts.as_slice() {
            [repo, owner] => self.is(owner, repo.strip_suffix(".git").unwrap_or(repo)),
            _ => false,
        }
    }
}

/// The last two path segments of a remote URL (`git@host:owner/repo.git`,
/// `https://host/owner/repo`), whatever the host: a GitHub Enterprise remote scopes as well.
pub(crate) fn owner_repo(url: &str) -> Option<(String, String)> {
    let url = url.trim();
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map(|(_, p)| p)?,
        None => url.rsplit_once(':').map(|(_, p)| p)?,
    };
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let mut segs = path.rsplit('/');
    let repo = segs.next().filter(|s| !s.is_empty())?;
    let owner = segs.next().filter(|s| !s.is_empty())?;
    Some((owner.to_string(), repo.to_string()))
}

/// The triggers one act fires.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Fired {
    pub commit: bool,
    pub push: bool,
    pub pr_open: bool,
    pub pr_merge: bool,
    pub tool: Option<String>,
    /// The words of each simple command a shell act runs.
    pub commands: Vec<Vec<String>>,
}

impl Fired {
    pub(crate) fn fires(&self, t: &Trigger) -> bool {
        match t {
            Trigger::Commit => self.commit,
            Trigger::Push => self.push,
            Trigger::PrOpen => self.pr_open,
            Trigger::PrMerge => self.pr_merge,
            Trigger::Stop => false,
            Trigger::Tool(name) => self.tool.as_deref() == Some(name.as_str()),
            Trigger::Command(p) => self.commands.iter().any(|w| p.matches(w)),
        }
    }
}

/// The triggers `act` fires in the checkout whose remote `own` reads.
pub(crate) fn fired(act: &Act<'_>, own: &OwnRepo<'_>) -> Fired {
    let mut f = Fired {
        tool: act.tool.map(str::to_string),
        ..Fired::default()
    };
    if let Some(script) = act.script {
        shell(script, own, &mut f);
    }
    if act.mcp || act.tool.is_some_and(|t| t.starts_with("mcp__") || t.starts_with("MCP:")) {
        if let Some(tool) = act.tool {
            mcp(tool, act.input, own, &mut f);
        }
    }
    f
}

fn shell(script: &Script, own: &OwnRepo<'_>, f: &mut Fired) {
    for (s, i) in crate::policy::shell::walk::Commands::of(script).iter() {
        let cmd = &s.commands[i];
        f.commands.push(cmd.words.iter().map(|w| w.text()).collect());
        let inv = invocation(cmd);
        if inv.lookup_only {
            continue;
        }
        let args: Vec<String> = inv.args.iter().map(|w| w.text()).collect();
        match inv.program.as_deref() {
            Some("git") => match crate::policy::floor::git_subcommand(&args) {
                Some(("commit", _)) => f.commit = true,
                Some(("push", _)) => f.push = true,
                _ => {}
            },
            Some("gh") => {
                let env_repo = cmd.assigns.iter().find(|(k, _)| k == "GH_REPO").map(|(_, w)| w.text());
                gh(&args, env_repo.as_deref(), own, f);
            }
            _ => {}
        }
    }
}

/// `gh pr create|ready|merge` and `gh api`.
fn gh(args: &[String], env_repo: Option<&str>, own: &OwnRepo<'_>, f: &mut Fired) {
    let mut repo = env_repo.map(str::to_string);
    let mut words = Vec::new();
    let mut flags = Vec::new();
    let mut it = args.iter().enumerate();
    while let Some((i, a)) = it.next() {
        if words.first().is_some_and(|w| w == "api") {
            return gh_api(&args[i..], own, f);
        }
        if a == "-R" || a == "--repo" {
            repo = it.next().map(|(_, v)| v.clone());
        } else if let Some(v) = a.strip_prefix("--repo=") {
            repo = Some(v.to_string());
        } else if let Some(v) = a.strip_prefix("-R").filter(|v| !v.is_empty() && !a.starts_with("--")) {
            repo = Some(v.to_string());
        } else if a.starts_with('-') {
            flags.push(a.as_str());
        } else if words.len() < 2 {
            words.push(a.clone());
        }
    }
    if words.first().is_some_and(|w| w == "api") {
        return gh_api(&[], own, f);
    }
    if words.first().map(String::as_str) != Some("pr") || repo.as_deref().is_some_and(|r| !own.is_named(r)) {
        return;
    }
    match words.get(1).map(String::as_str) {
        Some("create") => {
            let draft = flags.iter().rev().find_map(|a| match *a {
                "--draft" | "--draft=true" => Some(true),
                "--draft=false" => Some(false),
                // A cluster of gh pr create's boolean short flags (-d draft, -f fill, -w web).
                s if s.len() > 1 && !s.starts_with("--") && s[1..].chars().all(|c| "dfw".contains(c)) && s.contains('d') => Some(true),
                _ => None,
            });
            f.pr_open |= draft != Some(true);
        }
        Some("ready") => f.pr_open |= !flags.contains(&"--undo"),
        Some("merge") => f.pr_merge = true,
        _ => {}
    }
}

/// `gh api` flags that take a value (the next word, or after `=`).
const GH_API_VALUE_FLAGS: &[&str] = &[
    "-H",
    "--header",
    "-p",
    "--preview",
    "-q",
    "--jq",
    "-t",
    "--template",
    "--cache",
    "--hostname",
];

/// `gh api <endpoint>`: the method (`-X`, else `POST` when a field or `--input` is given, else
/// `GET`), the endpoint, and whether a field says `draft=true`.
fn gh_api(args: &[String], own: &OwnRepo<'_>, f: &mut Fired) {
    let (mut method, mut body, mut draft, mut endpoint) = (None::<String>, false, false, None::<&str>);
    let mut it = args.iter();
    let mut field = |v: &str, draft: &mut bool| {
        body = true;
        if let Some(x) = v.strip_prefix("draft=") {
            *draft = x == "true";
        }
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "-X" | "--method" => method = it.next().cloned(),
            "-f" | "-F" | "--field" | "--raw-field" => {
                if let Some(v) = it.next() {
                    field(v, &mut draft);
                }
            }
            "--input" => {
                field("", &mut draft);
                it.next();
            }
            flag if GH_API_VALUE_FLAGS.contains(&flag) => {
                it.next();
            }
            a if a.starts_with("--method=") => method = Some(a["--method=".len()..].to_string()),
            a if a.starts_with("-X") => method = Some(a[2..].to_string()),
            a if a.starts_with("--field=") || a.starts_with("--raw-field=") => field(a.split_once('=').map_or("", |(_, v)| v), &mut draft),
            a if a.starts_with("--input=") => field("", &mut draft),
            a if (a.starts_with("-f") || a.starts_with("-F")) && a.len() > 2 => field(&a[2..], &mut draft),
            a if a.starts_with('-') => {}
            a if endpoint.is_none() => endpoint = Some(a),
            _ => {}
        }
    }
    let Some((owner, repo, rest)) = endpoint.and_then(repo_path) else {
        return;
    };
    if !own.is(owner, repo) {
        return;
    }
    let method = method.map_or(if body { "POST" } else { "GET" }.to_string(), |m| m.to_ascii_uppercase());
    match (method.as_str(), rest.as_slice()) {
        ("POST", ["pulls"]) => f.pr_open |= !draft,
        ("POST" | "PATCH", ["git", "refs", ..]) => f.push = true,
        ("PUT", ["pulls", _, "merge"]) => f.pr_merge = true,
        _ => {}
    }
}

/// `repos/<owner>/<repo>/<rest…>` of an API path (`/repos/…`, a full `https://…` URL, a query
/// string ignored).
fn repo_path(endpoint: &str) -> Option<(&str, &str, Vec<&str>)> {
    let path = match endpoint.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, p)| p),
        None => endpoint,
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let path = path
        .strip_prefix("api/v3/")
        .or_else(|| path.strip_prefix("/api/v3/"))
        .unwrap_or(path);
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        ["repos", owner, repo, rest @ ..] => Some((*owner, *repo, rest.to_vec())),
        _ => None,
    }
}

/// The GitHub MCP server's `create_pull_request`: `mcp__<server>__create_pull_request` (Claude
/// Code), bare or host-prefixed (Cursor). Only that evidenced tool name: another server's tool
/// that opens a pull request is not recognised.
fn mcp(tool: &str, input: Option<&Value>, own: &OwnRepo<'_>, f: &mut Fired) {
    let name = tool.rsplit("__").next().unwrap_or(tool);
    let name = name.rsplit([':', '/', '.', '-']).next().unwrap_or(name);
    if name != "create_pull_request" {
        return;
    }
    let parsed;
    let input = match input {
        Some(Value::String(text)) => {
            parsed = serde_json::from_str::<Value>(text).ok();
            parsed.as_ref()
        }
        other => other,
    };
    let field = |k: &str| input.and_then(|i| i.get(k));
    if field("draft").is_some_and(|d| d == &Value::Bool(true) || d == "true") {
        return;
    }
    if let (Some(owner), Some(repo)) = (field("owner").and_then(Value::as_str), field("repo").and_then(Value::as_str)) {
        if !own.is(owner, repo) {
            return;
        }
    }
    f.pr_open = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fired_by(cmd: &str) -> Fired {
        let root = Path::new("/nowhere");
        let own = OwnRepo::known(root, "acme", "widget");
        let script = crate::policy::shell::parse(cmd).unwrap();
        fired(
            &Act {
                tool: Some("Bash"),
                script: Some(&script),
                ..Act::default()
            },
            &own,
        )
    }

    #[test]
    fn commits_and_pushes_come_from_the_parsed_commands() {
        for cmd in [
            "git commit -m x",
            "git -C sub -c user.name=x commit -am 'y'",
            "cargo fmt && git commit -m x",
            "sh -c 'git commit -m x'",
            "env FOO=1 git commit",
        ] {
            assert!(fired_by(cmd).commit, "{cmd}");
        }
        for cmd in [
            "echo 'git commit'",
            "grep -r 'git commit' docs",
            "git log --grep commit",
            "git status",
        ] {
            assert!(!fired_by(cmd).commit, "{cmd}");
        }
        assert!(fired_by("git push origin HEAD").push);
        assert!(!fired_by("git pull").push);
    }

    #[test]
    fn pull_requests_open_unless_draft_and_only_on_the_own_remote() {
        assert!(fired_by("gh pr create --fill").pr_open);
        assert!(!fired_by("gh pr create --draft --fill").pr_open);
        assert!(!fired_by("gh pr create -d -t x").pr_open);
        assert!(!fired_by("gh pr create -fd").pr_open);
        assert!(fired_by("gh pr create --draft=false").pr_open);
        assert!(
            fired_by("gh pr create -t done").pr_open,
            "-t takes a value: `done` is no draft flag"
        );
        assert!(fired_by("gh pr ready 12").pr_open);
        assert!(!fired_by("gh pr ready 12 --undo").pr_open);
        assert!(!fired_by("gh pr create -R someone/else --fill").pr_open);
        assert!(fired_by("gh pr create --repo acme/widget --fill").pr_open);
        assert!(!fired_by("GH_REPO=other/x gh pr create --fill").pr_open);
        assert!(fired_by("gh pr merge 3 --squash").pr_merge);
        assert!(!fired_by("gh pr view 3").pr_open);
    }

    #[test]
    fn gh_api_rest_forms_are_read_for_the_own_remote_only() {
        assert!(fired_by("gh api repos/acme/widget/pulls -X POST -f title=x -f head=b -f base=main").pr_open);
        assert!(
            fired_by("gh api repos/acme/widget/pulls -f title=x").pr_open,
            "a field makes it a POST"
        );
        assert!(fired_by("gh api --method=post /repos/{owner}/{repo}/pulls").pr_open);
        assert!(!fired_by("gh api repos/acme/widget/pulls").pr_open, "a GET lists");
        assert!(!fired_by("gh api repos/acme/widget/pulls -X POST -F draft=true").pr_open);
        assert!(!fired_by("gh api repos/someone-else/x/pulls -X POST").pr_open);
        assert!(fired_by("gh api -X PATCH repos/acme/widget/git/refs/heads/main -f sha=abc").push);
        assert!(fired_by("gh api repos/acme/widget/git/refs -f ref=refs/heads/x -f sha=abc").push);
        assert!(!fired_by("gh api repos/acme/widget/git/refs/heads/main").push);
        assert!(fired_by("gh api -X PUT repos/acme/widget/pulls/7/merge").pr_merge);
        assert!(!fired_by("gh api -X PUT repos/other/widget/pulls/7/merge").pr_merge);
        assert!(fired_by("gh api -XPUT https://api.github.com/repos/acme/widget/pulls/7/merge").pr_merge);
    }

    #[test]
    fn the_github_mcp_create_pull_request_opens_one() {
        let root = Path::new("/nowhere");
        let own = OwnRepo::known(root, "acme", "widget");
        let call = |tool: &str, input: Value| {
            fired(
                &Act {
                    tool: Some(tool),
                    mcp: true,
                    input: Some(&input),
                    ..Act::default()
                },
                &own,
            )
            .pr_open
        };
        let ours = json!({"owner": "acme", "repo": "widget", "title": "x", "head": "b", "base": "main"});
        assert!(call("mcp__github__create_pull_request", ours.clone()));
        assert!(call("create_pull_request", ours.clone()));
        assert!(call("MCP:create_pull_request", ours.clone()));
        assert!(!call("mcp__github__create_pull_request", json!({"owner": "x", "repo": "y"})));
        assert!(!call(
            "mcp__github__create_pull_request",
            json!({"owner": "acme", "repo": "widget", "draft": true})
        ));
        assert!(!call("mcp__github__list_pull_requests", ours));
    }

    #[test]
    fn a_remote_url_names_its_owner_and_repository() {
        let p = |u: &str| owner_repo(u).map(|(o, r)| format!("{o}/{r}"));
        assert_eq!(p("git@github.com:acme/widget.git").as_deref(), Some("acme/widget"));
        assert_eq!(p("https://github.example.com/acme/widget").as_deref(), Some("acme/widget"));
        assert_eq!(p("ssh://git@host:22/acme/widget.git/").as_deref(), Some("acme/widget"));
        assert_eq!(p("/srv/git/widget.git"), None);
    }
}
