//! Wiring tlc into the providers' own settings: Claude Code's `settings.json` and Cursor's
//! `hooks.json`. Pure edits of the parsed JSON; every key and hook that is not tlc's stays as
//! it was, and applying an edit twice changes nothing.

use serde_json::{json, Map, Value};

/// Claude Code events tlc handles; tool events take a `*` matcher.
pub const CLAUDE_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
];
const CLAUDE_TOOL_EVENTS: &[&str] = &["PreToolUse", "PostToolUse", "PostToolUseFailure"];

/// Cursor events tlc handles.
pub const CURSOR_EVENTS: &[&str] = &[
    "sessionStart",
    "beforeSubmitPrompt",
    "beforeShellExecution",
    "afterShellExecution",
    "beforeMCPExecution",
    "afterMCPExecution",
    "beforeReadFile",
    "afterFileEdit",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "afterAgentResponse",
    "afterAgentThought",
    "preCompact",
    "subagentStart",
    "subagentStop",
    "stop",
    "sessionEnd",
];

/// The command a provider runs: `<tlc> hook <provider>`, the path quoted when it needs it.
pub fn hook_command(tlc: &str, provider: &str) -> String {
    let program = if tlc.chars().any(|c| c.is_whitespace() || c == '"' || c == '\'') {
        format!("'{}'", tlc.replace('\'', "'\\''"))
    } else {
        tlc.to_string()
    };
    format!("{program} hook {provider}")
}

/// Whether `command` runs `tlc hook <provider>` (any tlc binary).
pub fn is_tlc_command(command: &str, provider: &str) -> bool {
    let Some(rest) = command.trim().strip_suffix(&format!(" hook {provider}")) else {
        return false;
    };
    let program = rest.trim().trim_matches(|c| c == '\'' || c == '"');
    program.rsplit('/').next().is_some_and(|name| name == "tlc")
}

fn obj(v: &mut Value) -> &mut Map<String, Value> {
    if !v.is_object() {
        *v = Value::Object(Map::new());
    }
    v.as_object_mut().expect("made an object above")
}

/// Adds tlc's command to every Claude Code event that lacks it. Returns the events added.
pub fn install_claude(settings: &mut Value, command: &str) -> Vec<String> {
    let hooks = obj(obj(settings).entry("hooks").or_insert_with(|| json!({})));
    let mut added = Vec::new();
    for event in CLAUDE_EVENTS {
        let groups = hooks.entry(*event).or_insert_with(|| json!([]));
        if !groups.is_array() {
            continue;
        }
        let present = groups.as_array().into_iter().flatten().any(|g| {
            g.get("hooks").and_then(Value::as_array).into_iter().flatten().any(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| is_tlc_command(c, "claude"))
            })
        });
        if present {
            continue;
        }
        let entry = json!({"type": "command", "command": command});
        let group = if CLAUDE_TOOL_EVENTS.contains(event) {
            json!({"matcher": "*", "hooks": [entry]})
        } else {
            json!({"hooks": [entry]})
        };
        if let Some(a) = groups.as_array_mut() {
            a.push(group);
        }
        added.push((*event).to_string());
    }
    added
}

/// Removes exactly tlc's Claude Code entries (and the groups and event lists they leave empty).
/// Returns the events it touched.
pub fn uninstall_claude(settings: &mut Value) -> Vec<String> {
    let mut removed = Vec::new();
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return removed;
    };
    for (event, groups) in hooks.iter_mut() {
        let Some(list) = groups.as_array_mut() else { continue };
        let mut touched = false;
        for g in list.iter_mut() {
            if let Some(entries) = g.get_mut("hooks").and_then(Value::as_array_mut) {
                let before = entries.len();
                entries.retain(|h| {
                    !h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|c| is_tlc_command(c, "claude"))
                });
                if entries.len() != before {
                    touched = true;
                }
            }
        }
        if touched {
            list.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|e| !e.is_empty()));
            removed.push(event.clone());
        }
    }
    hooks.retain(|event, groups| !(removed.contains(event) && groups.as_array().is_some_and(Vec::is_empty)));
    if !removed.is_empty() && hooks.is_empty() {
        if let Some(o) = settings.as_object_mut() {
            o.remove("hooks");
        }
    }
    removed
}

/// Adds tlc's command to every Cursor event that lacks it. Returns the events added.
pub fn install_cursor(config: &mut Value, command: &str) -> Vec<String> {
    let root = obj(config);
    root.entry("version").or_insert(json!(1));
    let hooks = obj(root.entry("hooks").or_insert_with(|| json!({})));
    let mut added = Vec::new();
    for event in CURSOR_EVENTS {
        let list = hooks.entry(*event).or_insert_with(|| json!([]));
        let Some(a) = list.as_array_mut() else { continue };
        if a.iter().any(|h| {
            h.get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| is_tlc_command(c, "cursor"))
        }) {
            continue;
        }
        a.push(json!({"command": command}));
        added.push((*event).to_string());
    }
    added
}

/// Removes exactly tlc's Cursor entries (and the event lists they leave empty).
pub fn uninstall_cursor(config: &mut Value) -> Vec<String> {
    let mut removed = Vec::new();
    let Some(hooks) = config.get_mut("hooks").and_then(Value::as_object_mut) else {
        return removed;
    };
    for (event, list) in hooks.iter_mut() {
        let Some(a) = list.as_array_mut() else { continue };
        let before = a.len();
        a.retain(|h| {
            !h.get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| is_tlc_command(c, "cursor"))
        });
        if a.len() != before {
            removed.push(event.clone());
        }
    }
    hooks.retain(|event, list| !(removed.contains(event) && list.as_array().is_some_and(Vec::is_empty)));
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_round_trip_keeps_other_hooks() {
        let original = json!({
            "model": "opus",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other-tool check"}]}]}
        });
        let mut s = original.clone();
        let added = install_claude(&mut s, "/usr/local/bin/tlc hook claude");
        assert_eq!(added.len(), CLAUDE_EVENTS.len());
        assert!(
            install_claude(&mut s, "/usr/local/bin/tlc hook claude").is_empty(),
            "twice changes nothing"
        );
        assert_eq!(s["hooks"]["PreToolUse"][0], original["hooks"]["PreToolUse"][0]);
        uninstall_claude(&mut s);
        assert_eq!(s, original);
    }

    #[test]
    fn cursor_round_trip() {
        let original = json!({"version": 1, "hooks": {"stop": [{"command": "./other.sh"}]}});
        let mut c = original.clone();
        install_cursor(&mut c, "tlc hook cursor");
        assert_eq!(c["hooks"]["stop"].as_array().unwrap().len(), 2);
        uninstall_cursor(&mut c);
        assert_eq!(c, original);
    }

    #[test]
    fn recognises_its_own_commands() {
        assert!(is_tlc_command("/opt/bin/tlc hook claude", "claude"));
        assert!(is_tlc_command("'/my dir/tlc' hook cursor", "cursor"));
        assert!(!is_tlc_command("/opt/bin/tlcx hook claude", "claude"));
        assert!(!is_tlc_command("tlc hook claude --x", "claude"));
        assert_eq!(hook_command("/my dir/tlc", "claude"), "'/my dir/tlc' hook claude");
    }
}
