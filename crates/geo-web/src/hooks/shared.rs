//! [`SharedReads`]: one repository read for every component that asks for the same thing.
//!
//! At start-up the header's run selector and the dashboard both want the project's run
//! summaries (a year of daily runs: 365 records to read and decode), and the run selector
//! settling on a run makes the dashboard ask again for the run it is already reading. A
//! `SharedReads` runs the first request's read and lets every later request for the same
//! key wait for it, then keeps the answer until a request comes for another key. Keys hold
//! the app's data version, so a write (here or in another tab) makes the next request read
//! again; a read that fails is not kept, and its waiters read themselves.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// The last answer and the read under way, for keys of type `K` and values `V`.
pub struct SharedReads<K, V> {
    last: RefCell<Option<(K, Rc<V>)>>,
    reading: RefCell<Option<(K, Rc<Slot>)>>,
}

impl<K: Clone + PartialEq, V> SharedReads<K, V> {
    /// Nothing read yet.
    pub const fn new() -> Self {
        SharedReads { last: RefCell::new(None), reading: RefCell::new(None) }
    }

    /// The answer for `key`: the kept one, else the read under way for it, else `read`'s.
    pub async fn get<E, F: Future<Output = Result<V, E>>>(
        self: &Rc<Self>,
        key: K,
        read: impl FnOnce() -> F,
    ) -> Result<Rc<V>, E> {
        loop {
            if let Some(hit) = self.last.borrow().as_ref().filter(|(k, _)| *k == key).map(|(_, v)| v.clone()) {
                return Ok(hit);
            }
            let waiting = self.reading.borrow().as_ref().filter(|(k, _)| *k == key).map(|(_, s)| s.clone());
            match waiting {
                Some(slot) => Wait(slot).await,
                None => break,
            }
        }
        let slot = Rc::new(Slot::default());
        *self.reading.borrow_mut() = Some((key.clone(), slot.clone()));
        let _ticket = Ticket { owner: self.clone(), slot };
        let value = Rc::new(read().await?);
        *self.last.borrow_mut() = Some((key, value.clone()));
        Ok(value)
    }
}

impl<K: Clone + PartialEq, V> Default for SharedReads<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the waiters of one read register.
#[derive(Default)]
struct Slot {
    done: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
}

/// The read under way: dropping it (the read finished, failed or was abandoned) clears it
/// and wakes the waiters, who then find the answer kept or read themselves.
struct Ticket<K, V> {
    owner: Rc<SharedReads<K, V>>,
    slot: Rc<Slot>,
}

impl<K, V> Drop for Ticket<K, V> {
    fn drop(&mut self) {
        let mut reading = self.owner.reading.borrow_mut();
        if reading.as_ref().is_some_and(|(_, s)| Rc::ptr_eq(s, &self.slot)) {
            *reading = None;
        }
        drop(reading);
        self.slot.done.set(true);
        for w in self.slot.wakers.borrow_mut().drain(..) {
            w.wake();
        }
    }
}

/// Resolves when the read behind the slot has ended.
struct Wait(Rc<Slot>);

impl Future for Wait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.done.get() {
            return Poll::Ready(());
        }
        self.0.wakers.borrow_mut().push(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Wake;

    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    use std::sync::Arc;

    /// A request under test: its answer as a plain value.
    type Request = Pin<Box<dyn Future<Output = Result<u32, &'static str>>>>;

    /// Polls `request` once.
    fn poll_once(request: &mut Request) -> Poll<Result<u32, &'static str>> {
        let waker = Waker::from(Arc::new(Noop));
        request.as_mut().poll(&mut Context::from_waker(&waker))
    }

    /// One `SharedReads`, the number of reads it ran, and a gate that holds every read until set.
    struct Reads {
        shared: Rc<SharedReads<u32, u32>>,
        runs: Rc<Cell<u32>>,
        gate: Rc<Cell<bool>>,
    }

    impl Reads {
        fn new() -> Reads {
            Reads { shared: Rc::new(SharedReads::new()), runs: Rc::new(Cell::new(0)), gate: Rc::new(Cell::new(false)) }
        }

        /// A request for `key` whose own read, once the gate is set, gives `value` (or fails,
        /// unless `ok`), counting itself in `runs`.
        fn get(&self, key: u32, value: u32, ok: bool) -> Request {
            let (shared, runs, gate) = (self.shared.clone(), self.runs.clone(), self.gate.clone());
            let read = move || {
                runs.set(runs.get() + 1);
                std::future::poll_fn(move |_| {
                    if !gate.get() {
                        return Poll::Pending;
                    }
                    Poll::Ready(if ok { Ok(value) } else { Err("failed") })
                })
            };
            Box::pin(async move { shared.get(key, read).await.map(|v| *v) })
        }
    }

    #[test]
    fn a_second_request_waits_for_the_first_read_then_the_answer_is_kept() {
        let reads = Reads::new();
        let (mut first, mut second) = (reads.get(1, 7, true), reads.get(1, 8, true));
        assert!(poll_once(&mut first).is_pending());
        assert!(poll_once(&mut second).is_pending());
        reads.gate.set(true);
        assert_eq!(poll_once(&mut first), Poll::Ready(Ok(7)));
        assert_eq!(poll_once(&mut second), Poll::Ready(Ok(7)));
        assert_eq!(reads.runs.get(), 1, "one read for both");
        // Kept for the same key; another key reads again.
        assert_eq!(poll_once(&mut reads.get(1, 9, true)), Poll::Ready(Ok(7)));
        assert_eq!(poll_once(&mut reads.get(2, 9, true)), Poll::Ready(Ok(9)));
        assert_eq!(reads.runs.get(), 2);
    }

    #[test]
    fn a_failed_or_abandoned_read_is_not_kept_and_its_waiters_read_themselves() {
        let reads = Reads::new();
        let (mut failing, mut waiter) = (reads.get(1, 1, false), reads.get(1, 2, true));
        assert!(poll_once(&mut failing).is_pending());
        assert!(poll_once(&mut waiter).is_pending());
        reads.gate.set(true);
        assert_eq!(poll_once(&mut failing), Poll::Ready(Err("failed")));
        assert_eq!(poll_once(&mut waiter), Poll::Ready(Ok(2)), "the waiter read itself");
        assert_eq!(reads.runs.get(), 2);
        // An abandoned read (its page went away) wakes its waiters too.
        reads.gate.set(false);
        let (mut abandoned, mut later) = (reads.get(5, 3, true), reads.get(5, 4, true));
        assert!(poll_once(&mut abandoned).is_pending());
        assert!(poll_once(&mut later).is_pending());
        drop(abandoned);
        reads.gate.set(true);
        assert_eq!(poll_once(&mut later), Poll::Ready(Ok(4)));
    }
}
