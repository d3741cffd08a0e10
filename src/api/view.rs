//! Records as callers see them: the model's own serde form with its times as ISO-8601 strings, the
//! optional `nullable` fields present as `null`, and a few `extra` fields appended. The view runs the
//! record's `Serialize` through a serializer that rewrites those fields on their way to the output,
//! so a view can be written straight to JSON text (no `Value` tree built and dropped per record: the
//! bulk of a 100k-item `addMany` result once) and it follows the model field for field as it grows.

use crate::model::time::to_iso;
use serde::ser::{self, Error as _, Impossible, Serialize, SerializeStruct, Serializer};
use serde_json::Value;

/// Which of a record's fields a view rewrites.
pub struct Shape {
    /// Millisecond timestamps, shown as ISO-8601 strings.
    pub times: &'static [&'static str],
    /// Optional fields the persisted form skips when unset; callers see them as `null`.
    pub nullable: &'static [&'static str],
}

pub const MEMORY: Shape = Shape { times: &["createdAt", "modifiedAt", "lastAccessed", "eventAt"], nullable: &["source", "eventAt"] };
pub const RAW: Shape = Shape { times: &["date", "createdAt"], nullable: &["speaker", "turnId", "date"] };
pub const HISTORY: Shape = Shape { times: &["at"], nullable: &["content", "previousContent"] };

/// `record` as callers see it, plus `extra` fields after its own.
pub struct View<'a, T> {
    pub record: &'a T,
    pub shape: &'a Shape,
    pub extra: &'a [(&'static str, Value)],
}

impl<T: Serialize> Serialize for View<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.record.serialize(Rewrite { inner: s, shape: self.shape, extra: self.extra })
    }
}

/// A serializer for one record (a struct): hands every field to `inner`, rewriting times and
/// filling nulls. Anything but a struct is refused — model records are structs.
struct Rewrite<'a, S> {
    inner: S,
    shape: &'a Shape,
    extra: &'a [(&'static str, Value)],
}

/// The rewriting field writer; `seen` notes which `nullable` fields the record wrote itself.
struct Fields<'a, S> {
    inner: S,
    shape: &'a Shape,
    extra: &'a [(&'static str, Value)],
    seen: u64,
}

impl<S: SerializeStruct> SerializeStruct for Fields<'_, S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), S::Error> {
        if let Some(i) = self.shape.nullable.iter().position(|k| *k == key) {
            self.seen |= 1 << i;
        }
        if !self.shape.times.contains(&key) {
            return self.inner.serialize_field(key, value);
        }
        // A time is a number (or an unset option): read it back, cheaply, to write it as text.
        match serde_json::to_value(value).map_err(S::Error::custom)? {
            Value::Number(n) => match n.as_i64() {
                Some(ms) => self.inner.serialize_field(key, &to_iso(ms)),
                None => self.inner.serialize_field(key, &n),
            },
            other => self.inner.serialize_field(key, &other),
        }
    }

    fn end(mut self) -> Result<S::Ok, S::Error> {
        for (i, key) in self.shape.nullable.iter().enumerate() {
            if self.seen & (1 << i) == 0 {
                self.inner.serialize_field(key, &Value::Null)?;
            }
        }
        for (key, value) in self.extra {
            self.inner.serialize_field(key, value)?;
        }
        self.inner.end()
    }
}

fn not_a_struct<E: ser::Error>() -> E {
    E::custom("a record view serializes structs only")
}

macro_rules! refuse {
    ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ret, S::Error> { Err(not_a_struct()) })*
    };
}

impl<'a, S: Serializer> Serializer for Rewrite<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Impossible<S::Ok, S::Error>;
    type SerializeStruct = Fields<'a, S::SerializeStruct>;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        let added = self.shape.nullable.len() + self.extra.len();
        Ok(Fields { inner: self.inner.serialize_struct(name, len + added)?, shape: self.shape, extra: self.extra, seen: 0 })
    }

    refuse! {
        serialize_bool(bool) -> S::Ok;
        serialize_i8(i8) -> S::Ok;
        serialize_i16(i16) -> S::Ok;
        serialize_i32(i32) -> S::Ok;
        serialize_i64(i64) -> S::Ok;
        serialize_u8(u8) -> S::Ok;
        serialize_u16(u16) -> S::Ok;
        serialize_u32(u32) -> S::Ok;
        serialize_u64(u64) -> S::Ok;
        serialize_f32(f32) -> S::Ok;
        serialize_f64(f64) -> S::Ok;
        serialize_char(char) -> S::Ok;
        serialize_str(&str) -> S::Ok;
        serialize_bytes(&[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(&'static str) -> S::Ok;
        serialize_unit_variant(&'static str, u32, &'static str) -> S::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<S::Ok, S::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<S::Ok, S::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result<S::Ok, S::Error> {
        Err(not_a_struct())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Memory;

    fn memory() -> Memory {
        serde_json::from_value(serde_json::json!({
            "id": "m1", "namespace": "default", "content": "likes \"tea\"", "importance": 0.5, "tags": ["t"],
            "createdAt": 0, "modifiedAt": 1000, "lastAccessed": 86_400_000, "eventAt": 1_700_000_000_123i64,
            "metadata": {"k": [1, {"createdAt": 5}]}, "links": ["m0"],
        }))
        .expect("a memory")
    }

    #[test]
    fn text_and_tree_agree_and_rewrite_only_the_top_level() {
        let m = memory();
        let extra = [("deduplicated", Value::Bool(true))];
        let view = View { record: &m, shape: &MEMORY, extra: &extra };
        let tree = serde_json::to_value(&view).expect("a tree");
        let text: Value = serde_json::from_str(&serde_json::to_string(&view).expect("text")).expect("valid JSON");
        assert_eq!(tree, text);
        assert_eq!(tree["createdAt"], "1970-01-01T00:00:00.000Z");
        assert_eq!(tree["eventAt"], "2023-11-14T22:13:20.123Z");
        assert_eq!(tree["source"], Value::Null);
        assert_eq!(tree["deduplicated"], true);
        assert_eq!(tree["content"], "likes \"tea\"");
        // A nested `createdAt` (host metadata) is the host's, left as it was.
        assert_eq!(tree["metadata"]["k"][1]["createdAt"], 5);
        // Every other field is the model's own serialization.
        let plain = serde_json::to_value(&m).expect("plain");
        for (k, v) in plain.as_object().expect("an object") {
            if !MEMORY.times.contains(&k.as_str()) {
                assert_eq!(&tree[k], v, "{k}");
            }
        }
    }

    #[test]
    fn an_unset_time_is_null_and_a_non_struct_is_refused() {
        let m = Memory { event_at: None, ..memory() };
        let tree = serde_json::to_value(View { record: &m, shape: &MEMORY, extra: &[] }).expect("a tree");
        assert_eq!(tree["eventAt"], Value::Null);
        assert!(serde_json::to_string(&View { record: &3u32, shape: &MEMORY, extra: &[] }).is_err());
    }
}
