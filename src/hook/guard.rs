//! What the hook decides before and around recording: the floor (first, from the raw payload,
//! before any config is read), the edit a tool call is about to make, and the turning of an ask
//! into a deny where nobody can answer it.

use super::Provider;
use crate::decision::{Decision, Permission};
use crate::paths::Paths;
use crate::policy::floor::{self, Act, Context};
use serde_json::Value;
use std::path::PathBuf;

/// The prefix of an ask turned into a deny because the event cannot ask.
pub const NO_ESCALATION: &str = "Escalation unavailable on this provider — ";
/// The prefix of an ask turned into a deny because the permission mode answers no prompts.
pub const NO_OPERATOR: &str = "No operator is answering prompts in this permission mode — ";

const CLAUDE_READ: &[&str] = &["Read"];
const CLAUDE_WRITE: &[&str] = &["Write"];
const CLAUDE_EDIT: &[&str] = &["Edit", "MultiEdit", "NotebookEdit"];
const CURSOR_SHELL: &[&str] = &["Shell", "run_terminal_cmd", "Bash", "terminal"];
const CURSOR_READ: &[&str] = &["Read", "read_file", "ReadFile"];
const CURSOR_WRITE: &[&str] = &["Write", "write", "create_file", "WriteFile"];
const CURSOR_EDIT: &[&str] = &["Edit", "edit_file", "StrReplace", "search_replace", "MultiEdit", "ApplyPatch"];
const CURSOR_DELETE: &[&str] = &["Delete", "delete_file", "DeleteFile"];

fn s<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str).filter(|x| !x.is_empty())
}

fn path_of(input: Option<&Value>) -> Option<&str> {
    let i = input?;
    ["file_path", "notebook_path", "path", "target_file", "target_notebook"]
        .iter()
        .find_map(|k| s(i, k))
}

/// The acts an acting event is about to perform (empty for every other event).
pub fn acts(provider: Provider, v: &Value) -> Vec<Act<'_>> {
    let event = s(v, "hook_event_name").unwrap_or("");
    let tool = s(v, "tool_name").unwrap_or("");
    let input = v.get("tool_input");
    let mut out = Vec::new();
    match (provider, event) {
        (Provider::Claude, "PreToolUse") => {
            if tool == "Bash" {
                if let Some(c) = input.and_then(|i| s(i, "command")) {
                    out.push(Act::Shell(c));
                }
            } else if tool.starts_with("mcp__") {
                out.push(Act::Mcp { tool, input });
            } else if let Some(p) = path_of(input) {
                if CLAUDE_READ.contains(&tool) || tool == "Grep" {
                    out.push(Act::Read(p));
                } else if CLAUDE_WRITE.contains(&tool) {
                    out.push(Act::Write(p));
                } else if CLAUDE_EDIT.contains(&tool) {
                    out.push(Act::Edit(p));
                }
            }
        }
        (Provider::Cursor, "beforeShellExecution") => {
            if let Some(c) = s(v, "command") {
                out.push(Act::Shell(c));
            }
        }
        (Provider::Cursor, "beforeReadFile") => {
            if let Some(p) = s(v, "file_path") {
                out.push(Act::Read(p));
            }
        }
        (Provider::Cursor, "beforeMCPExecution") => out.push(Act::Mcp { tool, input }),
        (Provider::Cursor, "preToolUse") => {
            if CURSOR_SHELL.contains(&tool) {
                if let Some(c) = input.and_then(|i| s(i, "command")) {
                    out.push(Act::Shell(c));
                }
            } else if tool.starts_with("mcp__") || tool.starts_with("MCP:") {
                out.push(Act::Mcp { tool, input });
            } else if let Some(p) = path_of(input) {
                if CURSOR_READ.contains(&tool) {
                    out.push(Act::Read(p));
                } else if CURSOR_WRITE.contains(&tool) {
                    out.push(Act::Write(p));
                } else if CURSOR_EDIT.contains(&tool) {
                    out.push(Act::Edit(p));
                } else if CURSOR_DELETE.contains(&tool) {
                    out.push(Act::Delete(p));
                }
            }
        }
        _ => {}
    }
    out
}

/// Where relative paths in the payload are resolved: the command's working directory.
fn cwd(v: &Value) -> Option<PathBuf> {
    s(v, "cwd")
        .map(PathBuf::from)
        .or_else(|| {
            v.get("workspace_roots")
                .and_then(|r| r.get(0))
                .and_then(Value::as_str)
                .map(PathBuf::from)
        })
        .filter(|p| p.is_absolute())
}

/// The floor's context for this payload.
pub fn context(v: &Value, paths: &Paths) -> Context {
    let cwd = cwd(v)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| paths.root.clone());
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    Context::new(paths.root.clone(), cwd, home, paths.home.clone(), Context::system_temp())
}

/// The floor's decision on an acting event; `None` lets the rest of the policy decide.
pub fn floor(provider: Provider, v: &Value, paths: &Paths) -> Option<Decision> {
    let acts = acts(provider, v);
    if acts.is_empty() {
        return None;
    }
    let ctx = context(v, paths);
    acts.iter().find_map(|a| floor::evaluate(&ctx, a)).map(|f| f.decision())
}

/// The file an acting event is about to write (absolute), for the edit-collision claim.
pub fn edit_target(provider: Provider, v: &Value, paths: &Paths) -> Option<String> {
    let p = acts(provider, v).into_iter().find_map(|a| match a {
        Act::Write(p) | Act::Edit(p) | Act::Delete(p) => Some(p),
        _ => None,
    })?;
    Some(absolute(v, paths, p))
}

/// A file Cursor reports it edited (`afterFileEdit`): claimed, never asked about.
pub fn edited_file(provider: Provider, v: &Value, paths: &Paths) -> Option<String> {
    (provider == Provider::Cursor && s(v, "hook_event_name") == Some("afterFileEdit"))
        .then(|| s(v, "file_path"))
        .flatten()
        .map(|p| absolute(v, paths, p))
}

fn absolute(v: &Value, paths: &Paths, p: &str) -> String {
    let path = std::path::Path::new(p);
    let base = cwd(v).unwrap_or_else(|| paths.root.clone());
    floor::normalize(&if path.is_absolute() { path.to_path_buf() } else { base.join(path) })
        .display()
        .to_string()
}

/// Whether the provider can ask the operator on this event.
pub fn can_ask(provider: Provider, hook_event: &str) -> bool {
    match provider {
        Provider::Claude => hook_event == "PreToolUse",
        Provider::Cursor => matches!(hook_event, "beforeShellExecution" | "beforeMCPExecution"),
    }
}

/// An ask nobody can answer becomes a deny that says why; the stored decision is this one.
pub fn escalate(mut d: Decision, can_ask: bool, permission_mode: Option<&str>) -> Decision {
    if d.permission != Permission::Ask {
        return d;
    }
    let prefix = if !can_ask {
        NO_ESCALATION
    } else if matches!(permission_mode, Some("bypassPermissions" | "dontAsk")) {
        NO_OPERATOR
    } else {
        return d;
    };
    d.permission = Permission::Deny;
    d.reason = Some(format!("{prefix}{}", d.reason.unwrap_or_default()));
    d
}
