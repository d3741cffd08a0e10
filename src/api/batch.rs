//! Parsing of batch calls: `addMany(items)` and `ingestMany(sessions)`. Each item is parsed as its
//! single call parses it; an error names the item's index.

use crate::engine::{NewMemory, SessionInput};
use crate::error::{Error, Result};
use serde_json::Value;

fn items<'a>(v: &'a Value, what: &str) -> Result<&'a [Value]> {
    match v {
        Value::Array(items) => Ok(items),
        _ => Err(Error::invalid(format!("{what}: expected an array"))),
    }
}

fn at(what: &str, i: usize, e: Error) -> Error {
    Error::new(e.code, format!("{what}[{i}]: {}", e.message))
}

/// `addMany` items; `vectors` holds the vectors of the items listed in `with_vector` (ascending item
/// indexes), one after another, all of one length (as a host embedder made them, or the callers').
pub fn parse_add_many(v: &Value, vectors: &[f32], with_vector: &[u32]) -> Result<Vec<NewMemory>> {
    let list = items(v, "addMany")?;
    let mut out: Vec<NewMemory> = list.iter().enumerate().map(|(i, item)| super::parse_add(item).map_err(|e| at("items", i, e))).collect::<Result<_>>()?;
    if with_vector.is_empty() {
        return if vectors.is_empty() { Ok(out) } else { Err(Error::invalid("addMany: vectors given for no item")) };
    }
    if vectors.len() % with_vector.len() != 0 || vectors.is_empty() {
        return Err(Error::invalid(format!("addMany: {} vector values do not split into {} vectors", vectors.len(), with_vector.len())));
    }
    let dims = vectors.len() / with_vector.len();
    let mut last: Option<u32> = None;
    for (k, &i) in with_vector.iter().enumerate() {
        if last.is_some_and(|l| i <= l) || i as usize >= out.len() {
            return Err(Error::invalid("addMany: vector item indexes must ascend within the items"));
        }
        last = Some(i);
        out[i as usize].embedding = Some(vectors[k * dims..(k + 1) * dims].to_vec());
    }
    Ok(out)
}

/// `ingestMany` sessions.
pub fn parse_sessions(v: &Value) -> Result<Vec<SessionInput>> {
    items(v, "ingestMany")?.iter().enumerate().map(|(i, s)| super::parse_session(s).map_err(|e| at("sessions", i, e))).collect()
}
