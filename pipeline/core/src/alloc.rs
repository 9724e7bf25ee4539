//! The memory allocator of kcurate's binaries, and of the benchmarks that time what the
//! binaries run: jemalloc, set up in one line by [`global_allocator!`](crate::global_allocator).
//!
//! Why: the stages allocate many small strings on pool threads that another thread frees;
//! glibc's malloc serialised those frees on its arena locks (about a third of the run time of
//! `make bench`'s ingest went to lock waits).

pub use tikv_jemallocator::Jemalloc;

/// jemalloc's settings, read at start-up: one arena (the pool threads share it through
/// their caches); freed pages returned after 1 s instead of 10 s, so that peak RSS stays
/// near what a run holds at once rather than what it ever touched; and transparent huge
/// pages asked for (`thp:always`: jemalloc marks its memory MADV_HUGEPAGE, which kernels
/// set to THP `madvise`, Debian's and Ubuntu's default, need): the tables a run or
/// `agree` builds are touched page by page once, and a fault per 4 KiB page was a tenth of
/// their time (measured: `agree --aggregate majority` on 100k items × 5 0.131 → 0.115 s,
/// on 1M items 1.41 → 1.07 s; `run` of NSMC 1x 40 → 35 s, peak RSS 359 → 391 MB).
pub const CONF: &[u8; 58] = b"narenas:1,dirty_decay_ms:1000,muzzy_decay_ms:0,thp:always\0";

/// Makes jemalloc (with [`CONF`]) the global allocator of the binary it is used in.
#[macro_export]
macro_rules! global_allocator {
    () => {
        #[global_allocator]
        static GLOBAL: $crate::alloc::Jemalloc = $crate::alloc::Jemalloc;

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
