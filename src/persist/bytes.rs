//! Little-endian writer and a bounds-checked reader for record bodies. The reader never panics and
//! never allocates more than the bytes it has left: lengths come from untrusted input.

use crate::error::{Error, Result};

#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Length-prefixed bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.buf.extend_from_slice(b);
    }
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// A serde value as length-prefixed JSON (records keep loading as fields are added).
    pub fn json<T: serde::Serialize>(&mut self, v: &T) {
        let start = self.buf.len();
        self.u32(0);
        // Engine records always serialize (string keys, finite numbers).
        let _ = serde_json::to_writer(&mut self.buf, v);
        let len = (self.buf.len() - start - 4) as u32;
        self.buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
    }
    /// An optional vector as a flag, a count and raw f32 LE values (bit-exact, 4 bytes each).
    pub fn vector(&mut self, v: Option<&[f32]>) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                self.u32(v.len() as u32);
                self.buf.reserve(v.len() * 4);
                for x in v {
                    self.buf.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
    }
}

pub struct Reader<'a> {
    rest: &'a [u8],
}

fn short() -> Error {
    Error::corrupt("record body ends early")
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }
    /// Bytes left: bounds any capacity taken from an untrusted count.
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.rest.len() {
            return Err(short());
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    pub fn str(&mut self) -> Result<String> {
        std::str::from_utf8(self.bytes()?).map(str::to_string).map_err(|_| Error::corrupt("record text is not UTF-8"))
    }
    pub fn json<T: serde::de::DeserializeOwned>(&mut self, what: &str) -> Result<T> {
        serde_json::from_slice(self.bytes()?).map_err(|e| Error::corrupt(format!("stored {what} does not parse: {e}")))
    }
    pub fn vector(&mut self) -> Result<Option<Vec<f32>>> {
        match self.u8()? {
            0 => Ok(None),
            1 => {
                let n = self.u32()? as usize;
                let raw = self.take(n.checked_mul(4).ok_or_else(short)?)?;
                Ok(Some(raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()))
            }
            t => Err(Error::corrupt(format!("bad vector flag {t}"))),
        }
    }
}
