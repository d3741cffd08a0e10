//! A compact binary serde format for the HNSW graph (instant-distance exposes its graph only through
//! serde): little-endian integers and floats, u64 length prefixes for sequences and byte strings,
//! nothing for struct/tuple framing or names. Only the shapes the graph uses are supported; anything
//! else is an error. Decoding is bounded by the input: a length prefix larger than the bytes left is
//! rejected before anything is allocated, so corrupt input cannot exhaust memory or panic.

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::{ser, Serialize};
use std::fmt;

#[derive(Debug)]
pub struct CodecError(pub String);

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for CodecError {}
impl ser::Error for CodecError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        CodecError(msg.to_string())
    }
}
impl de::Error for CodecError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        CodecError(msg.to_string())
    }
}

fn unsupported<T>(what: &str) -> Result<T, CodecError> {
    Err(CodecError(format!("graph codec does not support {what}")))
}

pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CodecError> {
    let mut out = Writer(Vec::new());
    value.serialize(&mut out)?;
    Ok(out.0)
}

/// Decodes one value; trailing bytes are an error.
pub fn from_slice<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, CodecError> {
    let mut r = Reader { rest: bytes };
    let v = T::deserialize(&mut r)?;
    if !r.rest.is_empty() {
        return Err(CodecError(format!("{} trailing bytes", r.rest.len())));
    }
    Ok(v)
}

pub struct Writer(Vec<u8>);

impl Writer {
    fn len_prefix(&mut self, len: Option<usize>) -> Result<(), CodecError> {
        let len = len.ok_or_else(|| CodecError("sequence without a known length".into()))?;
        self.0.extend_from_slice(&(len as u64).to_le_bytes());
        Ok(())
    }
}

impl ser::Serializer for &mut Writer {
    type Ok = ();
    type Error = CodecError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = ser::Impossible<(), CodecError>;
    type SerializeMap = ser::Impossible<(), CodecError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = ser::Impossible<(), CodecError>;

    fn serialize_bool(self, v: bool) -> Result<(), CodecError> {
        self.0.push(v as u8);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), CodecError> {
        self.0.push(v as u8);
        Ok(())
    }
    fn serialize_i16(self, _: i16) -> Result<(), CodecError> {
        unsupported("i16")
    }
    fn serialize_i32(self, v: i32) -> Result<(), CodecError> {
        self.0.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<(), CodecError> {
        self.0.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), CodecError> {
        self.0.push(v);
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> Result<(), CodecError> {
        unsupported("u16")
    }
    fn serialize_u32(self, v: u32) -> Result<(), CodecError> {
        self.0.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), CodecError> {
        self.0.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), CodecError> {
        self.0.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), CodecError> {
        self.0.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, _: char) -> Result<(), CodecError> {
        unsupported("char")
    }
    fn serialize_str(self, v: &str) -> Result<(), CodecError> {
        self.serialize_bytes(v.as_bytes())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), CodecError> {
        self.len_prefix(Some(v.len()))?;
        self.0.extend_from_slice(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), CodecError> {
        unsupported("Option")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), CodecError> {
        unsupported("Option")
    }
    fn serialize_unit(self) -> Result<(), CodecError> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), CodecError> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), CodecError> {
        unsupported("enums")
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), CodecError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result<(), CodecError> {
        unsupported("enums")
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, CodecError> {
        self.len_prefix(len)?;
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, CodecError> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, CodecError> {
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeTupleVariant, CodecError> {
        unsupported("enums")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, CodecError> {
        unsupported("maps")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, CodecError> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant, CodecError> {
        unsupported("enums")
    }
}

macro_rules! element_impl {
    ($trait:ident, $method:ident $(, $key:ident)?) => {
        impl ser::$trait for &mut Writer {
            type Ok = ();
            type Error = CodecError;
            fn $method<T: Serialize + ?Sized>(&mut self, $($key: &'static str,)? value: &T) -> Result<(), CodecError> {
                $(let _ = $key;)?
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), CodecError> {
                Ok(())
            }
        }
    };
}
element_impl!(SerializeSeq, serialize_element);
element_impl!(SerializeTuple, serialize_element);
element_impl!(SerializeTupleStruct, serialize_field);
element_impl!(SerializeStruct, serialize_field, key);

pub struct Reader<'de> {
    rest: &'de [u8],
}

impl<'de> Reader<'de> {
    fn take(&mut self, n: usize) -> Result<&'de [u8], CodecError> {
        if self.rest.len() < n {
            return Err(CodecError("unexpected end of graph bytes".into()));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], CodecError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    /// A length prefix, checked against the bytes left (every element takes at least one byte…
    /// except units, which the graph does not use).
    fn len(&mut self) -> Result<usize, CodecError> {
        let len = u64::from_le_bytes(self.array()?);
        if len > self.rest.len() as u64 {
            return Err(CodecError(format!("length {len} exceeds the {} bytes left", self.rest.len())));
        }
        Ok(len as usize)
    }
}

struct Elements<'a, 'de> {
    reader: &'a mut Reader<'de>,
    left: usize,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = CodecError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, CodecError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = CodecError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, CodecError> {
        unsupported("self-describing decoding")
    }
    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        match self.array::<1>()?[0] {
            0 => v.visit_bool(false),
            1 => v.visit_bool(true),
            b => Err(CodecError(format!("invalid bool byte {b}"))),
        }
    }
    fn deserialize_i8<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_i8(self.array::<1>()?[0] as i8)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_i32(i32::from_le_bytes(self.array()?))
    }
    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_i64(i64::from_le_bytes(self.array()?))
    }
    fn deserialize_u8<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_u8(self.array::<1>()?[0])
    }
    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_u32(u32::from_le_bytes(self.array()?))
    }
    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_u64(u64::from_le_bytes(self.array()?))
    }
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_f32(f32::from_le_bytes(self.array()?))
    }
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_f64(f64::from_le_bytes(self.array()?))
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        let n = self.len()?;
        v.visit_borrowed_bytes(self.take(n)?)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        self.deserialize_bytes(v)
    }
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        let n = self.len()?;
        let s = std::str::from_utf8(self.take(n)?).map_err(|_| CodecError("invalid UTF-8".into()))?;
        v.visit_borrowed_str(s)
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        self.deserialize_str(v)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        v.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value, CodecError> {
        v.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value, CodecError> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, CodecError> {
        let left = self.len()?;
        v.visit_seq(Elements { reader: self, left })
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, CodecError> {
        v.visit_seq(Elements { reader: self, left: len })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, len: usize, v: V) -> Result<V::Value, CodecError> {
        self.deserialize_tuple(len, v)
    }
    fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], v: V) -> Result<V::Value, CodecError> {
        self.deserialize_tuple(fields.len(), v)
    }

    serde::forward_to_deserialize_any! {
        i16 u16 char option map enum identifier ignored_any i128 u128
    }
}
