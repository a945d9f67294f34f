//! Background threads (webhook deliveries, repository maintenance) yield the CPU to the
//! writer and the request handlers.

/// Gives the calling thread the nice value `nice` (on Linux a thread has one of its own); a
/// failure is harmless and passed over.
pub fn lower_this_thread(nice: i32) {
    // SAFETY: gettid has no preconditions; setpriority with this thread's id changes only
    // this thread's nice value.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, thread, nice);
    }
}
