//! Secret redaction toward the model. Storage is always redacted; this decides what the model
//! gets when a tool's output held a secret: where the provider lets a hook replace the output, the
//! redacted output (with its placeholders) replaces it; where it does not, the model is told that
//! a secret was masked and must not be repeated. Which of the two happens, per provider and event,
//! is documented in docs/hook.md ("Secret redaction").

use super::provider::{ModelMask, Provider};
use crate::obs::redact::{PayloadRedaction, Redaction};
use serde_json::{Map, Value};

/// The masking an event calls for, from its payload as redacted and what the redaction changed;
/// `None` when no tool output that reaches the model held a secret. Which fields, and whether the
/// output can be replaced, is the provider's (its `plan_mask`).
pub(crate) fn plan(provider: &dyn Provider, payload: &Value, redaction: &PayloadRedaction) -> Option<ModelMask> {
    provider.plan_mask(payload, redaction)
}

/// The redaction of a payload field that held a secret.
pub(super) fn found<'r>(redaction: &'r PayloadRedaction, field: &str) -> Option<&'r Redaction> {
    redaction.field(field).filter(|r| r.secrets > 0)
}

pub(super) fn notice(r: &Redaction) -> ModelMask {
    let kinds: Vec<&str> = r.kinds.iter().copied().collect();
    ModelMask::Notice(format!(
        "tlc: this tool's output held a secret ({}). tlc masked it in its records, but this event cannot \
         mask it in the output you received. Treat it as a credential: do not repeat it in replies, \
         commands, code, files or commit messages; refer to it only as \"the secret\".",
        kinds.join(", ")
    ))
}

/// `response` (the provider's rendered answer) with the masking added (its `apply_mask`).
pub(crate) fn apply(provider: &dyn Provider, hook_event: &str, response: String, mask: ModelMask) -> String {
    let mut out = match response.trim() {
        "" => Map::new(),
        text => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => o,
            _ => return response,
        },
    };
    if !provider.apply_mask(hook_event, &mut out, mask) {
        return response;
    }
    Value::Object(out).to_string()
}

pub(super) fn append_context(map: &mut Map<String, Value>, key: &str, text: &str) {
    let joined = match map.get(key).and_then(Value::as_str) {
        Some(existing) if !existing.is_empty() => format!("{existing}\n\n{text}"),
        _ => text.to_string(),
    };
    map.insert(key.into(), joined.into());
}

#[cfg(test)]
mod tests {
    use super::super::{claude, cursor};
    use super::*;
    use crate::obs::redact::Redactor;
    use serde_json::json;

    fn planned(provider: &dyn Provider, mut payload: Value) -> Option<ModelMask> {
        let r = Redactor::new("s").redact_payload(&mut payload, &[]);
        plan(provider, &payload, &r)
    }

    const KEY: &str = "AKIAIOSFODNN7EXAMPLE";

    #[test]
    fn claude_post_tool_use_output_is_replaced_and_mcp_gets_both_fields() {
        let bash = claude::Event::PostToolUse.payload(json!({"tool_name": "Bash",
            "tool_response": {"stdout": format!("id={KEY}"), "stderr": "", "interrupted": false}}));
        let mask = planned(claude::PROVIDER, bash).expect("a mask");
        let ModelMask::Replace { output, mcp: false } = &mask else {
            panic!("{mask:?}")
        };
        assert!(output["stdout"].as_str().unwrap().starts_with("id=[REDACTED:aws_access_key:"));
        assert_eq!(output["interrupted"], false, "the output keeps its shape");
        let out: Value = serde_json::from_str(&apply(claude::PROVIDER, "PostToolUse", String::new(), mask.clone())).unwrap();
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PostToolUse");
        assert_eq!(&out["hookSpecificOutput"]["updatedToolOutput"], output);
        assert!(out["hookSpecificOutput"].get("updatedMCPToolOutput").is_none());

        let mcp = claude::Event::PostToolUse.payload(json!({"tool_name": "mcp__vault__read",
            "tool_response": [{"type": "text", "text": KEY}]}));
        let mask = planned(claude::PROVIDER, mcp).unwrap();
        let out: Value = serde_json::from_str(&apply(claude::PROVIDER, "PostToolUse", String::new(), mask.clone())).unwrap();
        assert_eq!(
            out["hookSpecificOutput"]["updatedMCPToolOutput"],
            out["hookSpecificOutput"]["updatedToolOutput"]
        );
    }

    #[test]
    fn without_a_secret_in_the_output_nothing_is_planned() {
        let input_only = claude::Event::PostToolUse.payload(json!({"tool_name": "Bash",
            "tool_input": {"command": format!("echo {KEY}")}, "tool_response": {"stdout": "ok"}}));
        assert_eq!(planned(claude::PROVIDER, input_only), None);
        let pre = claude::Event::PreToolUse.payload(json!({"tool_name": "Bash", "tool_response": {"stdout": KEY}}));
        assert_eq!(planned(claude::PROVIDER, pre), None);
    }

    #[test]
    fn where_output_cannot_be_replaced_the_notice_joins_existing_context() {
        let failure = claude::Event::PostToolUseFailure.payload(json!({"tool_name": "Bash", "error": format!("bad key {KEY}")}));
        let mask = planned(claude::PROVIDER, failure).unwrap();
        assert!(matches!(&mask, ModelMask::Notice(t) if t.contains("aws_access_key") && !t.contains(KEY)));
        let existing = r#"{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"HEADS UP"}}"#;
        let out: Value = serde_json::from_str(&apply(claude::PROVIDER, "PostToolUseFailure", existing.into(), mask.clone())).unwrap();
        let context = out["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
        assert!(
            context.starts_with("HEADS UP\n\ntlc: this tool's output held a secret"),
            "{context}"
        );

        let shell = cursor::Event::PostToolUse.payload(json!({"tool_name": "Shell",
            "tool_output": format!("{{\"output\":\"{KEY}\",\"exitCode\":0}}")}));
        let mask = planned(cursor::PROVIDER, shell).unwrap();
        let out: Value = serde_json::from_str(&apply(cursor::PROVIDER, "postToolUse", "{}".into(), mask.clone())).unwrap();
        assert!(out["additional_context"].as_str().unwrap().contains("do not repeat it"));
    }

    #[test]
    fn cursor_mcp_output_is_replaced_by_the_value_its_text_holds() {
        let text = json!({"content": [{"type": "text", "text": format!("token\n{KEY}")}]}).to_string();
        let mcp = cursor::Event::PostToolUse.payload(json!({"tool_name": "MCP:vault_read", "tool_output": text}));
        let mask = planned(cursor::PROVIDER, mcp).unwrap();
        let out: Value = serde_json::from_str(&apply(cursor::PROVIDER, "postToolUse", "{}".into(), mask.clone())).unwrap();
        let replaced = out["updated_mcp_tool_output"]["content"][0]["text"].as_str().unwrap();
        assert!(replaced.starts_with("token\n[REDACTED:aws_access_key:"), "{replaced}");
    }
}
