//! The typed view of the effective configuration.

use super::Value;

include!(concat!(env!("OUT_DIR"), "/settings.rs"));

impl Settings {
    /// Deserialises the typed settings (serde, the mapping generated from `keys.rs`) from the
    /// effective values, one per key.
    pub(crate) fn from_values<'a>(get: &dyn Fn(&str) -> Option<&'a Value>) -> Settings {
        let mut tree = serde_json::Map::new();
        for spec in super::registry::KEYS {
            let Some(value) = get(spec.key) else { continue };
            let mut parts = spec.key.split('.').peekable();
            let mut node = &mut tree;
            while let Some(part) = parts.next() {
                if parts.peek().is_none() {
                    node.insert(part.to_string(), value.to_json());
                    break;
                }
                let child = node
                    .entry(part.to_string())
                    .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
                let serde_json::Value::Object(map) = child else { break };
                node = map;
            }
        }
        // Every value was type-checked when read and every key has one (the defaults are always
        // present), so this cannot fail short of a bug in the generator; the defaults stand in.
        serde_json::from_value(serde_json::Value::Object(tree)).unwrap_or_default()
    }
}

/// A number that can be turned off with `false` (`obs.sessionCostAlertUsd`).
pub(super) fn float_or_off<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum FloatOrOff {
        Number(f64),
        Off(bool),
    }
    match <FloatOrOff as serde::Deserialize>::deserialize(d)? {
        FloatOrOff::Number(f) => Ok(Some(f)),
        FloatOrOff::Off(false) => Ok(None),
        FloatOrOff::Off(true) => Err(serde::de::Error::custom("expected a number or false")),
    }
}
