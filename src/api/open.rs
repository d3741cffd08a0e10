//! Options of opening a store, as the boundary receives them: the handle's (`new`) and the
//! storage's (`open`).

use serde_json::Value;

use super::Fields;
use crate::error::{Error, Result};
use crate::guard::GuardOptions;
use crate::index::VectorOptions;
use crate::persist::{load::Damage, EmbedderIdentity, DEFAULT_COMPACT_AFTER};

/// `{idSeed?, embedder?: {id, dims}, vectorIndex?, guards?, includeDefault?}` of a new handle.
#[derive(Clone, Debug, Default)]
pub struct HandleOptions {
    pub id_seed: Option<u64>,
    /// The host embedder whose vectors will be passed in.
    pub declared: Option<EmbedderIdentity>,
    pub vectors: VectorOptions,
    pub guards: GuardOptions,
    /// `includeDefault: false`: reads see only their own namespace (`EngineOptions::exclude_default`).
    pub exclude_default: bool,
}

pub fn parse_handle_options(v: Option<&Value>) -> Result<HandleOptions> {
    let Some(f) = Fields::of(v, "open options", &["idSeed", "embedder", "vectorIndex", "guards", "includeDefault"])? else { return Ok(HandleOptions::default()) };
    let field = |key: &str| v.and_then(|o| o.get(key)).filter(|x| !x.is_null());
    Ok(HandleOptions {
        id_seed: f.usize("idSeed")?.map(|s| s as u64),
        declared: field("embedder").map(parse_declared).transpose()?,
        vectors: parse_vector_options(field("vectorIndex"))?,
        guards: super::guards::parse_guard_options(field("guards"))?,
        exclude_default: !f.bool("includeDefault")?.unwrap_or(true),
    })
}

/// `{reembed?, compactAfter?, skipDamaged?}` of attaching storage.
#[derive(Clone, Copy, Debug)]
pub struct StorageOptions {
    pub reembed: bool,
    pub compact_after: usize,
    pub damage: Damage,
}

pub fn parse_storage_options(v: Option<&Value>) -> Result<StorageOptions> {
    let f = Fields::of(v, "open options", &["reembed", "compactAfter", "skipDamaged"])?;
    let get_bool = |key: &str| f.as_ref().map(|f| f.bool(key)).transpose().map(|b| b.flatten().unwrap_or(false));
    Ok(StorageOptions {
        reembed: get_bool("reembed")?,
        compact_after: f.as_ref().map(|f| f.usize("compactAfter")).transpose()?.flatten().unwrap_or(DEFAULT_COMPACT_AFTER),
        damage: if get_bool("skipDamaged")? { Damage::Skip } else { Damage::Refuse },
    })
}

/// `{graphMin?: number, alwaysGraph?: boolean}`: the vector count from which graph segments are
/// built (default 20,000), and whether to keep a graph even where the calibration finds an exact scan
/// as cheap.
fn parse_vector_options(v: Option<&Value>) -> Result<VectorOptions> {
    let mut out = VectorOptions::default();
    if let Some(f) = Fields::of(v, "open options: vectorIndex", &["graphMin", "alwaysGraph"])? {
        out.build.always_graph = f.bool("alwaysGraph")?.unwrap_or(false);
        if let Some(min) = f.usize("graphMin")? {
            if min == 0 {
                return Err(Error::invalid("open options: vectorIndex.graphMin must be at least 1"));
            }
            out.graph_min = min;
        }
    }
    Ok(out)
}

/// `{id, dims}` of a host embedder.
fn parse_declared(v: &Value) -> Result<EmbedderIdentity> {
    let f = Fields::of(Some(v), "open options: embedder", &["id", "dims"])?.ok_or_else(|| Error::invalid("open options: embedder must be an object"))?;
    let model = f.str("id")?.filter(|s| !s.trim().is_empty()).ok_or_else(|| Error::invalid("open options: embedder.id must be a non-empty string"))?;
    let dims = f.usize("dims")?.filter(|d| (1..=65_536).contains(d)).ok_or_else(|| Error::invalid("open options: embedder.dims must be an integer from 1 to 65536"))?;
    Ok(EmbedderIdentity { model: model.to_string(), dims: dims as u32 })
}
