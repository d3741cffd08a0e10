//! A minimal executor for native callers and tests: polls a future to completion on this thread.
//! Storage adapters that complete synchronously (like `MemoryStorage`) never pend, so the loop runs
//! once per await; one that pends is polled again at once (a busy wait, fine for tests and
//! tools, not meant for servers — use a real runtime there). [`both`], used by the store on every
//! target, awaits two storage calls side by side under whatever executor drives it.

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

/// Awaits two futures side by side: both are polled on the first poll, so two storage calls given
/// here are both issued before either is awaited (one round trip to a remote store, not two). The
/// calls may then be answered in either order; callers rely only on what each call sees on its own.
pub(crate) async fn both<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut out_a, mut out_b) = (None, None);
    std::future::poll_fn(|cx| {
        if out_a.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                out_a = Some(v);
            }
        }
        if out_b.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                out_b = Some(v);
            }
        }
        match (out_a.take(), out_b.take()) {
            (Some(x), Some(y)) => Poll::Ready((x, y)),
            (x, y) => {
                (out_a, out_b) = (x, y);
                Poll::Pending
            }
        }
    })
    .await
}
