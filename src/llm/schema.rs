//! A strict validator for the JSON-Schema subset the prompts use: `type` (a name or a list of names),
//! `properties`, `required`, `additionalProperties`, `enum`, `items`, `minItems`/`maxItems`,
//! `minLength`/`maxLength` (in characters), `minimum`/`maximum`. Stricter than JSON Schema where the
//! prompts need it: an object's unknown fields are rejected unless `additionalProperties` is `true`.
//! Errors name the path of the offending value, so the retry can tell the model what to fix.

use serde_json::Value;

#[cfg(test)]
const KEYWORDS: &[&str] =
    &["type", "properties", "required", "additionalProperties", "enum", "items", "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "description"];

/// Checks that a schema uses only the keywords this validator enforces (a keyword it ignored would
/// be a check silently not made).
#[cfg(test)]
pub fn check_schema_supported(schema: &Value) -> Result<(), String> {
    let Value::Object(map) = schema else { return Err("a schema must be an object".into()) };
    for (key, sub) in map {
        if !KEYWORDS.contains(&key.as_str()) {
            return Err(format!("unsupported schema keyword `{key}`"));
        }
        match key.as_str() {
            "properties" => {
                for s in sub.as_object().ok_or("`properties` must be an object")?.values() {
                    check_schema_supported(s)?;
                }
            }
            "items" => check_schema_supported(sub)?,
            _ => {}
        }
    }
    Ok(())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(v: &Value, name: &str) -> bool {
    match name {
        "integer" => v.as_f64().is_some_and(|x| x.fract() == 0.0),
        "number" => v.is_number(),
        other => type_name(v) == other,
    }
}

fn bound(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

/// Checks `value` against `schema`; the error names the first offending path (`$.memories[2].kind`).
pub fn validate(value: &Value, schema: &Value) -> Result<(), String> {
    check(value, schema, "$")
}

fn check(value: &Value, schema: &Value, path: &str) -> Result<(), String> {
    if let Some(t) = schema.get("type") {
        let names: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !names.iter().any(|n| has_type(value, n)) {
            return Err(format!("{path}: expected {}, got {}", names.join(" or "), type_name(value)));
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum") {
        if !allowed.contains(value) {
            let shown: Vec<String> = allowed.iter().take(8).map(Value::to_string).collect();
            let more = if allowed.len() > 8 { ", …" } else { "" };
            return Err(format!("{path}: {} is not one of {}{more}", short(value), shown.join(", ")));
        }
    }
    match value {
        Value::String(s) => {
            let chars = s.chars().count() as f64;
            if bound(schema, "maxLength").is_some_and(|m| chars > m) {
                return Err(format!("{path}: string of {chars} characters is longer than {}", bound(schema, "maxLength").unwrap_or(0.0)));
            }
            if bound(schema, "minLength").is_some_and(|m| chars < m) {
                return Err(format!("{path}: string is shorter than {} characters", bound(schema, "minLength").unwrap_or(0.0)));
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if bound(schema, "minimum").is_some_and(|m| x < m) || bound(schema, "maximum").is_some_and(|m| x > m) {
                return Err(format!("{path}: {x} is outside {}..{}", bound(schema, "minimum").unwrap_or(f64::NEG_INFINITY), bound(schema, "maximum").unwrap_or(f64::INFINITY)));
            }
        }
        Value::Array(items) => {
            let n = items.len() as f64;
            if bound(schema, "maxItems").is_some_and(|m| n > m) {
                return Err(format!("{path}: {n} items; at most {} allowed", bound(schema, "maxItems").unwrap_or(0.0)));
            }
            if bound(schema, "minItems").is_some_and(|m| n < m) {
                return Err(format!("{path}: {n} items; at least {} needed", bound(schema, "minItems").unwrap_or(0.0)));
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item, item_schema, &format!("{path}[{i}]"))?;
                }
            }
        }
        Value::Object(map) => {
            let empty = serde_json::Map::new();
            let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
            if let Some(Value::Array(required)) = schema.get("required") {
                for key in required.iter().filter_map(Value::as_str) {
                    if !map.contains_key(key) {
                        return Err(format!("{path}: missing required field `{key}`"));
                    }
                }
            }
            let open = schema.get("additionalProperties") == Some(&Value::Bool(true));
            for (key, v) in map {
                match properties.get(key) {
                    Some(sub) => check(v, sub, &format!("{path}.{key}"))?,
                    None if open => {}
                    None => return Err(format!("{path}: unknown field `{}`", crate::model::time::truncate(key, 40))),
                }
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    Ok(())
}

/// A value as shown in an error: short, so a 100 KB string does not travel back to the model.
fn short(v: &Value) -> String {
    crate::model::time::truncate(&v.to_string(), 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object", "additionalProperties": false, "required": ["items"],
            "properties": {
                "items": { "type": "array", "minItems": 1, "maxItems": 2, "items": {
                    "type": "object", "additionalProperties": false, "required": ["kind", "score", "label", "when"],
                    "properties": {
                        "kind": { "type": "string", "enum": ["a", "b"] },
                        "score": { "type": "number", "minimum": 0, "maximum": 1 },
                        "label": { "type": "string", "minLength": 1, "maxLength": 5 },
                        "when": { "type": ["string", "null"] },
                    },
                }},
            },
        })
    }

    fn item() -> Value {
        json!({ "kind": "a", "score": 0.5, "label": "ok", "when": null })
    }

    #[test]
    fn accepts_a_valid_value() {
        assert_eq!(validate(&json!({ "items": [item()] }), &schema()), Ok(()));
        assert_eq!(check_schema_supported(&schema()), Ok(()));
    }

    #[test]
    fn rejects_each_kind_of_violation_with_its_path() {
        let cases = [
            (json!({ "items": [item()], "extra": 1 }), "unknown field `extra`"),
            (json!({}), "missing required field `items`"),
            (json!({ "items": [] }), "at least 1"),
            (json!({ "items": [item(), item(), item()] }), "at most 2"),
            (json!({ "items": [{ "kind": "c", "score": 0.5, "label": "ok", "when": null }] }), "$.items[0].kind"),
            (json!({ "items": [{ "kind": "a", "score": 1.5, "label": "ok", "when": null }] }), "outside"),
            (json!({ "items": [{ "kind": "a", "score": "1", "label": "ok", "when": null }] }), "expected number"),
            (json!({ "items": [{ "kind": "a", "score": 0.1, "label": "toolong", "when": null }] }), "longer than 5"),
            (json!({ "items": [{ "kind": "a", "score": 0.1, "label": "", "when": null }] }), "shorter"),
            (json!({ "items": [{ "kind": "a", "score": 0.1, "label": "x", "when": 3 }] }), "expected string or null"),
            (json!({ "items": [{ "kind": "a", "score": 0.1, "label": "x", "when": null, "y": 1 }] }), "$.items[0]: unknown field `y`"),
            (json!([]), "expected object"),
        ];
        for (value, wanted) in cases {
            let err = validate(&value, &schema()).expect_err("invalid");
            assert!(err.contains(wanted), "{err} lacks {wanted}");
        }
    }

    #[test]
    fn errors_stay_short_for_huge_values() {
        let huge = "x".repeat(100_000);
        let err = validate(&json!({ "items": [{ "kind": huge, "score": 0.1, "label": "x", "when": null }] }), &schema()).expect_err("invalid");
        assert!(err.len() < 300, "{}", err.len());
    }

    #[test]
    fn unsupported_keywords_are_refused() {
        assert!(check_schema_supported(&json!({ "type": "string", "pattern": "x" })).is_err());
        assert!(check_schema_supported(&json!({ "properties": { "a": { "oneOf": [] } } })).is_err());
    }
}
