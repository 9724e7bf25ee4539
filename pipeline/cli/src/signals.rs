//! Signals: SIGPIPE ends the process quietly (as for `cat` and `grep`: a shell shows 141),
//! instead of `println!` panicking on a closed stdout; SIGINT and SIGTERM remove the
//! unfinished release of a run (when a release was being written) before the process exits
//! (130 and 143). Running out of memory is handled the same way: the failed allocation is
//! named with the address-space limit, the unfinished release is removed, and the process
//! exits 2.

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Set once SIGINT or SIGTERM arrived: the signal thread is removing the unfinished
/// release and will end the process with 128 + the signal.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the process is being interrupted. An error the command meets then is most
/// likely the interruption itself (its files removed under it): the caller waits for the
/// signal thread to end the process instead of reporting it.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Call first in `main`, before any thread starts. SIGINT and SIGTERM are received by
/// signal-hook's self-pipe on an ordinary thread, so the removal of the unfinished release
/// runs outside a signal handler (where allocating and locking are allowed).
pub fn install() {
    crate::alloc::on_allocation_failure(out_of_memory);
    restore_default_sigpipe();
    // The thread registers the handlers itself, so that without a thread to receive them
    // the signals keep their default action; `install` returns once they are registered.
    let (registered, wait) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let Ok(mut signals) = Signals::new([SIGINT, SIGTERM]) else {
                let _ = registered.send(());
                return;
            };
            let _ = registered.send(());
            if let Some(sig) = signals.forever().next() {
                abandon_and_exit(sig);
            }
        });
    if spawned.is_ok() {
        let _ = wait.recv();
    }
}

/// Rust ignores SIGPIPE at start-up; the default action ends the process quietly when the
/// reader of stdout goes away, as `cat` and `grep` do.
#[allow(unsafe_code)]
fn restore_default_sigpipe() {
    // SAFETY: `signal` with `SIG_DFL` installs no Rust code as a handler, and no other
    // thread runs yet that could be registering a handler at the same time.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// What SIGINT or SIGTERM does: marks the process interrupted, removes the unfinished
/// release (when a command was writing one), says so, and exits with 128 + the signal.
fn abandon_and_exit(sig: i32) -> ! {
    use std::io::Write;
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
    // Held until exit: no commit starts after the temporary directories are gone.
    let (_guard, removed) = kcurate_release::writer::abandon_unfinished();
    let name = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
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
}

/// The allocator's hook (see `crate::alloc::Guarded`): says what failed and under
/// which limit, removes the unfinished release (unless a commit holds it), exits 2. Small
/// allocations still succeed when a large one is refused, so formatting the message is safe.
fn out_of_memory(size: usize) {
    use std::io::Write;
    let mut lim: libc::rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only into the struct it is given.
    #[allow(unsafe_code)]
    let got = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) };
    let limit = if got == 0 && lim.rlim_cur != libc::RLIM_INFINITY {
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
