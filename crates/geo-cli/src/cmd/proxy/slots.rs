//! The proxy's connection slots: at most [`MAX_CONNECTIONS`] connections open at once, and
//! idle ones closed first to make room (security-3 L2).

use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::MAX_CONNECTIONS;

/// The proxy's connection slots: at most [`MAX_CONNECTIONS`] at once. A connection is
/// *idle* while it has not sent a whole request head yet and again once it is answered (its
/// drain); an idle one is closed to make room for a new connection when every slot is taken,
/// the one idle longest first. So idle connections never keep a request from being served
/// (security-3 L2), and only requests being forwarded (which carried the token) can fill the
/// proxy; a connection beyond those is answered 503 at once (`refuse_over_limit`).
#[derive(Default)]
pub(super) struct Slots {
    open: Mutex<Vec<Slot>>,
    next: AtomicU64,
}

/// One open connection: a handle to close it and whether it may be closed for another.
struct Slot {
    id: u64,
    stream: TcpStream,
    idle_since: Option<Instant>,
}

impl Slots {
    /// A slot for a new connection (idle until its head is read), closing the longest-idle
    /// connection when all are taken; `None` when every slot serves a request.
    pub(super) fn take(self: &Arc<Self>, stream: &TcpStream) -> Option<SlotGuard> {
        let handle = stream.try_clone().ok()?;
        let mut open = self.open.lock().ok()?;
        if open.len() >= MAX_CONNECTIONS {
            let oldest =
                open.iter().enumerate().filter_map(|(i, s)| s.idle_since.map(|t| (t, i))).min().map(|(_, i)| i)?;
            let evicted = open.swap_remove(oldest);
            let _ = evicted.stream.shutdown(Shutdown::Both);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        open.push(Slot { id, stream: handle, idle_since: Some(Instant::now()) });
        Some(SlotGuard { slots: Arc::clone(self), id })
    }

    fn set_idle(&self, id: u64, idle: bool) {
        if let Ok(mut open) = self.open.lock() {
            if let Some(slot) = open.iter_mut().find(|s| s.id == id) {
                slot.idle_since = idle.then(Instant::now);
            }
        }
    }
}

/// A connection's slot, given back when the connection ends.
pub(super) struct SlotGuard {
    slots: Arc<Slots>,
    id: u64,
}

impl SlotGuard {
    /// The request head is in: this connection is serving a request and is not closed for
    /// another.
    pub(super) fn busy(&self) {
        self.slots.set_idle(self.id, false);
    }

    /// The answer is written: the drain that follows may be closed for another connection.
    pub(super) fn idle(&self) {
        self.slots.set_idle(self.id, true);
    }
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        if let Ok(mut open) = self.slots.open.lock() {
            open.retain(|s| s.id != self.id);
        }
    }
}
