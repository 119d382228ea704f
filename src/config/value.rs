//! A config value, independent of TOML's representation.

use super::registry::{Default, Kind};

/// Why a value does not fit its key. It does not name the key: the caller does (with the file
/// and line, in a [`super::ConfigError`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ValueError {
    #[error("empty value")]
    Empty,
    #[error("expected {expected}, found {found}")]
    Expected { expected: String, found: String },
}

/// A configuration value, as a tier file or the shipped defaults give it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    List(Vec<Value>),
    /// A table (`[harness.<name>]` and the like), by key.
    Table(std::collections::BTreeMap<String, Value>),
    /// `false` for a number that can be turned off.
    Off,
}

impl Value {
    /// A key's shipped default as a value.
    pub fn from_default(d: Default) -> Value {
        match d {
            Default::Bool(b) => Value::Bool(b),
            Default::Int(i) => Value::Int(i),
            Default::Float(f) => Value::Float(f),
            Default::Off => Value::Off,
            Default::Str(s) => Value::Str(s.to_string()),
            Default::List(l) => Value::List(l.iter().map(|s| Value::Str((*s).to_string())).collect()),
        }
    }

    /// Reads a TOML item.
    pub(crate) fn from_item(item: &toml_edit::Item) -> Result<Value, ValueError> {
        match item {
            toml_edit::Item::Value(v) => Self::from_toml(v),
            toml_edit::Item::Table(t) => {
                let mut map = std::collections::BTreeMap::new();
                for (k, v) in t.iter() {
                    map.insert(k.to_string(), Self::from_item(v)?);
                }
                Ok(Value::Table(map))
            }
            toml_edit::Item::ArrayOfTables(a) => {
                let mut list = Vec::new();
                for t in a.iter() {
                    let mut map = std::collections::BTreeMap::new();
                    for (k, v) in t.iter() {
                        map.insert(k.to_string(), Self::from_item(v)?);
                    }
                    list.push(Value::Table(map));
                }
                Ok(Value::List(list))
            }
            toml_edit::Item::None => Err(ValueError::Empty),
        }
    }

    fn from_toml(v: &toml_edit::Value) -> Result<Value, ValueError> {
        Ok(match v {
            toml_edit::Value::String(s) => Value::Str(s.value().clone()),
            toml_edit::Value::Integer(i) => Value::Int(*i.value()),
            toml_edit::Value::Float(f) => Value::Float(*f.value()),
            toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
            toml_edit::Value::Datetime(d) => Value::Str(d.value().to_string()),
            toml_edit::Value::Array(a) => Value::List(a.iter().map(Self::from_toml).collect::<Result<_, _>>()?),
            toml_edit::Value::InlineTable(t) => {
                let mut map = std::collections::BTreeMap::new();
                for (k, v) in t.iter() {
                    map.insert(k.to_string(), Self::from_toml(v)?);
                }
                Value::Table(map)
            }
        })
    }

    /// What the value is, in an error message.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::List(_) => "an array",
            Value::Table(_) => "a table",
            Value::Off => "false",
        }
    }

    /// Checks the value against a key's type, normalising where the type allows (an integer
    /// where a number is expected, `false` for "off").
    pub(crate) fn check(self, kind: Kind) -> Result<Value, ValueError> {
        let expected = |found: String| ValueError::Expected {
            expected: kind.describe(),
            found,
        };
        let wrong = |v: &Value| Err(expected(v.type_name().to_string()));
        match (kind, self) {
            (Kind::Bool, v @ Value::Bool(_)) => Ok(v),
            (Kind::Int { min }, Value::Int(i)) => {
                if i < min {
                    Err(expected(i.to_string()))
                } else {
                    Ok(Value::Int(i))
                }
            }
            (Kind::Float { .. } | Kind::FloatOrOff, v @ (Value::Int(_) | Value::Float(_))) => {
                let f = match v {
                    Value::Int(i) => i as f64,
                    Value::Float(f) => f,
                    _ => unreachable!("matched above"),
                };
                let min = if let Kind::Float { min } = kind { min } else { 0.0 };
                if !f.is_finite() || f < min {
                    Err(expected(f.to_string()))
                } else {
                    Ok(Value::Float(f))
                }
            }
            (Kind::FloatOrOff, Value::Bool(false)) => Ok(Value::Off),
            (Kind::Str, v @ Value::Str(_)) => Ok(v),
            (Kind::Enum(values), Value::Str(s)) => {
                if values.contains(&s.as_str()) {
                    Ok(Value::Str(s))
                } else {
                    Err(expected(format!("{s:?}")))
                }
            }
            (Kind::StrList, Value::List(items)) => {
                if let Some(bad) = items.iter().find(|i| !matches!(i, Value::Str(_))) {
                    Err(expected(format!("an element that is {}", bad.type_name())))
                } else {
                    Ok(Value::List(items))
                }
            }
            (_, v) => wrong(&v),
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_strings(&self) -> Option<Vec<String>> {
        match self {
            Value::List(items) => items.iter().map(|i| i.as_str().map(str::to_string)).collect(),
            _ => None,
        }
    }

    /// The value as it would be written in TOML.
    pub fn to_toml_text(&self) -> String {
        match self {
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 1e15 {
                    format!("{f:.1}")
                } else {
                    f.to_string()
                }
            }
            Value::Str(s) => toml_edit::Value::from(s.as_str()).to_string().trim().to_string(),
            Value::List(items) => format!("[{}]", items.iter().map(Value::to_toml_text).collect::<Vec<_>>().join(", ")),
            Value::Table(map) => format!(
                "{{ {} }}",
                map.iter()
                    .map(|(k, v)| format!("{k} = {}", v.to_toml_text()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Off => "false".into(),
        }
    }

    /// The value as JSON.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Off => serde_json::Value::Bool(false),
            other => serde_json::to_value(other).unwrap_or(serde_json::Value::Null),
        }
    }
}
