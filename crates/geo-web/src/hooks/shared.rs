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

    /// Polls `f` once.
    fn poll_once<T>(f: &mut Pin<Box<dyn Future<Output = T>>>) -> Poll<T> {
        let waker = Waker::from(Arc::new(Noop));
        f.as_mut().poll(&mut Context::from_waker(&waker))
    }

    /// A read that finishes when `gate` is set, counting how often it ran.
    fn reader(
        runs: Rc<Cell<u32>>,
        gate: Rc<Cell<bool>>,
        value: u32,
        ok: bool,
    ) -> impl FnOnce() -> Pin<Box<dyn Future<Output = Result<u32, &'static str>>>> {
        move || {
            runs.set(runs.get() + 1);
            Box::pin(std::future::poll_fn(move |_| {
                if !gate.get() {
                    return Poll::Pending;
                }
                Poll::Ready(if ok { Ok(value) } else { Err("failed") })
            }))
        }
    }

    #[test]
    fn a_second_request_waits_for_the_first_read_then_the_answer_is_kept() {
        let shared = Rc::new(SharedReads::<u32, u32>::new());
        let (runs, gate) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(false)));
        let (s1, s2) = (shared.clone(), shared.clone());
        let (r1, r2) = (reader(runs.clone(), gate.clone(), 7, true), reader(runs.clone(), gate.clone(), 8, true));
        let mut first: Pin<Box<dyn Future<Output = _>>> = Box::pin(async move { s1.get(1, r1).await });
        let mut second: Pin<Box<dyn Future<Output = _>>> = Box::pin(async move { s2.get(1, r2).await });
        assert!(poll_once(&mut first).is_pending());
        assert!(poll_once(&mut second).is_pending());
        gate.set(true);
        assert_eq!(poll_once(&mut first).map(|r| r.map(|v| *v)), Poll::Ready(Ok(7)));
        assert_eq!(poll_once(&mut second).map(|r| r.map(|v| *v)), Poll::Ready(Ok(7)));
        assert_eq!(runs.get(), 1, "one read for both");
        // Kept for the same key; another key reads again.
        let mut third: Pin<Box<dyn Future<Output = _>>> = Box::pin({
            let s = shared.clone();
            let r = reader(runs.clone(), gate.clone(), 9, true);
            async move { s.get(1, r).await }
        });
        assert_eq!(poll_once(&mut third).map(|r| r.map(|v| *v)), Poll::Ready(Ok(7)));
        let mut other: Pin<Box<dyn Future<Output = _>>> = Box::pin({
            let s = shared.clone();
            let r = reader(runs.clone(), gate.clone(), 9, true);
            async move { s.get(2, r).await }
        });
        assert_eq!(poll_once(&mut other).map(|r| r.map(|v| *v)), Poll::Ready(Ok(9)));
        assert_eq!(runs.get(), 2);
    }

    #[test]
    fn a_failed_or_abandoned_read_is_not_kept_and_its_waiters_read_themselves() {
        let shared = Rc::new(SharedReads::<u32, u32>::new());
        let (runs, gate) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(false)));
        let (s1, s2) = (shared.clone(), shared.clone());
        let (r1, r2) = (reader(runs.clone(), gate.clone(), 1, false), reader(runs.clone(), gate.clone(), 2, true));
        let mut failing: Pin<Box<dyn Future<Output = _>>> = Box::pin(async move { s1.get(1, r1).await });
        let mut waiter: Pin<Box<dyn Future<Output = _>>> = Box::pin(async move { s2.get(1, r2).await });
        assert!(poll_once(&mut failing).is_pending());
        assert!(poll_once(&mut waiter).is_pending());
        gate.set(true);
        assert_eq!(poll_once(&mut failing).map(|r| r.map(|v| *v)), Poll::Ready(Err("failed")));
        assert_eq!(poll_once(&mut waiter).map(|r| r.map(|v| *v)), Poll::Ready(Ok(2)), "the waiter read itself");
        assert_eq!(runs.get(), 2);
        // An abandoned read (its page went away) wakes its waiters too.
        gate.set(false);
        let (s3, s4) = (shared.clone(), shared.clone());
        let (r3, r4) = (reader(runs.clone(), gate.clone(), 3, true), reader(runs.clone(), gate.clone(), 4, true));
        let mut abandoned: Pin<Box<dyn Future<Output = _>>> = Box::pin(async move { s3.get(5, r3).await });
        let mut later: Pin<Box<dyn Future<Output = _>>> = Box::pin(async move { s4.get(5, r4).await });
        assert!(poll_once(&mut abandoned).is_pending());
        assert!(poll_once(&mut later).is_pending());
        drop(abandoned);
        gate.set(true);
        assert_eq!(poll_once(&mut later).map(|r| r.map(|v| *v)), Poll::Ready(Ok(4)));
    }
}
