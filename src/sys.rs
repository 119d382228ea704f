//! The operating system calls tlc makes that the standard library does not wrap: the one module
//! of the crate, with `cost/borrowed_insert.rs` (SQLite), allowed `unsafe` code (the crate root
//! denies it everywhere else). Each function here is safe to call: its `unsafe` block's
//! preconditions are met inside it.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicI32, Ordering};

/// Whether a process with this id exists on this machine (it may belong to another user).
pub(crate) fn process_exists(pid: i64) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// When the process `pid` started, in clock ticks since boot (`/proc/<pid>/stat`, field 22):
/// with the pid, it names one process for as long as the machine runs, where a pid alone may be
/// reused. `None` where it cannot be read (the process is gone, or the system has no `/proc`).
pub(crate) fn process_start_time(pid: i64) -> Option<u64> {
    if pid <= 0 {
        return None;
    }
    let path = std::path::PathBuf::from(format!("/proc/{pid}/stat"));
    let stat = crate::fsread::read_capped(&path, 64 * 1024, crate::fsread::Links::Follow).ok()??;
    let stat = String::from_utf8_lossy(&stat);
    // `pid (comm) state ppid …`: the name may hold spaces and parentheses; the last `)` ends it,
    // and the start time is the 20th field after it.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// Whether `path` lies on a read-only mount (`access(W_OK)` answers `EROFS`): the agent's
/// sandbox binds tlc's state so.
pub(crate) fn on_read_only_mount(path: &std::path::Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path that outlives the call; access reads it and nothing else.
    let r = unsafe { libc::access(c.as_ptr(), libc::W_OK) };
    r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EROFS)
}

/// This machine's host name; `None` when the system does not say.
pub(crate) fn hostname() -> Option<String> {
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

/// Makes this process resolve host names with glibc's own two sources only, `files`
/// (`/etc/hosts`) and `dns` (`/etc/resolv.conf`), whatever `/etc/nsswitch.conf` lists. Call it
/// before the first look-up of a process that may connect by name (`obs ship`, `prices refresh`);
/// later calls do nothing.
///
/// Why: the release binary is linked statically (`.cargo/config.toml`), and a static glibc loads
/// any other NSS module the `hosts:` line names (`mdns4_minimal`, `resolve`, `myhostname`, …) with
/// `dlopen`, which pulls the system's shared `libc.so.6` into the process beside the static one:
/// it works only while that library is exactly the glibc the binary was linked with, and breaks
/// in ways that are hard to tell after an upgrade. `files` and `dns` are built into glibc (2.34
/// and later) and need no module. So a name in `/etc/hosts` or known to the DNS servers of
/// `/etc/resolv.conf` resolves, and names only another module knows (mDNS `.local` names, a
/// systemd-resolved setup without its stub resolver in `resolv.conf`, NIS or LDAP host maps) do
/// not (docs/ship.md). A dynamically linked build keeps the system's configuration: it does
/// nothing there.
pub(crate) fn resolve_hosts_without_nss_modules() {
    #[cfg(all(target_os = "linux", target_env = "gnu", target_feature = "crt-static"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        extern "C" {
            // <nss.h>: replaces the services of one NSS database for the rest of the process.
            fn __nss_configure_lookup(db: *const libc::c_char, services: *const libc::c_char) -> libc::c_int;
        }
        // SAFETY: both arguments are NUL-terminated static strings glibc only reads. The Once runs
        // it before any look-up this process makes through the callers, so no look-up reads the
        // hosts configuration while it is replaced.
        ONCE.call_once(|| unsafe {
            __nss_configure_lookup(c"hosts".as_ptr(), c"files dns".as_ptr());
        });
    }
}

/// The width in columns of the terminal on stdout; `None` when stdout is not a terminal or the
/// terminal does not say.
pub(crate) fn stdout_columns() -> Option<u16> {
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
pub(crate) fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's thresholds; it has no memory-safety
    // preconditions, and a refused setting (return 0) leaves the defaults.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

// A gate command (`gate::runner`) runs in a process group of its own; these make sure no process
// of it outlives the hook that started it.

/// Sends SIGKILL to every process in the process group `group` (a gate command's, which it leads).
/// A group with no process left is not an error.
pub(crate) fn kill_group(group: u32) {
    let Ok(pgid) = libc::pid_t::try_from(group) else { return };
    // Group 0 or 1 would name the caller's own group or init's: never signalled.
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; the group is one this process created for its child.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// The process group of the gate command running now (0: none), for the termination handler.
static RUNNING_GROUP: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_termination(signal: libc::c_int) {
    let group = RUNNING_GROUP.load(Ordering::SeqCst);
    // SAFETY: killpg, signal and raise are async-signal-safe; the handler touches nothing else.
    unsafe {
        if group > 1 {
            libc::killpg(group, libc::SIGKILL);
        }
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// The termination signal [`defer_termination`] held back (0: none yet).
static DEFERRED_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_deferred_termination(signal: libc::c_int) {
    DEFERRED_SIGNAL.store(signal, Ordering::SeqCst);
}

/// From here on, a SIGTERM, SIGINT or SIGHUP does not end the process: it is noted, and the hook
/// finishes recording the payload it received, answers and exits. Claude Code sends SIGTERM to
/// the hooks still running when it exits (seen 2 ms after it started a `StopFailure` hook) and
/// SIGKILL about 1.5 s later; dying at the first signal lost the row of an event the client had
/// already sent. A handler (not `SIG_IGN`) is what a child would not inherit: exec resets it, so
/// a gate command keeps the default dispositions.
///
/// A signal the hook was started with ignored (SIGHUP under `nohup`) stays ignored, for it and
/// for the commands it starts.
pub(crate) fn defer_termination() {
    let handler = on_deferred_termination as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for s in SIGNALS {
        // SAFETY: the handler only stores into an atomic, which is async-signal-safe; putting
        // back SIG_IGN restores what was there.
        unsafe {
            if libc::signal(s, handler) == libc::SIG_IGN {
                libc::signal(s, libc::SIG_IGN);
            }
        }
    }
}

/// While it lives, a SIGTERM, SIGINT or SIGHUP to the hook (a provider giving up on a slow stop)
/// kills the gate command's group before the hook dies of it. A termination the hook deferred
/// before the gate started is acted on at once: the client has given up, the gate would run for
/// nobody.
pub(crate) struct GroupGuard {
    previous: [libc::sighandler_t; 3],
}

const SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

impl GroupGuard {
    pub(crate) fn new(group: u32) -> GroupGuard {
        RUNNING_GROUP.store(i32::try_from(group).unwrap_or(0), Ordering::SeqCst);
        let handler = on_termination as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: installs an async-signal-safe handler; the previous ones are restored on drop.
        let previous = SIGNALS.map(|s| unsafe { libc::signal(s, handler) });
        let deferred = DEFERRED_SIGNAL.load(Ordering::SeqCst);
        if deferred != 0 {
            on_termination(deferred);
        }
        GroupGuard { previous }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        for (s, p) in SIGNALS.iter().zip(self.previous) {
            // SAFETY: restores the handler that was in place before.
            unsafe {
                libc::signal(*s, p);
            }
        }
        RUNNING_GROUP.store(0, Ordering::SeqCst);
    }
}

/// Makes the command's process die with SIGKILL when the hook dies, even by SIGKILL (Linux).
pub(crate) fn die_with_parent(cmd: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    use std::os::unix::process::CommandExt;
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the child between fork and exec and calls only prctl, which is
    // async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// Settings every git tlc runs is given on its command line, where they win over any file: none
/// of the repository's code runs inside tlc's git (issue 51) — no hooks, no file-system monitor
/// (`core.fsmonitor` names a program git runs), no untracked cache (a file in `.git` the agent can
/// write that git would trust). Diffs are asked with `--no-ext-diff` where tlc takes one.
pub(crate) const GIT_SAFE_CONFIG: &[&str] = &[
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.untrackedCache=false",
];

/// `git`, optionally in `dir`, isolated from the caller: no pager, no optional locks (a read must
/// not fight the agent's own git for the index lock), stdin closed, none of a caller's
/// repository variables (tlc run from inside a git hook must not be redirected to another
/// repository) or configuration variables, and [`GIT_SAFE_CONFIG`]. The transport's variables
/// (`GIT_SSH_COMMAND`, `GIT_ASKPASS`) stay: an operator's fetch of a stable may need them. The
/// stop checks' git runs in a jail that drops every `GIT_*` variable (`confine`).
pub(crate) fn git(dir: Option<&std::path::Path>) -> std::process::Command {
    let mut c = std::process::Command::new("git");
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_EXEC_PATH",
    ] {
        c.env_remove(var);
    }
    if let Some(d) = dir {
        c.arg("-C").arg(d);
    }
    c.args(GIT_SAFE_CONFIG);
    c.env("GIT_PAGER", "cat")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null());
    c
}

/// Lowers the calling thread's scheduling priority by `steps` nice steps (19 is the lowest), from
/// whatever it is: a process started with `nice` keeps its offset, and a priority is never raised.
/// Only this thread: on Linux each thread has a nice value of its own, and `nice(2)` changes the
/// caller's. A thread may always lower its own priority; a failure changes nothing and is ignored.
/// Elsewhere, a no-op.
pub(crate) fn lower_this_thread_priority(steps: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: nice takes one integer and touches no memory of ours.
    unsafe {
        libc::nice(steps.max(0));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = steps;
}

/// The offset of the first byte at or after `pos` that is data rather than a hole of a sparse
/// file (`lseek(SEEK_DATA)`): `Some(pos)` when `pos` is data, `None` when only a hole is left
/// up to the end. A file system without hole reporting says every byte is data, so the caller
/// reads as before.
pub(crate) fn next_data(file: &std::fs::File, pos: u64) -> std::io::Result<Option<u64>> {
    use std::os::fd::AsRawFd;
    let Ok(offset) = libc::off_t::try_from(pos) else {
        return Ok(None);
    };
    // SAFETY: lseek on a descriptor this `File` owns and keeps open for the call; it moves only
    // that descriptor's offset, which every reader here sets again before reading.
    let at = unsafe { libc::lseek(file.as_raw_fd(), offset, libc::SEEK_DATA) };
    if at < 0 {
        let e = std::io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENXIO) => Ok(None),
            // No hole reporting: everything is data.
            Some(libc::EINVAL) => Ok(Some(pos)),
            _ => Err(e),
        };
    }
    Ok(Some(at as u64))
}

#[cfg(test)]
mod tests {
    /// The nice value of the calling thread, from `/proc/thread-self/stat` (the 19th field; the
    /// second, the command name, is in parentheses and may hold spaces).
    #[cfg(target_os = "linux")]
    fn this_thread_nice() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        after_name.split(' ').nth(16).unwrap().parse().unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lowered_priority_is_the_calling_threads_alone() {
        let before = this_thread_nice();
        let lowered = std::thread::spawn(|| {
            super::lower_this_thread_priority(5);
            this_thread_nice()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (before + 5).min(19));
        assert_eq!(this_thread_nice(), before, "the spawning thread keeps its priority");
    }

    #[test]
    fn holes_of_a_sparse_file_are_skipped() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparse");
        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(b"head").unwrap();
        f.set_len(64 << 20).unwrap();
        drop(f);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"tail").unwrap();
        let f = std::fs::File::open(&p).unwrap();
        use super::next_data;
        assert_eq!(next_data(&f, 0).unwrap(), Some(0));
        // Past the head: the next data is at (or just before, a block's start) the tail.
        let at = next_data(&f, 1 << 20).unwrap().unwrap();
        assert!(at > 1 << 20 && at <= 64 << 20, "{at}");
        assert_eq!(next_data(&f, (64 << 20) + 4).unwrap(), None, "nothing after the end");
    }

    /// Run in a child process by the test below (`TLC_NSS_PROBE` says how): resolves `localhost`
    /// and a name no `/etc/hosts` holds, then prints each look-up's outcome and every shared
    /// library mapped into the process.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_feature = "crt-static"))]
    #[test]
    #[ignore = "a child process of host_names_resolve_without_loading_an_nss_module"]
    fn nss_probe() {
        use std::net::ToSocketAddrs;
        let Ok(mode) = std::env::var("TLC_NSS_PROBE") else { return };
        if mode == "configured" {
            super::resolve_hosts_without_nss_modules();
        }
        for name in ["localhost", "tlc-nss-probe.invalid"] {
            match (name, 80).to_socket_addrs() {
                Ok(addrs) => println!("RESOLVED {name} {:?}", addrs.collect::<Vec<_>>()),
                Err(e) => println!("UNRESOLVED {name} {e}"),
            }
        }
        for line in std::fs::read_to_string("/proc/self/maps").unwrap().lines() {
            if line.contains(".so") {
                println!("MAPPED {line}");
            }
        }
    }

    /// The static build resolves host names with glibc's built-in `files` and `dns` and never
    /// `dlopen`s an NSS module (which would map the system's shared `libc.so.6` beside the static
    /// one). Where `/etc/nsswitch.conf` names another module that is installed (Debian's
    /// `mdns4_minimal`), the same look-ups without the call are shown to load it: the probe sees
    /// what it checks for.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_feature = "crt-static"))]
    #[test]
    fn host_names_resolve_without_loading_an_nss_module() {
        let probe = |mode: &str| {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--ignored", "--exact", "sys::tests::nss_probe", "--nocapture", "--test-threads=1"])
                .env("TLC_NSS_PROBE", mode)
                // A machine whose DNS server does not answer: one second, once.
                .env("RES_OPTIONS", "timeout:1 attempts:1")
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let configured = probe("configured");
        assert!(configured.contains("RESOLVED localhost [127.0.0.1:80"), "{configured}");
        assert!(configured.contains("tlc-nss-probe.invalid"), "{configured}");
        let mapped: Vec<&str> = configured.lines().filter(|l| l.starts_with("MAPPED")).collect();
        assert!(mapped.is_empty(), "an NSS module was loaded: {mapped:#?}");

        let nsswitch = std::fs::read_to_string("/etc/nsswitch.conf").unwrap_or_default();
        let hosts = nsswitch.lines().find_map(|l| l.trim().strip_prefix("hosts:")).unwrap_or("");
        let installed_module = hosts
            .split_whitespace()
            .filter(|w| !w.starts_with('[') && !w.ends_with(']') && !["files", "dns"].contains(w))
            .any(|m| {
                ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"]
                    .iter()
                    .any(|d| std::path::Path::new(d).join(format!("libnss_{m}.so.2")).exists())
            });
        if installed_module {
            let default = probe("default");
            assert!(
                default.lines().any(|l| l.starts_with("MAPPED") && l.contains("libnss_")),
                "hosts: {hosts}; without the call no module was seen loading: {default}"
            );
        }
    }
}

/// How a command run by [`output_within`] ended.
#[derive(Debug)]
pub(crate) enum Bounded {
    /// It exited in time: its status, its stdout (at most the cap) and the start of its stderr.
    Exited {
        status: std::process::ExitStatus,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    /// It was still running when the wait was over, and was killed.
    TimedOut,
    /// It wrote more than the cap to stdout, and was killed.
    TooLarge,
}

/// The most of a bounded command's stderr that is kept (it only ever becomes a message).
const BOUNDED_STDERR_CAP: u64 = 64 * 1024;

/// Runs `cmd` (stdin closed) for at most `wait`, reading at most `cap` bytes of its stdout: a
/// command that blocks (git reading a FIFO planted at `.git/HEAD`) or floods costs the caller
/// `wait`, never forever. The readers of a killed command are left to finish on their own: a
/// grandchild holding the pipe open must not hold the caller too.
pub(crate) fn output_within(cmd: &mut std::process::Command, cap: usize, wait: std::time::Duration) -> std::io::Result<Bounded> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let reader = |pipe: Option<Box<dyn Read + Send>>, limit: u64| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(p) = pipe {
                let _ = p.take(limit).read_to_end(&mut buf);
            }
            let _ = tx.send(buf);
        });
        rx
    };
    let stdout = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>), cap as u64 + 1);
    let stderr = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>), BOUNDED_STDERR_CAP);
    let deadline = std::time::Instant::now() + wait;
    let kill = |child: &mut std::process::Child| {
        let _ = child.kill();
        let _ = child.wait();
    };
    // Stdout closes when the command exits (or has written more than the cap): waiting on it
    // costs no polling delay in the usual case.
    let Ok(out) = stdout.recv_timeout(wait) else {
        kill(&mut child);
        return Ok(Bounded::TimedOut);
    };
    if out.len() > cap {
        kill(&mut child);
        return Ok(Bounded::TooLarge);
    }
    loop {
        if let Some(status) = child.try_wait()? {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let stderr = stderr
                .recv_timeout(left.max(std::time::Duration::from_millis(50)))
                .unwrap_or_default();
            return Ok(Bounded::Exited {
                status,
                stdout: out,
                stderr,
            });
        }
        if std::time::Instant::now() >= deadline {
            kill(&mut child);
            return Ok(Bounded::TimedOut);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
