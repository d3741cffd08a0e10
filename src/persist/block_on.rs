//! A minimal executor for native callers and tests: polls a future to completion on this thread.
//! Storage adapters that complete synchronously (like `MemoryStorage`) never pend, so the loop runs
//! once per await; one that pends is polled again at once (a busy wait, fine for tests and
//! tools, not meant for servers — use a real runtime there).

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut cx = Context::from_waker(Waker::noop());
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::hint::spin_loop();
    }
}
