//! An export file read in slices, as it arrives (a file stream, a network body): each operation is
//! decoded once its bytes are all there and goes straight into the image, so the reader holds the
//! decoded records and at most one operation's bytes, never the file. The checks are those of a
//! whole file: header, body length, every operation (records only), the CRC-32C over everything,
//! nothing after the trailer, then the decoded state's own check.

use super::export::Exported;
use super::image::Image;
use super::ops::{self, Op};
use super::record::{self, RecordKind, HEADER, TRAILER};
use crate::digest::crc32c_extend;
use crate::error::{Error, Result};

#[derive(Default)]
pub struct ExportReader {
    /// Header bytes (then trailer bytes) collected so far.
    frame: Vec<u8>,
    /// Body length from the header, once it is read.
    body_len: Option<usize>,
    /// Body bytes taken so far (decoded or pending).
    body_seen: usize,
    /// The start of an operation whose bytes are not all there yet.
    pending: Vec<u8>,
    /// CRC-32C of every byte before the trailer taken so far.
    crc: u32,
    image: Image,
    /// The first defect: every later call reports it again.
    failed: Option<Error>,
}

fn ends_early() -> Error {
    Error::corrupt("the export file ends early (cut short or torn)")
}

impl ExportReader {
    pub fn new() -> Self {
        ExportReader::default()
    }

    /// Takes the next slice of the file. A defect is reported as soon as it is seen (`Corrupt`; a
    /// file over the import size limit is `InvalidInput`).
    pub fn push(&mut self, bytes: &[u8]) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let out = self.take(bytes);
        if let Err(e) = &out {
            self.failed = Some(e.clone());
            self.image = Image::default();
            self.pending = Vec::new();
        }
        out
    }

    fn take(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let Some(body_len) = self.body_len else {
                let n = (HEADER - self.frame.len()).min(bytes.len());
                self.frame.extend_from_slice(&bytes[..n]);
                self.crc = crc32c_extend(self.crc, &bytes[..n]);
                bytes = &bytes[n..];
                if self.frame.len() == HEADER {
                    self.read_header()?;
                }
                continue;
            };
            if self.body_seen < body_len {
                let n = (body_len - self.body_seen).min(bytes.len());
                self.crc = crc32c_extend(self.crc, &bytes[..n]);
                self.body(&bytes[..n])?;
                self.body_seen += n;
                bytes = &bytes[n..];
                if self.body_seen == body_len && !self.pending.is_empty() {
                    return Err(ends_early());
                }
                continue;
            }
            let n = (TRAILER - self.frame.len()).min(bytes.len());
            if n < bytes.len() {
                return Err(Error::corrupt("bytes follow the end of the export file"));
            }
            self.frame.extend_from_slice(bytes);
            bytes = &[];
        }
        Ok(())
    }

    fn read_header(&mut self) -> Result<()> {
        let mut h = [0u8; HEADER];
        h.copy_from_slice(&self.frame);
        let (kind, _, len) = record::decode_header(&h)?;
        if kind != RecordKind::Export {
            return Err(Error::corrupt(format!("expected a {:?} record, found {kind:?}", RecordKind::Export)));
        }
        crate::model::validate::import_bytes(HEADER + len + TRAILER)?;
        self.body_len = Some(len);
        self.frame.clear();
        Ok(())
    }

    /// Decodes the whole operations in `pending` + `bytes`, keeping the rest for the next slice.
    fn body(&mut self, bytes: &[u8]) -> Result<()> {
        let joined;
        let buf: &[u8] = if self.pending.is_empty() {
            bytes
        } else {
            self.pending.extend_from_slice(bytes);
            joined = std::mem::take(&mut self.pending);
            &joined
        };
        let mut at = 0;
        while let Some(len) = ops::record_op_len(&buf[at..])? {
            let op = ops::decode_one(&buf[at..at + len])?;
            if matches!(op, Op::Reset | Op::DeleteMemory(_) | Op::DeleteRaw(_) | Op::ForgetHistoryText(_) | Op::KeywordTerms(_)) {
                return Err(Error::corrupt("an export file holds only records, not changes"));
            }
            self.image.apply(op);
            at += len;
        }
        self.pending = buf[at..].to_vec();
        Ok(())
    }

    /// The decoded file, once all of it was pushed and it checks out.
    pub fn finish(self) -> Result<Exported> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let Some(body_len) = self.body_len else {
            return Err(Error::corrupt(format!("record of {} bytes is shorter than its header", self.frame.len())));
        };
        if self.body_seen < body_len || self.frame.len() < TRAILER {
            return Err(ends_early());
        }
        let stored = u32::from_le_bytes([self.frame[0], self.frame[1], self.frame[2], self.frame[3]]);
        if stored != self.crc {
            return Err(Error::corrupt("record checksum mismatch (torn or damaged)"));
        }
        let (state, identity, _) = self.image.into_state();
        state.check()?;
        Ok(Exported { state, identity, body_bytes: body_len })
    }
}

#[cfg(test)]
mod tests {
    use super::ExportReader;
    use crate::error::ErrorCode;
    use crate::persist::export::decode_export;
    use crate::persist::ops::OpWriter;
    use crate::persist::record::{self, RecordKind};
    use crate::persist::EmbedderIdentity;

    fn file() -> Vec<u8> {
        let mut w = OpWriter::default();
        w.embedder(&EmbedderIdentity { model: "m".into(), dims: 2 });
        let mut body = w.into_bytes();
        // Two memories (with their history) as an engine writes them.
        let mut engine = crate::engine::Engram::new(Box::new(crate::host::ManualClock::new(1_700_000_000_000)), Default::default());
        engine.add(crate::engine::NewMemory { content: "alpha fact".into(), embedding: Some(vec![0.6, 0.8]), ..Default::default() }).unwrap();
        engine.add(crate::engine::NewMemory { content: "beta fact".into(), embedding: Some(vec![1.0, 0.0]), ..Default::default() }).unwrap();
        body.extend_from_slice(&crate::persist::export::state_ops(&engine, None, None).into_bytes());
        record::encode(RecordKind::Export, 0, &body)
    }

    fn feed(bytes: &[u8], slice: usize) -> crate::error::Result<super::Exported> {
        let mut r = ExportReader::new();
        for part in bytes.chunks(slice.max(1)) {
            r.push(part)?;
        }
        r.finish()
    }

    #[test]
    fn any_slicing_reads_what_the_whole_file_reads() {
        let bytes = file();
        let whole = decode_export(&bytes).unwrap();
        for slice in [1, 2, 3, 7, 19, 20, 21, 64, bytes.len() - 1, bytes.len()] {
            let got = feed(&bytes, slice).unwrap();
            assert!(got.state == whole.state, "slice {slice}");
            assert_eq!(got.identity, whole.identity);
            assert_eq!(got.state.memories.len(), 2);
        }
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_refused() {
        let bytes = file();
        for cut in 0..bytes.len() {
            let e = feed(&bytes[..cut], 5).err().unwrap_or_else(|| panic!("a file cut at {cut} was accepted"));
            assert_eq!(e.code, ErrorCode::Corrupt, "cut at {cut}: {e}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(feed(&bad, 13).is_err(), "a flipped byte at {at} was accepted");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(feed(&longer, 8).err().unwrap().code, ErrorCode::Corrupt);
    }

    #[test]
    fn a_change_operation_is_refused() {
        let mut w = OpWriter::default();
        w.delete_memory("x");
        let bytes = record::encode(RecordKind::Export, 0, &w.into_bytes());
        assert_eq!(feed(&bytes, 3).err().unwrap().code, ErrorCode::Corrupt);
    }
}
