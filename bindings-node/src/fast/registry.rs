//! The guards the shared authorize function (`authorize.rs`) can reach, by number, and what
//! a slot holds for each.
//!
//! `index.js` calls one native function for every guard, passing the guard's handle: a
//! number naming a slot of this thread's registry and the slot's generation. One function
//! for all guards keeps V8's call site monomorphic (a function per guard made it megamorphic
//! as soon as a program used a few guards), and a handle is a number, so nothing a caller
//! passes can be mistaken for memory: an unknown or stale handle finds no guard.
//!
//! A slot is filled when `index.js` first asks for a guard's handle and emptied when the
//! guard object is collected (the [`Registration`] attached to it is dropped). Each JavaScript thread has its own registry, as
//! each has its own guards.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::clock::JsClock;

/// What a registry slot holds for one guard: the core guard (shared with its `LeaseGuard`
/// object) and its clock.
pub(crate) struct FastGuard {
    pub(crate) guard: leasekit::LeaseGuard,
    pub(crate) clock: Option<Arc<JsClock>>,
    /// Buffers reused by every call (only ever used on this guard's JavaScript thread; a
    /// re-entrant call, from the clock, uses fresh ones).
    pub(crate) scratch: RefCell<Scratch>,
}

/// Scratch buffers that grew past this many code units are not kept.
pub(super) const KEEP_UNITS: usize = 1 << 16;

/// Reusable buffers, so a call allocates nothing once warm.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(super) units: Vec<u16>,
    pub(super) capability: Vec<u8>,
    pub(super) target: Vec<u8>,
}

/// A key is a handle shifted left by this many bits, plus the capability.
pub(crate) const KEY_SHIFT: u32 = 3;

/// Bits of a handle naming the slot; the bits above count the slot's reuses.
const INDEX_BITS: u32 = 26;
/// A slot reused this many times is retired, so a handle is never repeated and a key (the
/// handle times 8 plus a capability, see `fast/mod.rs`) stays below 2^53, exact as a JavaScript
/// number.
const MAX_GENERATION: u32 = 1 << 24;

/// A handle: `generation << INDEX_BITS | index`.
pub(crate) type Handle = u64;

/// The guards of one JavaScript thread.
#[derive(Default)]
pub(crate) struct Registry {
    inner: RefCell<Slots>,
}

#[derive(Default)]
struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

struct Slot {
    generation: u32,
    guard: Option<Rc<FastGuard>>,
}

thread_local! {
    static CURRENT: Rc<Registry> = Rc::default();
}

impl Registry {
    /// This thread's registry.
    pub(crate) fn current() -> Rc<Registry> {
        CURRENT.with(Rc::clone)
    }

    /// Stores `guard`; `None` when every handle is taken (2^26 live guards on one thread).
    pub(crate) fn insert(&self, guard: FastGuard) -> Option<Handle> {
        let mut s = self.inner.borrow_mut();
        let index = match s.free.pop() {
            Some(index) => index,
            None => {
                let index = u32::try_from(s.slots.len()).ok()?;
                if index >= 1 << INDEX_BITS {
                    return None;
                }
                s.slots.push(Slot {
                    generation: 0,
                    guard: None,
                });
                index
            }
        };
        let slot = &mut s.slots[index as usize];
        slot.guard = Some(Rc::new(guard));
        Some(u64::from(slot.generation) << INDEX_BITS | u64::from(index))
    }

    /// The guard of `handle`, if it is live. A shared reference: a call may re-enter (a
    /// clock that authorizes, or creates guards) while it holds the guard.
    pub(crate) fn get(&self, handle: Handle) -> Option<Rc<FastGuard>> {
        let index = (handle & ((1 << INDEX_BITS) - 1)) as usize;
        let generation = handle >> INDEX_BITS;
        let s = self.inner.borrow();
        let slot = s.slots.get(index)?;
        if u64::from(slot.generation) != generation {
            return None;
        }
        slot.guard.clone()
    }

    /// Empties the slot of `handle` (its guard is gone); the handle never finds anything
    /// again.
    pub(crate) fn remove(&self, handle: Handle) {
        let index = (handle & ((1 << INDEX_BITS) - 1)) as usize;
        let generation = handle >> INDEX_BITS;
        let released = {
            let mut s = self.inner.borrow_mut();
            let Some(slot) = s.slots.get_mut(index) else {
                return;
            };
            if u64::from(slot.generation) != generation {
                return;
            }
            let released = slot.guard.take();
            slot.generation += 1;
            if slot.generation < MAX_GENERATION {
                s.free.push(index as u32);
            }
            released
        };
        // Dropped outside the borrow: dropping a guard may run code that uses the registry.
        drop(released);
    }
}

impl Drop for Registry {
    /// At thread exit every guard object has normally been collected (Node finalizes wrapped
    /// objects when it tears an environment down). A guard still here may hold a reference to
    /// a JavaScript clock of an environment that is gone, so it is leaked, never dropped.
    fn drop(&mut self) {
        for slot in self.inner.get_mut().slots.drain(..) {
            std::mem::forget(slot.guard);
        }
    }
}

/// A guard's slot, tied to its `LeaseGuard` object (attached to it, see `fast/mod.rs`): dropping
/// it, when the object is collected, empties the slot.
pub(crate) struct Registration {
    registry: Rc<Registry>,
    handle: Handle,
}

impl Registration {
    /// Stores `guard` in this thread's registry; `None` when every handle is taken.
    pub(crate) fn new(guard: FastGuard) -> Option<Registration> {
        let registry = Registry::current();
        let handle = registry.insert(guard)?;
        Some(Registration { registry, handle })
    }

    /// The guard's key for the shared authorize function: its handle shifted by
    /// [`KEY_SHIFT`].
    pub(crate) fn key(&self) -> u64 {
        self.handle << KEY_SHIFT
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.registry.remove(self.handle);
    }
}
