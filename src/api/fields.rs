//! Strict readers for JSON objects coming from callers: unknown keys and wrong types are
//! `InvalidInput` errors naming the key, so a typo never silently does nothing. `null` counts as
//! absent, as JS `undefined` does.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::model::time::{parse_iso, Millis};

pub struct Fields<'a> {
    obj: &'a Map<String, Value>,
    what: &'static str,
    /// The one list of the keys this object may have, which every read must name.
    allowed: &'static [&'static str],
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Keys other memory libraries scope by (mem0's user, agent and run ids): what to write instead.
pub(crate) const SCOPE_KEYS: &[&str] = &["userId", "user_id", "agentId", "agent_id", "runId", "run_id"];

/// For a caller porting code that scopes by `userId` and the like: the Engram form, with its value.
fn scope_hint(key: &str, value: &Value) -> String {
    if !SCOPE_KEYS.contains(&key) {
        return String::new();
    }
    let id = match value {
        Value::String(s) => crate::model::time::truncate(s, 40),
        Value::Number(n) => n.to_string(),
        _ => "…".to_string(),
    };
    format!(". Engram scopes memories by namespace, any id of yours: {{ namespace: \"{id}\" }}")
}

impl<'a> Fields<'a> {
    /// `value` must be an object (or null/absent when `optional`) whose keys are all in `allowed`.
    pub fn of(value: Option<&'a Value>, what: &'static str, allowed: &'static [&'static str]) -> Result<Option<Self>> {
        let obj = match value {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(o)) => o,
            Some(other) => return Err(Error::invalid(format!("{what}: expected an object, got {}", type_name(other)))),
        };
        if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            let hint = if allowed.contains(&"namespace") { scope_hint(k, &obj[k]) } else { String::new() };
            return Err(Error::invalid(format!("{what}: unknown field `{}` (allowed: {}){hint}", crate::model::time::truncate(k, 40), allowed.join(", "))));
        }
        Ok(Some(Fields { obj, what, allowed }))
    }

    /// A read of a key missing from `allowed` would always find nothing (such a key is rejected
    /// first): a parser bug, caught wherever debug assertions are on.
    fn read(&self, key: &str) -> Option<&'a Value> {
        debug_assert!(self.allowed.contains(&key), "{}: reads `{key}`, which is not in its allowed fields", self.what);
        self.obj.get(key)
    }

    pub fn has(&self, key: &str) -> bool {
        self.read(key).is_some()
    }

    /// Present and explicitly null: how a patch clears a field.
    pub fn is_null(&self, key: &str) -> bool {
        matches!(self.read(key), Some(Value::Null))
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.read(key).filter(|v| !v.is_null())
    }

    fn wrong(&self, key: &str, expected: &str, got: &Value) -> Error {
        Error::invalid(format!("{}: `{key}` must be {expected}, got {}", self.what, type_name(got)))
    }

    pub fn str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.wrong(key, "a string", v)),
        }
    }

    pub fn required_str(&self, key: &str) -> Result<&'a str> {
        self.str(key)?.ok_or_else(|| Error::invalid(format!("{}: `{key}` is required", self.what)))
    }

    pub fn f64(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => n.as_f64().map(Some).ok_or_else(|| self.wrong(key, "a finite number", &Value::Null)),
            Some(v) => Err(self.wrong(key, "a number", v)),
        }
    }

    pub fn bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.wrong(key, "a boolean", v)),
        }
    }

    /// A non-negative whole number.
    pub fn usize(&self, key: &str) -> Result<Option<usize>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(u) => Ok(Some(usize::try_from(u).unwrap_or(usize::MAX))),
                None => Err(Error::invalid(format!("{}: `{key}` must be a whole number ≥ 0, got {n}", self.what))),
            },
            Some(v) => Err(self.wrong(key, "a whole number", v)),
        }
    }

    pub fn str_list(&self, key: &str) -> Result<Option<Vec<String>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(Error::invalid(format!("{}: every `{key}` entry must be a string, got {}", self.what, type_name(other)))),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Some(v) => Err(self.wrong(key, "an array of strings", v)),
        }
    }

    pub fn object(&self, key: &str) -> Result<Option<Map<String, Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o.clone())),
            Some(v) => Err(self.wrong(key, "an object", v)),
        }
    }

    pub fn f32_list(&self, key: &str) -> Result<Option<Vec<f32>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| i.as_f64().map(|x| x as f32).ok_or_else(|| Error::invalid(format!("{}: `{key}` must contain only numbers", self.what))))
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Some(v) => Err(self.wrong(key, "an array of numbers", v)),
        }
    }

    /// A date as an ISO-8601 string or as milliseconds since the epoch.
    pub fn date(&self, key: &str) -> Result<Option<Millis>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => parse_iso(s).map(Some).map_err(|e| Error::invalid(format!("{}: `{key}`: {}", self.what, e.message))),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(x) if x.is_finite() && x.abs() < 8.64e15 => Ok(Some(x as Millis)),
                _ => Err(Error::invalid(format!("{}: `{key}` is out of the date range", self.what))),
            },
            Some(v) => Err(self.wrong(key, "an ISO date string or milliseconds", v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unknown_scope_key_names_the_namespace_form_with_its_value() {
        const ALLOWED: &[&str] = &["content", "namespace"];
        let e = Fields::of(Some(&json!({"content": "x", "userId": "alice"})), "add", ALLOWED).err().expect("refused");
        assert!(e.message.contains("unknown field `userId`"), "{}", e.message);
        assert!(e.message.contains(r#"{ namespace: "alice" }"#), "{}", e.message);
        let e = Fields::of(Some(&json!({"user_id": 42})), "search options", ALLOWED).err().expect("refused");
        assert!(e.message.contains(r#"{ namespace: "42" }"#), "{}", e.message);
        // Other unknown keys, and readers that take no namespace, get no hint.
        assert!(!Fields::of(Some(&json!({"colour": 1})), "add", ALLOWED).err().expect("refused").message.contains("namespace:"));
        assert!(!Fields::of(Some(&json!({"userId": "a"})), "x", &["content"]).err().expect("refused").message.contains("Engram scopes"));
    }
}
