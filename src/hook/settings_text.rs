//! Writing a provider's settings file back after `wiring` edited its parsed value, so that every
//! byte outside what changed stays as it was written: numbers (`1e3`, `1.50`, integers past
//! u64, which serde_json would print as floats), string escapes (`"\u00e9"`), key order,
//! indentation (tabs, four spaces), line endings. The edit itself stays a pure function of
//! serde_json values; this carries the difference between the value read and the value wanted
//! onto the text, through jsonc-parser's concrete syntax tree, which keeps the raw text of every
//! token it is not asked to change and indents what it inserts like the file around it.

use jsonc_parser::cst::{CstArray, CstContainerNode, CstInputValue, CstNode, CstObject, CstObjectProp, CstRootNode};
use serde_json::{Map, Value};

/// The text to write so that a file holding `text` (which parsed to `before`) parses to
/// `after`, changing only the members, elements and values that differ. A blank `text` (a new
/// or empty file) gets `after` printed pretty. Errs, naming nothing (the caller names the file),
/// when the text cannot be edited into `after`.
pub(crate) fn rewrite(text: &str, before: &Value, after: &Value) -> Result<String, String> {
    if text.trim().is_empty() {
        return serde_json::to_string_pretty(after).map(|t| t + "\n").map_err(|e| e.to_string());
    }
    let root = CstRootNode::parse(text, &jsonc_parser::ParseOptions::default()).map_err(|e| e.to_string())?;
    match (before, after, root.object_value()) {
        (Value::Object(b), Value::Object(a), Some(obj)) => edit_object(&obj, b, a),
        _ => root.set_value(input(after)),
    }
    let written = root.to_string();
    // What is written must be exactly what tlc decided: a text that reads back otherwise is a
    // bug here, and the file is then left as it is rather than written wrong.
    match serde_json::from_str::<Value>(&written) {
        Ok(v) if v == *after => Ok(written),
        Ok(_) => Err("editing the text in place did not give the intended settings".into()),
        Err(e) => Err(format!("editing the text in place gave invalid JSON ({e})")),
    }
}

fn edit_object(obj: &CstObject, before: &Map<String, Value>, after: &Map<String, Value>) {
    for prop in obj.properties() {
        let Some(name) = prop.decoded_name() else { continue };
        match after.get(&name) {
            None => prop.remove(),
            Some(a) if before.get(&name) == Some(a) => {}
            Some(a) => edit_member(&prop, before.get(&name), a),
        }
    }
    // Members new to `after` go where `after` has them: after the member before them.
    let mut next = 0;
    for (name, value) in after {
        match obj.get(name) {
            Some(prop) => next = prop.property_index() + 1,
            None => {
                spread(obj.clone().into());
                obj.insert(next, name, input(value));
                next += 1;
            }
        }
    }
}

fn edit_member(prop: &CstObjectProp, before: Option<&Value>, after: &Value) {
    match (before, after) {
        (Some(Value::Object(b)), Value::Object(a)) => {
            if let Some(obj) = prop.object_value() {
                return edit_object(&obj, b, a);
            }
        }
        (Some(Value::Array(b)), Value::Array(a)) => {
            if let Some(arr) = prop.array_value() {
                return edit_array(&arr, b, a);
            }
        }
        _ => {}
    }
    if spans_lines(after) {
        if let Some(parent) = prop.parent() {
            spread(parent);
        }
    }
    prop.set_value(input(after));
}

/// Puts `container` and every object or array around it on several lines, outermost first, before
/// something that spans lines goes into it: written into a one-line container, it would leave
/// that container half on one line and its indentation guessed.
fn spread(container: CstContainerNode) {
    let mut chain: Vec<CstContainerNode> = container.ancestors().collect();
    chain.reverse();
    chain.push(container);
    for c in chain {
        if let Some(o) = c.as_object() {
            o.ensure_multiline();
        } else if let Some(a) = c.as_array() {
            a.ensure_multiline();
        }
    }
}

/// Whether jsonc-parser writes `v` over several lines (a non-empty object, or an array holding one
/// or a non-empty array).
fn spans_lines(v: &Value) -> bool {
    match v {
        Value::Object(o) => !o.is_empty(),
        Value::Array(a) => a.iter().any(|e| match e {
            Value::Object(o) => !o.is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => false,
        }),
        _ => false,
    }
}

/// Elements are matched by value (a diff of the two lists): those in both stay as written,
/// those only in `before` are removed, those only in `after` inserted where `after` has them,
/// and an element changed in place (the same number replaced one for one) is edited inside.
fn edit_array(arr: &CstArray, before: &[Value], after: &[Value]) {
    let key = |v: &Value| v.to_string();
    let old_keys: Vec<String> = before.iter().map(key).collect();
    let new_keys: Vec<String> = after.iter().map(key).collect();
    let nodes = arr.elements();
    if nodes.len() != before.len() {
        // The tree and the value disagree (they read the same text, so this is not expected):
        // the array is written anew rather than edited by guesswork.
        arr.clone().replace_with(CstInputValue::Array(after.iter().map(input).collect()));
        return;
    }
    // Applied in order, each operation leaves the array's first `new.start` elements equal to
    // `after`'s, so an insert goes at its index in `after`.
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_keys, &new_keys) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => {}
            similar::DiffTag::Replace if old.len() == new.len() => {
                for (i, j) in old.zip(new) {
                    edit_element(arr, &nodes[i], &before[i], j, &after[j]);
                }
            }
            _ => {
                for i in old {
                    nodes[i].clone().remove();
                }
                for j in new {
                    if spans_lines(&after[j]) {
                        spread(arr.clone().into());
                    }
                    arr.insert(j, input(&after[j]));
                }
            }
        }
    }
}

fn edit_element(arr: &CstArray, node: &CstNode, before: &Value, index: usize, after: &Value) {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            if let Some(obj) = node.as_object() {
                return edit_object(&obj, b, a);
            }
        }
        (Value::Array(b), Value::Array(a)) => {
            if let Some(inner) = node.as_array() {
                return edit_array(&inner, b, a);
            }
        }
        _ => {}
    }
    node.clone().remove();
    if spans_lines(after) {
        spread(arr.clone().into());
    }
    arr.insert(index, input(after));
}

fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(text: &str, f: impl FnOnce(&mut Value)) -> String {
        let before: Value = serde_json::from_str(text).unwrap();
        let mut after = before.clone();
        f(&mut after);
        rewrite(text, &before, &after).unwrap()
    }

    #[test]
    fn keeps_numbers_escapes_and_tabs_outside_the_change() {
        let text = "{\n\t\"a\": 1e3,\n\t\"b\": \"\\u00e9\",\n\t\"c\": [1.50, 10000000000000000000001]\n}\n";
        let out = edit(text, |v| {
            v["hooks"] = json!({"Stop": [{"hooks": [{"type": "command", "command": "tlc hook claude"}]}]});
        });
        assert!(
            out.starts_with(
                "{\n\t\"a\": 1e3,\n\t\"b\": \"\\u00e9\",\n\t\"c\": [1.50, 10000000000000000000001],\n\t\"hooks\": {\n\t\t\"Stop\": ["
            ),
            "{out}"
        );
        assert!(out.ends_with("\n\t}\n}\n"), "{out}");
        // Taking it out again gives the text back.
        let back = edit(&out, |v| {
            v.as_object_mut().unwrap().remove("hooks");
        });
        assert_eq!(back, text);
    }

    #[test]
    fn array_elements_are_appended_removed_and_edited_in_place() {
        let text = "{\n    \"l\": [\n        {\"x\": 1e0},\n        {\"y\": 2}\n    ]\n}";
        let out = edit(text, |v| {
            v["l"].as_array_mut().unwrap().push(json!({"z": 3}));
        });
        assert_eq!(
            out,
            "{\n    \"l\": [\n        {\"x\": 1e0},\n        {\"y\": 2},\n        {\n            \"z\": 3\n        }\n    ]\n}"
        );
        let out = edit(text, |v| {
            v["l"].as_array_mut().unwrap().remove(0);
        });
        assert_eq!(out, "{\n    \"l\": [\n        {\"y\": 2}\n    ]\n}");
        let out = edit(text, |v| {
            v["l"][1]["t"] = json!(600);
        });
        assert_eq!(
            out,
            "{\n    \"l\": [\n        {\"x\": 1e0},\n        {\n            \"y\": 2,\n            \"t\": 600\n        }\n    ]\n}"
        );
    }

    #[test]
    fn a_blank_file_gets_pretty_json_and_a_replaced_member_keeps_its_place() {
        assert_eq!(rewrite(" \n", &json!({}), &json!({"a": 1})).unwrap(), "{\n  \"a\": 1\n}\n");
        let out = edit("{\"s\": \"x\", \"n\": 1.0}", |v| v["s"] = json!({"type": "command"}));
        assert_eq!(out, "{\n  \"s\": {\n    \"type\": \"command\"\n  },\n  \"n\": 1.0\n}");
        let out = edit("{\"a\": 1e3, \"h\": {}}\n", |v| v["h"]["E"] = json!([{"hooks": [{"c": 1}]}]));
        assert_eq!(
            out,
            "{\n  \"a\": 1e3,\n  \"h\": {\n    \"E\": [\n      {\n        \"hooks\": [\n          {\n            \"c\": 1\n          }\n        ]\n      }\n    ]\n  }\n}\n"
        );
    }

    #[test]
    fn a_member_replaced_in_place_keeps_its_position_and_the_line_endings() {
        let text = "{\r\n  \"statusLine\": {\"type\": \"command\", \"command\": \"x.sh\", \"padding\": 2},\r\n  \"n\": 1.50\r\n}\r\n";
        let out = edit(text, |v| {
            v["statusLine"] = json!({"type": "command", "command": "tlc statusline", "padding": 0});
        });
        assert_eq!(
            out,
            "{\r\n  \"statusLine\": {\"type\": \"command\", \"command\": \"tlc statusline\", \"padding\": 0},\r\n  \"n\": 1.50\r\n}\r\n"
        );
    }
}
