//! Persisted vector graph segments. A segment is derived data — the records alone rebuild it — so
//! its records live beside the store's chain, never in it: a missing, torn or damaged segment is
//! skipped on open (its vectors are scanned exactly until the next build), never an error.
//!
//! Keys (`keys.rs`): one per segment, and the list of current segments, written after the segments
//! it names and before the ones it drops are removed. Values: CRC-32C (little endian) of the body,
//! then the body — for a segment, a JSON array of the record id of each point, a newline, and the
//! graph's own framed bytes; for the list, JSON `{"v":1,"segments":[["memories","<id>"], …]}`.

use crate::digest::crc32c;
use crate::engine::VectorTarget;

const LIST_VERSION: u32 = 1;

fn seal(body: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&crc32c(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

fn open(bytes: &[u8]) -> Option<&[u8]> {
    let (crc, body) = bytes.split_at_checked(4)?;
    (u32::from_le_bytes(crc.try_into().ok()?) == crc32c(body)).then_some(body)
}

pub fn encode_segment(ids: &[String], graph: &[u8]) -> Vec<u8> {
    let mut body = serde_json::to_vec(ids).expect("strings serialize");
    body.push(b'\n');
    body.extend_from_slice(graph);
    seal(body)
}

/// The record ids and graph bytes of a segment value; `None` if it is torn or damaged.
pub fn decode_segment(bytes: &[u8]) -> Option<(Vec<String>, &[u8])> {
    let body = open(bytes)?;
    let at = body.iter().position(|&b| b == b'\n')?;
    let ids: Vec<String> = serde_json::from_slice(&body[..at]).ok()?;
    Some((ids, &body[at + 1..]))
}

pub fn encode_list(segments: &[(VectorTarget, u64)]) -> Vec<u8> {
    let list: Vec<(&str, String)> = segments.iter().map(|(t, id)| (t.as_str(), format!("{id:016x}"))).collect();
    seal(serde_json::to_vec(&serde_json::json!({ "v": LIST_VERSION, "segments": list })).expect("json serializes"))
}

/// The segments a list names; `None` if it is torn, damaged or of another version.
pub fn decode_list(bytes: &[u8]) -> Option<Vec<(VectorTarget, u64)>> {
    #[derive(serde::Deserialize)]
    struct List {
        v: u32,
        segments: Vec<(String, String)>,
    }
    let list: List = serde_json::from_slice(open(bytes)?).ok()?;
    if list.v != LIST_VERSION {
        return None;
    }
    list.segments.iter().map(|(t, id)| Some((VectorTarget::parse(t)?, u64::from_str_radix(id, 16).ok().filter(|_| id.len() == 16)?))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_damage_is_detected() {
        let seg = encode_segment(&["a".into(), "b\n\"c".into()], b"EGVG....");
        let (ids, graph) = decode_segment(&seg).unwrap();
        assert_eq!((ids.as_slice(), graph), (&["a".to_string(), "b\n\"c".to_string()][..], &b"EGVG...."[..]));
        let list = encode_list(&[(VectorTarget::Raw, 7), (VectorTarget::Memories, u64::MAX)]);
        assert_eq!(decode_list(&list).unwrap(), vec![(VectorTarget::Raw, 7), (VectorTarget::Memories, u64::MAX)]);
        for cut in 0..seg.len() {
            assert!(decode_segment(&seg[..cut]).is_none());
        }
        for at in 0..list.len() {
            let mut b = list.clone();
            b[at] ^= 0x10;
            assert!(decode_list(&b).is_none());
        }
    }
}
