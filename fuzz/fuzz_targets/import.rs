//! `Store::import` on arbitrary bytes. The property: any input either imports — then the engine's
//! state passes its own check and an export of it imports into another empty store as the same
//! state — or is rejected with a typed error that leaves the store empty. Never a panic, a hang or a
//! huge allocation (libFuzzer's -timeout / -malloc_limit_mb catch the last two).
//!
//! Every record ends in a CRC-32C, so almost every mutation of a valid export would stop at the
//! checksum. Each input is therefore tried twice: as given (the framing checks), and with its header
//! length and checksum rewritten to fit (everything behind the checksum: operations, JSON records,
//! vectors, state validation, merge).

#![no_main]

use engram::engine::EngineState;
use engram::error::ErrorCode;
use engram::host::ManualClock;
use engram::internals::crc32c;
use engram::persist::export::decode_export;
use engram::persist::{block_on, MemoryStorage, OpenOptions, Store};
use libfuzzer_sys::fuzz_target;

/// Record header (magic, version, kind, reserved, seq, body length) and trailer (CRC-32C) sizes.
const HEADER: usize = 4 + 2 + 1 + 1 + 8 + 4;
const TRAILER: usize = 4;

fn empty_store() -> Store<MemoryStorage> {
    block_on(Store::open(MemoryStorage::new(), Box::new(ManualClock::new(0)), OpenOptions::default())).expect("an empty store opens")
}

/// Raw entries are compared by id: their order in a state is slot order, which a merge may change.
fn canonical(mut s: EngineState) -> EngineState {
    s.raw.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    s
}

fn check(bytes: &[u8]) {
    let decoded = decode_export(bytes);
    let mut store = empty_store();
    match block_on(store.import(bytes)) {
        Err(e) => {
            // A typed rejection of untrusted bytes; an adapter error cannot come from MemoryStorage.
            assert!(
                matches!(e.code, ErrorCode::Corrupt | ErrorCode::Embedder | ErrorCode::InvalidInput),
                "import rejected with an unexpected code: {e}"
            );
            if let Err(d) = &decoded {
                assert_eq!(d.code, e.code, "decode_export and import disagree: {d} / {e}");
            }
            assert!(store.engine().state() == EngineState::default(), "a rejected import changed the store");
            assert!(store.embedder_identity().is_none(), "a rejected import set the embedder identity");
        }
        Ok(_) => {
            let file = decoded.expect("import succeeded on bytes decode_export rejects");
            let state = store.engine().state();
            state.check().expect("imported state passes its check");
            assert_eq!(store.embedder_identity(), file.identity.as_ref(), "import into an empty store adopts the file's identity");

            let export = store.export(None);
            let mut again = empty_store();
            block_on(again.import(&export)).unwrap_or_else(|e| panic!("the export of an imported store does not import: {e}"));
            assert!(canonical(again.engine().state()) == canonical(state), "export → import does not round-trip");
            assert_eq!(again.embedder_identity(), store.embedder_identity(), "export → import loses the embedder identity");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= HEADER + TRAILER {
        let mut fixed = data.to_vec();
        let body = (fixed.len() - HEADER - TRAILER) as u32;
        fixed[16..20].copy_from_slice(&body.to_le_bytes());
        let end = fixed.len() - TRAILER;
        let crc = crc32c(&fixed[..end]);
        fixed[end..].copy_from_slice(&crc.to_le_bytes());
        if fixed != data {
            check(&fixed);
        }
    }
});
