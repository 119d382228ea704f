//! Values tlc adds to a client's settings beside its hook entries — the client's sandbox switched
//! on, the protected set in its deny lists (issue 51) — and how `tlc uninstall` takes back exactly
//! those. Pure edits of the parsed JSON: what a provider wants ([`Want`]) is applied, and what was
//! added is returned as rows the home database keeps (`policy::boundary::store::Added`), so the
//! revert knows what the key held before and which containers tlc created.
//!
//! The rules: a key an operator already set to a value at least as strict stays as it is (tlc
//! never weakens a setting); a list item already there is not added twice; on revert, a key tlc
//! set goes back to what it held only while it still holds what tlc wrote (an operator's later
//! edit stays), an item tlc added leaves its list, and a container tlc created goes when empty.

use crate::policy::boundary::store::Added;
use serde_json::{Map, Value};

/// One value a provider's boundary wiring wants in its settings.
#[derive(Debug, Clone)]
pub(crate) enum Want {
    /// The key at `pointer` (a JSON pointer: `/sandbox/enabled`) holds `value`, unless what it
    /// holds already `keeps` the protection (is at least as strict).
    Key {
        pointer: String,
        value: Value,
        keeps: fn(&Value) -> bool,
    },
    /// The list at `pointer` holds `item`.
    Item { pointer: String, item: Value },
}

/// The keys of a JSON pointer (`/a/b` → `["a", "b"]`), unescaped (`~1` is `/`, `~0` is `~`).
fn keys(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|k| k.replace("~1", "/").replace("~0", "~"))
        .collect()
}

fn pointer_of(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("/{}", k.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// The object at the parent of `keys`, created (and recorded as a container tlc made) where
/// missing. An intermediate value that is not an object is an error naming its key.
fn parent_object<'v>(root: &'v mut Value, keys: &[String], added: &mut Vec<Added>) -> Result<&'v mut Map<String, Value>, String> {
    let mut cur = root;
    for (i, k) in keys[..keys.len() - 1].iter().enumerate() {
        let obj = cur
            .as_object_mut()
            .ok_or_else(|| format!("`{}` is not an object", keys[..i].join(".")))?;
        if !obj.contains_key(k) {
            obj.insert(k.clone(), Value::Object(Map::new()));
            added.push(Added {
                pointer: pointer_of(&keys[..=i]),
                item: String::new(),
                previous: None,
                written: "{}".into(),
                container: true,
            });
        }
        cur = obj.get_mut(k).expect("inserted above");
    }
    cur.as_object_mut()
        .ok_or_else(|| format!("`{}` is not an object", keys[..keys.len() - 1].join(".")))
}

/// Applies `wants` to `settings`; returns what was added, in order. Nothing is changed when a
/// value is not of the shape a want needs (the error names its key).
pub(crate) fn apply(settings: &mut Value, wants: &[Want]) -> Result<Vec<Added>, String> {
    let mut scratch = settings.clone();
    let mut added = Vec::new();
    if !scratch.is_object() {
        return Err("the file is not a JSON object".into());
    }
    for want in wants {
        match want {
            Want::Key { pointer, value, keeps } => {
                let ks = keys(pointer);
                let last = ks.last().cloned().unwrap_or_default();
                let parent = parent_object(&mut scratch, &ks, &mut added)?;
                let current = parent.get(&last).cloned();
                if current.as_ref().is_some_and(keeps) {
                    continue;
                }
                parent.insert(last, value.clone());
                added.push(Added {
                    pointer: pointer.clone(),
                    item: String::new(),
                    previous: current.map(|c| c.to_string()),
                    written: value.to_string(),
                    container: false,
                });
            }
            Want::Item { pointer, item } => {
                let ks = keys(pointer);
                let last = ks.last().cloned().unwrap_or_default();
                let parent = parent_object(&mut scratch, &ks, &mut added)?;
                if !parent.contains_key(&last) {
                    parent.insert(last.clone(), Value::Array(Vec::new()));
                    added.push(Added {
                        pointer: pointer.clone(),
                        item: String::new(),
                        previous: None,
                        written: "[]".into(),
                        container: true,
                    });
                }
                let list = parent
                    .get_mut(&last)
                    .and_then(Value::as_array_mut)
                    .ok_or_else(|| format!("`{}` is not a list", ks.join(".")))?;
                if list.contains(item) {
                    continue;
                }
                list.push(item.clone());
                added.push(Added {
                    pointer: pointer.clone(),
                    item: item.to_string(),
                    previous: None,
                    written: item.to_string(),
                    container: false,
                });
            }
        }
    }
    *settings = scratch;
    Ok(added)
}

/// Takes back `added` (as [`apply`] returned it, possibly over several runs) from `settings`;
/// returns the keys it touched.
pub(crate) fn revert(settings: &mut Value, added: &[Added]) -> Vec<String> {
    let mut touched = Vec::new();
    // Items and keys first, then the containers from the innermost out.
    let mut containers: Vec<&Added> = added.iter().filter(|a| a.container).collect();
    containers.sort_by_key(|a| std::cmp::Reverse(a.pointer.matches('/').count()));
    for a in added.iter().rev().filter(|a| !a.container) {
        let ks = keys(&a.pointer);
        let Some((last, parents)) = ks.split_last() else { continue };
        let Some(parent) = walk(settings, parents) else { continue };
        if !a.item.is_empty() {
            let Ok(item) = serde_json::from_str::<Value>(&a.item) else {
                continue;
            };
            if let Some(list) = parent.get_mut(last).and_then(Value::as_array_mut) {
                if let Some(i) = list.iter().position(|v| *v == item) {
                    list.remove(i);
                    touched.push(a.pointer.clone());
                }
            }
            continue;
        }
        let Ok(written) = serde_json::from_str::<Value>(&a.written) else {
            continue;
        };
        if parent.get(last) != Some(&written) {
            // Changed since tlc wrote it: the operator's now.
            continue;
        }
        match a.previous.as_deref().map(serde_json::from_str::<Value>) {
            Some(Ok(previous)) => {
                parent.insert(last.clone(), previous);
            }
            _ => {
                parent.remove(last);
            }
        }
        touched.push(a.pointer.clone());
    }
    for a in containers {
        let ks = keys(&a.pointer);
        let Some((last, parents)) = ks.split_last() else { continue };
        let Some(parent) = walk(settings, parents) else { continue };
        let empty = match parent.get(last) {
            Some(Value::Object(o)) => o.is_empty(),
            Some(Value::Array(l)) => l.is_empty(),
            _ => false,
        };
        if empty {
            parent.remove(last);
            touched.push(a.pointer.clone());
        }
    }
    touched.sort();
    touched.dedup();
    touched
}

fn walk<'v>(root: &'v mut Value, keys: &[String]) -> Option<&'v mut Map<String, Value>> {
    let mut cur = root;
    for k in keys {
        cur = cur.as_object_mut()?.get_mut(k)?;
    }
    cur.as_object_mut()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wants() -> Vec<Want> {
        vec![
            Want::Key {
                pointer: "/sandbox/enabled".into(),
                value: json!(true),
                keeps: |v| *v == json!(true),
            },
            Want::Key {
                pointer: "/sandbox/allowUnsandboxedCommands".into(),
                value: json!(false),
                keeps: |v| *v == json!(false),
            },
            Want::Item {
                pointer: "/sandbox/filesystem/denyWrite".into(),
                item: json!("/home/me/.tlc/harness"),
            },
            Want::Item {
                pointer: "/permissions/deny".into(),
                item: json!("Edit(//**/.tlc/**)"),
            },
        ]
    }

    #[test]
    fn an_empty_file_gets_its_values_and_is_empty_again_after_the_revert() {
        let mut s = json!({});
        let added = apply(&mut s, &wants()).unwrap();
        assert_eq!(s["sandbox"]["enabled"], true);
        assert_eq!(s["sandbox"]["filesystem"]["denyWrite"][0], "/home/me/.tlc/harness");
        assert_eq!(s["permissions"]["deny"][0], "Edit(//**/.tlc/**)");
        assert!(apply(&mut s, &wants()).unwrap().is_empty(), "twice adds nothing");
        revert(&mut s, &added);
        assert_eq!(s, json!({}));
    }

    #[test]
    fn the_operators_values_stay_and_a_weaker_one_comes_back() {
        let original = json!({
            "model": "opus",
            "sandbox": {"enabled": false, "allowUnsandboxedCommands": false, "filesystem": {"denyWrite": ["/secret"]}},
            "permissions": {"allow": ["Bash(ls)"], "deny": ["Edit(//**/.tlc/**)"]}
        });
        let mut s = original.clone();
        let added = apply(&mut s, &wants()).unwrap();
        assert_eq!(s["sandbox"]["enabled"], true, "a weaker value is made strict");
        assert_eq!(added.len(), 2, "enabled and one denyWrite item: {added:?}");
        assert_eq!(
            s["permissions"]["deny"].as_array().unwrap().len(),
            1,
            "an item there is not added twice"
        );
        revert(&mut s, &added);
        assert_eq!(s, original);
    }

    #[test]
    fn an_edit_made_after_install_is_the_operators_and_stays() {
        let mut s = json!({});
        let added = apply(&mut s, &wants()).unwrap();
        s["sandbox"]["enabled"] = json!("custom");
        s["sandbox"]["filesystem"]["denyWrite"].as_array_mut().unwrap().push(json!("/mine"));
        revert(&mut s, &added);
        assert_eq!(s, json!({"sandbox": {"enabled": "custom", "filesystem": {"denyWrite": ["/mine"]}}}));
    }

    #[test]
    fn a_value_of_the_wrong_shape_is_named_and_nothing_changes() {
        let mut s = json!({"sandbox": {"filesystem": {"denyWrite": "/x"}}});
        let before = s.clone();
        let e = apply(&mut s, &wants()).unwrap_err();
        assert!(e.contains("sandbox.filesystem.denyWrite"), "{e}");
        assert_eq!(s, before);
        let mut s = json!({"sandbox": true});
        assert!(apply(&mut s, &wants()).unwrap_err().contains("sandbox"));
    }
}
