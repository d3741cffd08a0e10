//! What a host embedder is asked for, as the boundary receives it.

use serde_json::Value;

use super::Fields;
use crate::engine::{ToEmbed, Vectorless, BATCH_MAX};
use crate::error::{Error, Result};

fn items<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>> {
    let Value::Array(list) = v else { return Err(Error::invalid(format!("{what}: expected an array"))) };
    if list.len() > BATCH_MAX {
        return Err(Error::invalid(format!("{what}: {} items; the limit is {BATCH_MAX} per call", list.len())));
    }
    Ok(list)
}

/// `[{content, speaker?, allowSecrets?}]`: texts to show a host embedder.
pub fn parse_to_embed(v: &Value) -> Result<Vec<ToEmbed>> {
    items(v, "embeddingTexts")?
        .iter()
        .map(|item| {
            let f = Fields::of(Some(item), "embeddingTexts item", &["content", "speaker", "allowSecrets"])?.ok_or_else(|| Error::invalid("embeddingTexts: expected {content}"))?;
            let content = f.str("content")?.ok_or_else(|| Error::invalid("embeddingTexts: an item needs `content`"))?;
            Ok(ToEmbed { content: content.to_string(), speaker: f.str("speaker")?.map(str::to_string), allow_secrets: f.bool("allowSecrets")?.unwrap_or(false) })
        })
        .collect()
}

/// `[{id, text}]` as `vectorless` listed them.
pub fn parse_vectorless(v: &Value) -> Result<Vec<Vectorless>> {
    items(v, "setVectors")?
        .iter()
        .map(|item| {
            let f = Fields::of(Some(item), "setVectors item", &["id", "text"])?.ok_or_else(|| Error::invalid("setVectors: expected {id, text}"))?;
            match (f.str("id")?, f.str("text")?) {
                (Some(id), Some(text)) => Ok(Vectorless { id: id.to_string(), text: text.to_string() }),
                _ => Err(Error::invalid("setVectors: an item needs `id` and `text`")),
            }
        })
        .collect()
}
