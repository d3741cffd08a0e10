//! Text → BERT WordPiece ids, with the `tokenizers` crate reading the model's own `tokenizer.json`.
//!
//! The file ships with fixed padding to 128 and truncation at 128 (its export settings); the sentence
//! model was trained with 256 word pieces, so both are overridden here: truncation at [`MAX_TOKENS`]
//! (including `[CLS]` and `[SEP]`) and no padding. Padding to the batch's longest sequence is done by
//! [`Batch::pad`] instead of by `encode_batch`, because that one goes through rayon, which has no
//! threads on wasm32.

use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::error::{Error, Result};

/// Longest input the model sees, in word pieces including `[CLS]` and `[SEP]`; longer text is cut.
pub const MAX_TOKENS: usize = 256;

/// A loaded WordPiece tokenizer with the engine's truncation and padding settings.
pub(crate) struct WordPiece {
    inner: Tokenizer,
}

/// One tokenized text: its ids and segment ids, unpadded.
pub(crate) struct Tokens {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
}

impl Tokens {
    /// Word pieces other than the `[CLS]`/`[SEP]` frame: zero means the text had nothing to embed.
    pub fn content_len(&self) -> usize {
        self.ids.len().saturating_sub(2)
    }
}

impl WordPiece {
    pub fn from_bytes(tokenizer_json: &[u8]) -> Result<Self> {
        let mut inner = Tokenizer::from_bytes(tokenizer_json).map_err(|e| Error::invalid(format!("tokenizer.json does not parse: {e}")))?;
        inner.with_padding(None);
        inner
            .with_truncation(Some(TruncationParams { direction: TruncationDirection::Right, max_length: MAX_TOKENS, strategy: TruncationStrategy::LongestFirst, stride: 0 }))
            .map_err(|e| Error::invalid(format!("tokenizer.json rejects truncation at {MAX_TOKENS}: {e}")))?;
        Ok(WordPiece { inner })
    }

    /// Tokenizes one text with `[CLS] … [SEP]` added, truncated to [`MAX_TOKENS`].
    pub fn encode(&self, text: &str) -> Result<Tokens> {
        // encode_fast skips character offsets, which nothing here needs; the ids are the same.
        let enc = self.inner.encode_fast(text, true).map_err(|e| Error::embedder(format!("tokenization failed: {e}")))?;
        Ok(Tokens { ids: enc.get_ids().to_vec(), type_ids: enc.get_type_ids().to_vec() })
    }
}

/// A batch padded to its longest member, flattened row-major as the ONNX inputs want them.
pub(crate) struct Batch {
    pub rows: usize,
    pub seq: usize,
    pub input_ids: Vec<i64>,
    pub attention_mask: Vec<i64>,
    pub token_type_ids: Vec<i64>,
}

impl Batch {
    /// Right-pads with id 0 (`[PAD]`), mask 0 and segment 0, as the tokenizer's own padding would.
    pub fn pad(items: &[&Tokens]) -> Batch {
        let rows = items.len();
        let seq = items.iter().map(|t| t.ids.len()).max().unwrap_or(0);
        let mut b = Batch { rows, seq, input_ids: vec![0; rows * seq], attention_mask: vec![0; rows * seq], token_type_ids: vec![0; rows * seq] };
        for (r, t) in items.iter().enumerate() {
            for (c, (&id, &ty)) in t.ids.iter().zip(&t.type_ids).enumerate() {
                b.input_ids[r * seq + c] = i64::from(id);
                b.attention_mask[r * seq + c] = 1;
                b.token_type_ids[r * seq + c] = i64::from(ty);
            }
        }
        b
    }
}
