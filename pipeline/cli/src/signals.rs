//! Signals: SIGPIPE ends the process quietly (as for `cat` and `grep`: a shell shows 141),
//! instead of `println!` panicking on a closed stdout; SIGINT and SIGTERM remove the
//! unfinished release of a run (when a release was being written) before the process exits
//! (130 and 143). Running out of memory is handled the same way: the failed allocation is
//! named with the address-space limit, the unfinished release is removed, and the process
//! exits 2.

/// Set once SIGINT or SIGTERM arrived: the signal thread is removing the unfinished
/// release and will end the process with 128 + the signal.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the process is being interrupted. An error the command meets then is most
/// likely the interruption itself (its files removed under it): the caller waits for the
/// signal thread to end the process instead of reporting it.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Call first in `main`, before any thread starts: the blocked mask is inherited by every
/// thread, so SIGINT and SIGTERM reach only the thread that waits for them.
pub fn install() {
    use std::io::Write;
    kcurate_core::alloc::on_allocation_failure(out_of_memory);
    // SAFETY: plain libc calls on a local signal set; no Rust state is touched by a
    // handler (the default SIGPIPE action terminates; SIGINT/SIGTERM are blocked and
    // received synchronously by `sigwait` on an ordinary thread).
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut sig: libc::c_int = 0;
                loop {
                    if libc::sigwait(&set, &mut sig) == 0 {
                        break;
                    }
                }
                INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
                // Held until exit: no commit starts after the temporary directories are gone.
                let (_guard, removed) = kcurate_release::writer::abandon_unfinished();
                let name = if sig == libc::SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                // Only a command that was writing a release had one to remove.
                let _ = if removed > 0 {
                    writeln!(
                        std::io::stderr(),
                        "interrupted ({name}); the unfinished release was removed"
                    )
                } else {
                    writeln!(std::io::stderr(), "interrupted ({name})")
                };
                std::process::exit(128 + sig);
            });
        if spawned.is_err() {
            // No thread to receive them: let the signals act as before.
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// The allocator's hook (see `kcurate_core::alloc::Guarded`): says what failed and under
/// which limit, removes the unfinished release (unless a commit holds it), exits 2. Small
/// allocations still succeed when a large one is refused, so formatting the message is safe.
fn out_of_memory(size: usize) {
    use std::io::Write;
    let mut lim: libc::rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only into the struct it is given.
    let limit = if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0
        && lim.rlim_cur != libc::RLIM_INFINITY
    {
        format!(
            "the address-space limit (ulimit -v) of {} MiB",
            lim.rlim_cur >> 20
        )
    } else {
        "the memory the system would give".to_string()
    };
    let removed = kcurate_release::writer::try_abandon_unfinished();
    let _ = writeln!(
        std::io::stderr(),
        "error: out of memory: an allocation of {size} bytes failed under {limit}; {}raise \
         the limit, or give the run less at once (fewer --threads, a smaller input or [limits])",
        if removed.is_some() {
            "the unfinished release was removed; "
        } else {
            ""
        }
    );
    std::process::exit(2);
}
