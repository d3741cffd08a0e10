//! The local sentence embedder: all-MiniLM-L6-v2 (int8 ONNX export) run in-process by tract, with its
//! BERT WordPiece tokenizer, producing 384-dimensional unit vectors.
//!
//! Pipeline, one concept per file:
//! - `tokenize`: text → word-piece ids (truncated at [`MAX_TOKENS`]), padded per batch;
//! - `graph`: load-time rewrites of the ONNX graph: embedding rows gathered before they are
//!   dequantized, and linear layers routed to the integer product;
//! - `int8_matmul`: that product, int8 weights times 16-bit activations with 32-bit sums (SIMD);
//! - `int8_op`: the tract operators that run it in the plan;
//! - `runtime`: the tract plan over symbolic `[batch, sequence]` inputs;
//! - `pool`: attention-masked mean pooling and L2 normalization.
//!
//! The model files are fetched by `scripts/fetch-models.sh`; the embedder itself only takes bytes, so the
//! same code runs natively and on wasm32.

mod graph;
mod int8_matmul;
mod int8_op;
mod pool;
mod runtime;
mod tokenize;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::host::Embedder;
use runtime::Runtime;
pub use tokenize::MAX_TOKENS;
use tokenize::{Batch, Tokens, WordPiece};

/// Name in the embedder identity; the weights hash follows it.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2-int8";

/// Texts run through the model together. Texts are grouped by token count first, so a batch is padded
/// to a length close to each of its members; the cap bounds the attention matrices' memory.
const BATCH_ROWS: usize = 16;

/// How the linear layers compute (see [`OnnxEmbedder::with_precision`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// Weights stay int8 and each row of activations is rounded to 16 bits; sums are exact integers.
    /// About 2.7× faster than [`Precision::F32`] on wasm32 and half the memory after load; vectors
    /// have cosine ≥ 0.99999 to the float model's. Vectors from native and wasm builds differ by up to
    /// ~2e-4 per element: the float parts of the model (attention, normalization) round differently
    /// per platform, and a 16-bit rounding step can turn on that difference.
    #[default]
    Int8,
    /// Weights are expanded to f32 at load and every product is a float product: the model as
    /// exported, and native and wasm agree within 1e-6.
    F32,
}

impl Precision {
    /// Parses `"int8"` or `"f32"`.
    pub fn parse(name: &str) -> Result<Precision> {
        match name {
            "int8" => Ok(Precision::Int8),
            "f32" => Ok(Precision::F32),
            other => Err(Error::invalid(format!("unknown embedder precision `{other}`; expected \"int8\" or \"f32\""))),
        }
    }
}

/// all-MiniLM-L6-v2 in ONNX, run locally.
///
/// # Empty input
/// A text with nothing to embed — empty, whitespace only, or only characters the tokenizer drops (control
/// characters) — is rejected: [`Embedder::embed`] returns `InvalidInput` naming the text's index, and
/// embeds nothing of that call. The model would otherwise return the vector of a bare `[CLS] [SEP]`,
/// which is the same for every such text and close to nothing in particular, so recall would silently
/// match it. An empty `texts` slice is fine and returns no vectors.
///
/// # Long input
/// Text beyond [`MAX_TOKENS`] word pieces (roughly 200 English words) is cut; only its beginning is
/// embedded, as sentence-transformers does for this model.
///
/// # Cost (measured on a 2-core x86-64 box, precision int8)
/// Loading and planning takes about 0.15 s natively (1.3 s in Node on wasm32 with simd128). A short
/// sentence (13 word pieces) takes about 6.5 ms natively (≈ 8 ms on wasm32); the time grows with the
/// token count, about 125 ms natively for a full 256-piece text. Batching brings little beyond
/// amortising the per-call overhead.
pub struct OnnxEmbedder {
    id: String,
    tokenizer: WordPiece,
    runtime: Runtime,
}

impl OnnxEmbedder {
    /// Loads the model from the bytes of `model.onnx` and `tokenizer.json`.
    ///
    /// Errors with `InvalidInput` when either file does not parse or the graph lacks the expected
    /// `input_ids`/`attention_mask`/`token_type_ids` inputs or `last_hidden_state` output, and with
    /// `Embedder` when tract cannot plan the graph.
    pub fn from_bytes(model: &[u8], tokenizer_json: &[u8]) -> Result<Self> {
        Self::with_precision(model, tokenizer_json, Precision::default())
    }

    /// [`OnnxEmbedder::from_bytes`] with a choice of how the linear layers compute. Both precisions
    /// give the same [`Embedder::id`]: their vectors are interchangeable for search.
    pub fn with_precision(model: &[u8], tokenizer_json: &[u8], precision: Precision) -> Result<Self> {
        let tokenizer = WordPiece::from_bytes(tokenizer_json)?;
        let runtime = Runtime::load(model, precision)?;
        let hash: String = Sha256::digest(model).iter().map(|b| format!("{b:02x}")).collect();
        Ok(OnnxEmbedder { id: format!("{MODEL_NAME}@{hash}"), tokenizer, runtime })
    }

    /// The word-piece ids the model sees for each text (`[CLS]` … `[SEP]`, truncated, unpadded).
    /// Unlike [`Embedder::embed`] this accepts empty text: it yields `[CLS] [SEP]`.
    pub fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        texts.iter().map(|t| self.tokenizer.encode(t).map(|tokens| tokens.ids)).collect()
    }

    /// How many embedding tables the load-time gather-first rewrite applied to (for diagnostics and
    /// tests; 0 means the graph had no int8 table feeding a `Gather` and runs as exported).
    pub fn gather_first_rewrites(&self) -> usize {
        self.runtime.rewrites
    }

    /// How many of the model's weight products run on int8 weights (36 for all-MiniLM-L6-v2 at
    /// [`Precision::Int8`], 0 at [`Precision::F32`]).
    pub fn int8_matmuls(&self) -> usize {
        self.runtime.int8_matmuls
    }
}

impl Embedder for OnnxEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dims(&self) -> usize {
        self.runtime.dims
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let tokens = texts.iter().map(|t| self.tokenizer.encode(t)).collect::<Result<Vec<Tokens>>>()?;
        if let Some(i) = tokens.iter().position(|t| t.content_len() == 0) {
            return Err(Error::invalid(format!("text {i} has nothing to embed: it is empty, whitespace, or only characters the tokenizer drops")));
        }
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| tokens[i].ids.len());

        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH_ROWS) {
            let members: Vec<&Tokens> = chunk.iter().map(|&i| &tokens[i]).collect();
            let batch = Batch::pad(&members);
            let hidden = self.runtime.run(&batch)?;
            let vectors = pool::mean_pool_normalized(&hidden, &batch.attention_mask, batch.rows, batch.seq, self.runtime.dims);
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}
