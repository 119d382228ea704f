//! Wiring tlc into the providers' own settings: Claude Code's `settings.json` and Cursor's
//! `hooks.json`. Pure edits of the parsed JSON; every key and hook that is not tlc's stays as
//! it was, and applying an edit twice changes nothing.

use super::provider::{Layout, Provider};
use serde_json::{json, Map, Value};
use std::path::Path;

/// The command a provider runs: `<tlc> hook <provider>`, the path quoted when it needs it.
pub(crate) fn hook_command(tlc: &str, provider: &str) -> String {
    let program = if tlc.chars().any(|c| c.is_whitespace() || c == '"' || c == '\'') {
        format!("'{}'", tlc.replace('\'', "'\\''"))
    } else {
        tlc.to_string()
    };
    format!("{program} hook {provider}")
}

/// Whether `command` runs `tlc hook <provider>` (any tlc binary).
pub(crate) fn is_tlc_command(command: &str, provider: &str) -> bool {
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

/// Every command in a provider's settings, with its event (either layout).
pub(crate) fn wired_commands(settings: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, entries) in hooks {
        for entry in entries.as_array().into_iter().flatten() {
            if let Some(c) = entry.get("command").and_then(Value::as_str) {
                out.push((event.clone(), c.to_string()));
            }
            for h in entry.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                if let Some(c) = h.get("command").and_then(Value::as_str) {
                    out.push((event.clone(), c.to_string()));
                }
            }
        }
    }
    out
}

/// The program a hook command starts (`<tlc> hook <provider>`, the path possibly quoted).
pub(crate) fn launcher<'c>(command: &'c str, provider: &str) -> &'c str {
    let rest = command.trim().strip_suffix(&format!(" hook {provider}")).unwrap_or(command);
    rest.trim().trim_matches(|c| c == '\'' || c == '"')
}

fn runs_tlc(entry: &Value, provider: &str) -> bool {
    entry
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| is_tlc_command(c, provider))
}

/// Whether `entry` is exactly what [`install`] writes for `provider`: the keys it writes and no
/// other (`type` = `"command"` in the grouped layout, `command`, an optional numeric
/// `timeout`), and a command byte-equal to [`hook_command`] of a binary named `tlc`. Uninstall
/// removes only these: an entry that merely looks like tlc's (`tlc  hook claude`,
/// `"type": "cmd"`, an extra key) was written by someone else and stays.
pub(crate) fn is_tlc_written(provider: &dyn Provider, entry: &Value) -> bool {
    let Some(o) = entry.as_object() else { return false };
    let Some(command) = o.get("command").and_then(Value::as_str) else {
        return false;
    };
    let grouped = matches!(provider.layout(), Layout::Grouped { .. });
    let keys_ok = o.iter().all(|(k, v)| match k.as_str() {
        "command" => true,
        "timeout" => v.is_u64(),
        "type" => grouped && v == "command",
        _ => false,
    });
    if !keys_ok || (grouped && !o.contains_key("type")) {
        return false;
    }
    let program = launcher(command, provider.name());
    let named_tlc = Path::new(program).file_name().is_some_and(|n| n == "tlc");
    named_tlc && hook_command(program, provider.name()) == command
}

/// tlc's entries for `provider` in one event's list (either layout).
fn tlc_entries<'l>(provider: &dyn Provider, list: &'l mut [Value]) -> Vec<&'l mut Value> {
    match provider.layout() {
        Layout::Grouped { .. } => list
            .iter_mut()
            .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
            .flatten()
            .filter(|h| runs_tlc(h, provider.name()))
            .collect(),
        Layout::Flat { .. } => list.iter_mut().filter(|h| runs_tlc(h, provider.name())).collect(),
    }
}

/// Adds tlc's command, with the provider's timeout for the event, to every event of `provider`
/// that lacks it. An entry an older tlc wrote without a timeout gets it; a timeout an operator
/// set stays. Returns the events added or given their timeout, or (changing nothing) the key
/// whose value is not the object or array it must be.
pub(crate) fn install(provider: &dyn Provider, settings: &mut Value, command: &str) -> Result<Vec<String>, String> {
    if !settings.is_object() {
        return Err("the file is not a JSON object".into());
    }
    if let Some(hooks) = settings.get("hooks") {
        let Some(hooks) = hooks.as_object() else {
            return Err("`hooks` is not an object".into());
        };
        for event in provider.events() {
            if hooks.get(*event).is_some_and(|v| !v.is_array()) {
                return Err(format!("`hooks.{event}` is not an array"));
            }
        }
    }
    Ok(install_checked(provider, settings, command))
}

fn install_checked(provider: &dyn Provider, settings: &mut Value, command: &str) -> Vec<String> {
    let root = obj(settings);
    if let Layout::Flat { version } = provider.layout() {
        root.entry("version").or_insert(json!(version));
    }
    let hooks = obj(root.entry("hooks").or_insert_with(|| json!({})));
    let mut added = Vec::new();
    for event in provider.events() {
        let list = hooks.entry(*event).or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else { continue };
        let timeout = provider.timeout(event);
        let present = tlc_entries(provider, list);
        if !present.is_empty() {
            let mut timed = false;
            for entry in present {
                if let (Some(t), Some(o)) = (timeout, entry.as_object_mut().filter(|o| !o.contains_key("timeout"))) {
                    o.insert("timeout".into(), t.into());
                    timed = true;
                }
            }
            if timed {
                added.push((*event).to_string());
            }
            continue;
        }
        let mut entry = match provider.layout() {
            Layout::Grouped { .. } => json!({"type": "command", "command": command}),
            Layout::Flat { .. } => json!({"command": command}),
        };
        if let (Some(t), Some(o)) = (timeout, entry.as_object_mut()) {
            o.insert("timeout".into(), t.into());
        }
        let entry = match provider.layout() {
            Layout::Grouped { matcher_events } if matcher_events.contains(event) => {
                json!({"matcher": "*", "hooks": [entry]})
            }
            Layout::Grouped { .. } => json!({"hooks": [entry]}),
            Layout::Flat { .. } => entry,
        };
        list.push(entry);
        added.push((*event).to_string());
    }
    added
}

/// Removes exactly tlc's entries for `provider` (and the groups and event lists they leave
/// empty; with the grouped layout, a `hooks` object left empty too). Returns the events touched.
pub(crate) fn uninstall(provider: &dyn Provider, settings: &mut Value) -> Vec<String> {
    let mut removed = Vec::new();
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return removed;
    };
    for (event, list) in hooks.iter_mut() {
        let Some(list) = list.as_array_mut() else { continue };
        let touched = match provider.layout() {
            Layout::Grouped { .. } => {
                let mut touched = false;
                for g in list.iter_mut() {
                    if let Some(entries) = g.get_mut("hooks").and_then(Value::as_array_mut) {
                        let before = entries.len();
                        entries.retain(|h| !is_tlc_written(provider, h));
                        touched |= entries.len() != before;
                    }
                }
                if touched {
                    list.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|e| !e.is_empty()));
                }
                touched
            }
            Layout::Flat { .. } => {
                let before = list.len();
                list.retain(|h| !is_tlc_written(provider, h));
                list.len() != before
            }
        };
        if touched {
            removed.push(event.clone());
        }
    }
    hooks.retain(|event, list| !(removed.contains(event) && list.as_array().is_some_and(Vec::is_empty)));
    if matches!(provider.layout(), Layout::Grouped { .. }) && !removed.is_empty() && hooks.is_empty() {
        if let Some(o) = settings.as_object_mut() {
            o.remove("hooks");
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_round_trip_keeps_other_hooks() {
        let claude = super::super::claude::PROVIDER;
        let original = json!({
            "model": "opus",
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other-tool check"}]}]}
        });
        let mut s = original.clone();
        let added = install(claude, &mut s, "/usr/local/bin/tlc hook claude").unwrap();
        assert_eq!(added.len(), claude.events().len());
        assert_eq!(s["hooks"]["PreToolUse"][1]["matcher"], "*");
        assert!(s["hooks"]["Stop"][0].get("matcher").is_none());
        assert!(
            install(claude, &mut s, "/usr/local/bin/tlc hook claude").unwrap().is_empty(),
            "twice changes nothing"
        );
        assert_eq!(s["hooks"]["PreToolUse"][0], original["hooks"]["PreToolUse"][0]);
        for event in claude.events() {
            let entry = s["hooks"][event].as_array().unwrap().last().unwrap()["hooks"][0].clone();
            let timeout = entry["timeout"].as_u64().unwrap_or_else(|| panic!("{event}: no timeout"));
            assert!(timeout >= if event.ends_with("Stop") { 120 } else { 10 }, "{event}: {timeout}");
        }
        uninstall(claude, &mut s);
        assert_eq!(s, original);
    }

    #[test]
    fn an_older_entry_gets_its_timeout_and_an_operators_stays() {
        let mut s = json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "/usr/bin/tlc hook claude"}]}],
            "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/usr/bin/tlc hook claude", "timeout": 5}]}]
        }});
        let claude = super::super::claude::PROVIDER;
        let added = install(claude, &mut s, "/usr/bin/tlc hook claude").unwrap();
        assert!(added.contains(&"Stop".to_string()) && !added.contains(&"PreToolUse".to_string()));
        assert_eq!(s["hooks"]["Stop"][0]["hooks"][0]["timeout"], 600);
        assert_eq!(s["hooks"]["Stop"].as_array().unwrap().len(), 1);
        assert_eq!(s["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 5);
        assert!(install(claude, &mut s, "/usr/bin/tlc hook claude").unwrap().is_empty());
    }

    #[test]
    fn cursor_round_trip() {
        let cursor = super::super::cursor::PROVIDER;
        let original = json!({"version": 1, "hooks": {"stop": [{"command": "./other.sh"}]}});
        let mut c = original.clone();
        assert_eq!(install(cursor, &mut c, "tlc hook cursor").unwrap().len(), cursor.events().len());
        assert_eq!(c["hooks"]["stop"].as_array().unwrap().len(), 2);
        uninstall(cursor, &mut c);
        assert_eq!(c, original);
        // A value of the wrong shape is refused by name, and nothing is changed.
        let mut odd = json!({"hooks": {"stop": {"command": "x"}}});
        let before = odd.clone();
        assert_eq!(
            install(cursor, &mut odd, "tlc hook cursor"),
            Err("`hooks.stop` is not an array".to_string())
        );
        assert_eq!(odd, before);
    }

    #[test]
    fn recognises_its_own_commands() {
        assert!(is_tlc_command("/opt/bin/tlc hook claude", "claude"));
        assert!(is_tlc_command("'/my dir/tlc' hook cursor", "cursor"));
        assert!(!is_tlc_command("/opt/bin/tlcx hook claude", "claude"));
        assert!(!is_tlc_command("tlc hook claude --x", "claude"));
        assert_eq!(hook_command("/my dir/tlc", "claude"), "'/my dir/tlc' hook claude");
    }

    #[test]
    fn uninstall_takes_only_what_install_wrote() {
        let claude = super::super::claude::PROVIDER;
        let ours = json!({"type": "command", "command": "/usr/bin/tlc hook claude", "timeout": 30});
        assert!(is_tlc_written(claude, &ours));
        assert!(is_tlc_written(
            claude,
            &json!({"type": "command", "command": "'/a b/tlc' hook claude"})
        ));
        for lookalike in [
            json!({"type": "command", "command": "/usr/bin/tlc  hook claude"}),
            json!({"type": "cmd", "command": "/usr/bin/tlc hook claude"}),
            json!({"command": "/usr/bin/tlc hook claude"}),
            json!({"type": "command", "command": "/usr/bin/tlc hook claude", "note": "mine"}),
            json!({"type": "command", "command": "\"/usr/bin/tlc\" hook claude"}),
            json!({"type": "command", "command": "/usr/bin/tlc hook claude", "timeout": "30"}),
        ] {
            assert!(!is_tlc_written(claude, &lookalike), "{lookalike}");
        }
        let mut s = json!({"hooks": {"Stop": [{"hooks": [ours, {"type": "cmd", "command": "/usr/bin/tlc hook claude"}]}]}});
        assert_eq!(uninstall(claude, &mut s), vec!["Stop".to_string()]);
        assert_eq!(s["hooks"]["Stop"][0]["hooks"].as_array().unwrap().len(), 1);
        let cursor = super::super::cursor::PROVIDER;
        assert!(is_tlc_written(cursor, &json!({"command": "/x/tlc hook cursor"})));
        assert!(!is_tlc_written(
            cursor,
            &json!({"type": "command", "command": "/x/tlc hook cursor"})
        ));
    }

    #[test]
    fn launchers_are_read_quoted_or_not() {
        assert_eq!(launcher("/usr/bin/tlc hook claude", "claude"), "/usr/bin/tlc");
        assert_eq!(launcher("'/a b/tlc' hook cursor", "cursor"), "/a b/tlc");
    }

    #[test]
    fn wired_commands_read_both_layouts() {
        let claude = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "tlc hook claude"}]}]}});
        assert_eq!(
            wired_commands(&claude),
            vec![("PreToolUse".to_string(), "tlc hook claude".to_string())]
        );
        let cursor = json!({"version": 1, "hooks": {"stop": [{"command": "tlc hook cursor"}]}});
        assert_eq!(wired_commands(&cursor), vec![("stop".to_string(), "tlc hook cursor".to_string())]);
    }
}
