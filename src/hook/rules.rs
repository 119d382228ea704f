//! What a payload means for operator rules (`rules.enabled`; `policy::rules`), read only with the
//! switch on: the proof it is, if any — a shell command that ran and did not fail, a subagent of
//! a declared type that finished, a file a write tool wrote — and, on an acting event, the tool's
//! input (an MCP call's `owner`, `repo` and `draft`).
//!
//! A failure is never a proof: a provider's failure event (Claude Code's PostToolUseFailure,
//! Cursor's postToolUseFailure) maps to no tool result here, and a result that says it was
//! interrupted or exited non-zero counts as failed.

use super::mapped::{str_field, Mapped, Observed, RuleFacts, Subject};
use super::provider::Provider;
use crate::obs::Kind;
use crate::policy::rules::ProofKind;
use serde_json::Value;
use std::path::Path;

/// The rule facts of `v` (as redacted: a command is kept the way the record keeps it). Only an
/// MCP call's input is kept: no trigger reads another tool's (a `Write`'s may be megabytes).
pub(crate) fn facts(provider: &dyn Provider, v: &Value, mapped: &Mapped) -> RuleFacts {
    let mcp = mapped.action.as_ref().is_some_and(|a| {
        a.subject == Subject::Mcp
            || mapped
                .event
                .tool
                .as_deref()
                .is_some_and(|t| t.starts_with("mcp__") || t.starts_with("MCP:"))
    });
    RuleFacts {
        proof: observed(provider, v, mapped),
        tool_input: mcp.then(|| v.get("tool_input").cloned()).flatten(),
    }
}

fn observed(provider: &dyn Provider, v: &Value, mapped: &Mapped) -> Option<Observed> {
    let seen = |kind, value: &str| {
        Some(Observed {
            kind,
            value: value.to_string(),
        })
    };
    match mapped.event.kind {
        // The type the spawn declared (Claude Code's `agent_type`, Cursor's `subagent_type`).
        Kind::SubagentEnd => {
            let kind = str_field(v, "agent_type").or_else(|| str_field(v, "subagent_type"))?;
            let status = str_field(v, "status");
            if status
                .as_deref()
                .is_some_and(|s| !matches!(s, "completed" | "success" | "succeeded"))
            {
                return None;
            }
            seen(ProofKind::Subagent, &kind)
        }
        Kind::FileEdit => seen(ProofKind::File, provider.written_file(v)?),
        _ => {
            let r = provider.tool_result(v)?;
            let command = r.command.filter(|c| !c.trim().is_empty())?;
            if failed(v) || r.output.is_some_and(failed) {
                return None;
            }
            seen(ProofKind::Command, command)
        }
    }
}

/// Whether a result says the command did not succeed: interrupted, `success: false`, or a
/// non-zero exit code (also inside an output given as JSON text).
fn failed(v: &Value) -> bool {
    let parsed;
    let v = match v {
        Value::String(text) if text.trim_start().starts_with('{') => {
            parsed = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
            &parsed
        }
        other => other,
    };
    let flag = |k: &str| v.get(k).and_then(Value::as_bool);
    let code = ["exit_code", "exitCode"].iter().find_map(|k| v.get(*k).and_then(Value::as_i64));
    flag("interrupted") == Some(true) || flag("success") == Some(false) || code.is_some_and(|c| c != 0)
}

/// A written file's path as proofs keep it: relative to the project root when inside it.
pub(crate) fn proof_path(path: &str, root: &Path) -> String {
    let p = Path::new(path);
    let rel = p.strip_prefix(root).ok().map(|r| r.to_string_lossy().into_owned());
    let rel = rel.unwrap_or_else(|| path.to_string());
    rel.strip_prefix("./").map(str::to_string).unwrap_or(rel)
}

#[cfg(test)]
mod tests {
    use super::super::{claude, cursor};
    use super::*;
    use serde_json::json;

    fn proof(provider: &dyn Provider, v: Value) -> Option<Observed> {
        let m = super::super::turn::map(provider, &v, chrono::Utc::now());
        facts(provider, &v, &m).proof
    }

    #[test]
    fn only_what_ran_and_did_not_fail_is_a_proof() {
        let claude = super::super::claude::PROVIDER;
        let cursor = super::super::cursor::PROVIDER;
        let ok = claude::Event::PostToolUse.payload(json!({"session_id": "s", "tool_name": "Bash",
            "tool_input": {"command": "cargo test"}, "tool_response": {"stdout": "ok", "interrupted": false}}));
        assert_eq!(
            proof(claude, ok),
            Some(Observed {
                kind: ProofKind::Command,
                value: "cargo test".into()
            })
        );
        let fail = claude::Event::PostToolUseFailure.payload(json!({"session_id": "s", "tool_name": "Bash",
            "tool_input": {"command": "cargo test"}, "error": "Exit code 101"}));
        assert_eq!(proof(claude, fail), None);
        let interrupted = claude::Event::PostToolUse.payload(json!({"session_id": "s", "tool_name": "Bash",
            "tool_input": {"command": "cargo test"}, "tool_response": {"interrupted": true}}));
        assert_eq!(proof(claude, interrupted), None);
        let pre =
            claude::Event::PreToolUse.payload(json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "cargo test"}}));
        assert_eq!(proof(claude, pre), None, "about to run is not ran");
        let sub = claude::Event::SubagentStop.payload(json!({"session_id": "s", "agent_type": "the-jury"}));
        assert_eq!(proof(claude, sub).map(|o| o.value), Some("the-jury".into()));
        let edit = claude::Event::PostToolUse
            .payload(json!({"session_id": "s", "tool_name": "Write", "tool_input": {"file_path": "/r/docs/a.md"}}));
        assert_eq!(
            proof(claude, edit).map(|o| (o.kind, o.value)),
            Some((ProofKind::File, "/r/docs/a.md".into()))
        );

        let shell = cursor::Event::AfterShellExecution.payload(json!({"session_id": "s", "command": "cargo test", "output": "ok"}));
        assert_eq!(proof(cursor, shell).map(|o| o.value), Some("cargo test".into()));
        let nonzero = cursor::Event::PostToolUse.payload(json!({"session_id": "s", "tool_name": "Shell",
            "tool_input": {"command": "cargo test"}, "tool_output": "{\"output\":\"x\",\"exitCode\":101}"}));
        assert_eq!(proof(cursor, nonzero), None);
        let csub = cursor::Event::SubagentStop.payload(json!({"session_id": "s", "subagent_type": "explore", "status": "error"}));
        assert_eq!(proof(cursor, csub), None);
        assert_eq!(proof_path("/r/docs/a.md", Path::new("/r")), "docs/a.md");
        assert_eq!(proof_path("./x.rs", Path::new("/r")), "x.rs");
    }
}
