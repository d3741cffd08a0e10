//! Internal faults. A Rust panic aborts a wasm instance (a trap). Inside a write's future the trap
//! escapes the promise the facade awaits — it would never settle, and the storage lock it holds
//! would never be released — so a panic hook tells the facade first: it rejects the calls in flight
//! with `Internal` and refuses every later call on any store of this instance.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

thread_local! {
    static LISTENER: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    static PANIC_ON_NEXT_STORAGE_RESULT: Cell<bool> = const { Cell::new(false) };
    static PANIC_ON_NEXT_VECTOR_BUILD: Cell<bool> = const { Cell::new(false) };
}

/// Registers `listener(message)`, called (synchronously) when this instance is about to stop on an
/// internal fault.
#[wasm_bindgen(js_name = onInternalFault)]
pub fn on_internal_fault(listener: js_sys::Function) {
    LISTENER.with(|l| *l.borrow_mut() = Some(listener));
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        LISTENER.with(|l| {
            if let Ok(listener) = l.try_borrow() {
                if let Some(listener) = listener.as_ref() {
                    // Nothing more can be done if the listener itself throws: the trap follows.
                    let _ = listener.call1(&JsValue::NULL, &JsValue::from_str(&message));
                }
            }
        });
    }));
}

/// For the facade's tests: the next storage call panics once its promise has settled, i.e. inside a
/// write's future, where a trap used to leave the call hanging.
#[wasm_bindgen(js_name = panicOnNextStorageResultForTests)]
pub fn panic_on_next_storage_result_for_tests() {
    PANIC_ON_NEXT_STORAGE_RESULT.with(|p| p.set(true));
}

pub(super) fn injected_panic() {
    if PANIC_ON_NEXT_STORAGE_RESULT.with(|p| p.replace(false)) {
        panic!("injected internal fault (panicOnNextStorageResultForTests)");
    }
}

/// For the facade's tests: the next `buildVectorGraph` on this instance panics (in a build worker,
/// or in-process with `inWorker: false`).
#[wasm_bindgen(js_name = panicOnNextVectorBuildForTests)]
pub fn panic_on_next_vector_build_for_tests() {
    PANIC_ON_NEXT_VECTOR_BUILD.with(|p| p.set(true));
}

pub(super) fn injected_build_panic() {
    if PANIC_ON_NEXT_VECTOR_BUILD.with(|p| p.replace(false)) {
        panic!("injected internal fault (panicOnNextVectorBuildForTests)");
    }
}
