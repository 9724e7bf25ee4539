//! The memory allocator of kcurate's binaries, and of the benchmarks that time what the
//! binaries run: jemalloc, set up in one line by [`global_allocator!`](crate::global_allocator).
//!
//! Why: the stages allocate many small strings on pool threads that another thread frees;
//! glibc's malloc serialised those frees on its arena locks (about a third of the run time of
//! `make bench`'s ingest went to lock waits).

pub use tikv_jemallocator::Jemalloc;

use std::alloc::{GlobalAlloc, Layout};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// jemalloc with a way out when memory runs out: an allocation that fails (under `ulimit
/// -v`, an address-space limit, a large table's growth is refused) calls the hook set by
/// [`on_allocation_failure`] once, which can say so naming the limit, remove what the run
/// left, and exit. Without a hook, or failing again inside it, the failure goes back to
/// Rust, which prints "memory allocation of N bytes failed" and aborts. (With a hook, a
/// failed `try_reserve` ends the process too: nothing in kcurate recovers from one.)
pub struct Guarded;

static HOOK: OnceLock<fn(usize)> = OnceLock::new();
static IN_HOOK: AtomicBool = AtomicBool::new(false);

/// Sets the function called (once) with the size of the first allocation that fails; it
/// is expected not to return (it exits the process).
pub fn on_allocation_failure(hook: fn(usize)) {
    let _ = HOOK.set(hook);
}

fn failed(size: usize) {
    if let Some(hook) = HOOK.get()
        && !IN_HOOK.swap(true, Ordering::SeqCst)
    {
        hook(size);
    }
}

// SAFETY: every call is passed to jemalloc unchanged; only a null result is looked at.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { Jemalloc.alloc(layout) };
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { Jemalloc.alloc_zeroed(layout) };
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { Jemalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { Jemalloc.realloc(ptr, layout, new_size) };
        if p.is_null() {
            failed(new_size);
        }
        p
    }
}

/// jemalloc's settings, read at start-up: one arena (the pool threads share it through
/// their caches); freed pages returned after 1 s instead of 10 s, so that peak RSS stays
/// near what a run holds at once rather than what it ever touched; and transparent huge
/// pages asked for (`thp:always`: jemalloc marks its memory MADV_HUGEPAGE, which kernels
/// set to THP `madvise`, Debian's and Ubuntu's default, need): the tables a run or
/// `agree` builds are touched page by page once, and a fault per 4 KiB page was a tenth of
/// their time (measured: `agree --aggregate majority` on 100k items × 5 0.131 → 0.115 s,
/// on 1M items 1.41 → 1.07 s; `run` of NSMC 1x 40 → 35 s, peak RSS 359 → 391 MB).
pub const CONF: &[u8; 58] = b"narenas:1,dirty_decay_ms:1000,muzzy_decay_ms:0,thp:always\0";

/// Makes jemalloc (with [`CONF`], through [`Guarded`]) the global allocator of the binary
/// it is used in.
#[macro_export]
macro_rules! global_allocator {
    () => {
        #[global_allocator]
        static GLOBAL: $crate::alloc::Guarded = $crate::alloc::Guarded;

        #[allow(non_upper_case_globals)]
        #[unsafe(export_name = "_rjem_malloc_conf")]
        static malloc_conf: &[u8; 58] = $crate::alloc::CONF;
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn conf_is_one_nul_terminated_c_string() {
        let conf = super::CONF;
        assert_eq!(conf.last(), Some(&0));
        assert!(!conf[..conf.len() - 1].contains(&0));
        assert!(std::str::from_utf8(&conf[..conf.len() - 1]).is_ok());
    }
}
