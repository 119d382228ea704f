//! The operating system calls tlc makes that the standard library does not wrap: the one module
//! of the crate, with `cost/borrowed_insert.rs` (SQLite), allowed `unsafe` code (the crate root
//! denies it everywhere else). Each function here is safe to call: its `unsafe` block's
//! preconditions are met inside it.
#![allow(unsafe_code)]

/// Whether a process with this id exists on this machine (it may belong to another user).
pub fn process_exists(pid: i64) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// This machine's host name; `None` when the system does not say.
pub fn hostname() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it or
    // truncates, and the read below stops at the buffer's end either way.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return None;
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// The width in columns of the terminal on stdout; `None` when stdout is not a terminal or the
/// terminal does not say.
pub fn stdout_columns() -> Option<u16> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one winsize into the struct passed, which lives on this stack
    // frame; on a descriptor that is closed or not a terminal it fails and writes nothing.
    let rc = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col > 0).then_some(ws.ws_col)
}

/// Asks glibc's allocator to keep memory the process frees for reuse instead of handing it back
/// to the kernel, for the rest of the process's life (see `cost::import::Options`). Elsewhere
/// than Linux with glibc it does nothing.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's thresholds; it has no memory-safety
    // preconditions, and a refused setting (return 0) leaves the defaults.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}
