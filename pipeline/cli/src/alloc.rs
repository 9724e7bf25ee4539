//! The memory allocator of the kcurate binary, chosen here and not by a library: jemalloc
//! (through [`Guarded`], with [`CONF`]) and one glibc arena for the C code outside it
//! ([`one_malloc_arena`]). The text chain's benchmark includes this file (`#[path]`) to time
//! the chain with the binary's allocator.
//!
//! Why: the stages allocate many small strings on pool threads that another thread frees;
//! glibc's malloc serialised those frees on its arena locks (about a third of the run time of
//! `make bench`'s ingest went to lock waits).

use tikv_jemallocator::Jemalloc;

use std::alloc::{GlobalAlloc, Layout};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// jemalloc with a way out when memory runs out: an allocation that fails (under `ulimit
/// -v`, an address-space limit, a large table's growth is refused) calls the hook set by
/// [`on_allocation_failure`] once, which can say so naming the limit, remove what the run
/// left, and exit. Without a hook, or failing again inside it, the failure goes back to
/// Rust, which prints "memory allocation of N bytes failed" and aborts. (With a hook, a
/// failed `try_reserve` ends the process too: nothing in kcurate recovers from one.)
pub(crate) struct Guarded;

static HOOK: OnceLock<fn(usize)> = OnceLock::new();
static IN_HOOK: AtomicBool = AtomicBool::new(false);

/// Sets the function called (once) with the size of the first allocation that fails; it
/// is expected not to return (it exits the process).
pub(crate) fn on_allocation_failure(hook: fn(usize)) {
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
pub(crate) const CONF: &[u8; 58] = b"narenas:1,dirty_decay_ms:1000,muzzy_decay_ms:0,thp:always\0";

#[global_allocator]
static GLOBAL: Guarded = Guarded;

/// jemalloc reads its settings from this symbol at start-up.
// SAFETY: the symbol is jemalloc's documented configuration string (a NUL-terminated C
// string, checked below); nothing else in the process defines it.
#[allow(unsafe_code, non_upper_case_globals)]
#[unsafe(export_name = "_rjem_malloc_conf")]
static malloc_conf: &[u8; 58] = CONF;

/// One glibc malloc arena for the C code that allocates outside jemalloc (zstd in the
/// Parquet writers, on pool threads). glibc gives each thread that calls malloc an arena of
/// its own and reserves 64 MiB of address space for each: a run's pools reached ~1 GB of
/// virtual memory that way while ~400 MB was resident, and under `ulimit -v 1000000` an
/// allocation failed. The C allocations are few and small, so one
/// arena costs nothing. Called before any thread starts; a `MALLOC_ARENA_MAX` set in the
/// environment is left to rule.
#[allow(unsafe_code)]
pub(crate) fn one_malloc_arena() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    // SAFETY: mallopt only sets an allocator parameter; no other thread runs yet.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
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
