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

/// Per-item vectors sent end to end in one buffer (`addMany`, the facade's group commit): `dims[i]` is
/// item i's length, -1 for none. The engine checks each vector's dimensions as `add` does.
pub fn split_vectors(vectors: &[f32], dims: &[i32], what: &str) -> Result<Vec<Option<Vec<f32>>>> {
    let mut at = 0usize;
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let Ok(len) = usize::try_from(d) else {
            out.push(None);
            continue;
        };
        let end = at.checked_add(len).filter(|&end| end <= vectors.len()).ok_or_else(|| Error::invalid(format!("{what}: the vectors are shorter than their lengths say")))?;
        out.push(Some(vectors[at..end].to_vec()));
        at = end;
    }
    if at != vectors.len() {
        return Err(Error::invalid(format!("{what}: the vectors are longer than their lengths say")));
    }
    Ok(out)
}

/// `addMany` items with their vectors (see [`split_vectors`]).
pub fn parse_add_many(v: &Value, vectors: &[f32], dims: &[i32]) -> Result<Vec<NewMemory>> {
    let list = items(v, "addMany")?;
    if dims.len() != list.len() {
        return Err(Error::invalid("addMany: one vector length per item"));
    }
    let split = split_vectors(vectors, dims, "addMany")?;
    list.iter()
        .zip(split)
        .enumerate()
        .map(|(i, (item, vector))| {
            let mut req = super::parse_add(item).map_err(|e| at("items", i, e))?;
            if vector.is_some() {
                req.embedding = vector;
            }
            Ok(req)
        })
        .collect()
}

/// `ingestMany` sessions.
pub fn parse_sessions(v: &Value) -> Result<Vec<SessionInput>> {
    items(v, "ingestMany")?.iter().enumerate().map(|(i, s)| super::parse_session(s).map_err(|e| at("sessions", i, e))).collect()
}
