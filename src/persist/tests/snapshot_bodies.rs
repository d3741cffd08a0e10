//! Snapshot bodies damaged and then re-sealed with a valid checksum (moved from `tests/persist.rs`:
//! re-sealing needs the crate-private record encoding).

use super::persist_common;

use crate::persist::record;
use crate::ErrorCode;
use persist_common::*;

#[test]
fn damaged_bodies_under_a_valid_checksum_never_panic() {
    // The checksum stops accidents; a body re-sealed after damage must still fail cleanly.
    let (key, bytes) = reference_snapshot();
    let (kind, seq, body) = record::decode(&bytes).unwrap();
    let mut r = Rng(0xbeef);
    let (mut ok, mut corrupt) = (0, 0);
    for i in 0..3000 {
        let mut b = body.to_vec();
        match i % 3 {
            0 => {
                let at = r.below(b.len());
                b[at] = r.next() as u8;
            }
            1 => b.truncate(r.below(b.len())),
            _ => {
                let at = r.below(b.len().saturating_sub(4).max(1));
                let end = (at + 4).min(b.len());
                b[at..end].fill(0xff);
            }
        }
        match open_state(vec![(key.clone(), record::encode(kind, seq, &b))]) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(matches!(e.code, ErrorCode::Corrupt | ErrorCode::Embedder), "{e}");
                corrupt += 1;
            }
        }
    }
    println!("{ok} damaged bodies still decoded, {corrupt} rejected");
    assert!(corrupt > 1000);
}
