//! Issue 53, item 4: `tlc serve` against hostile local clients, over real sockets on 127.0.0.1
//! and the built binary. The process runs out of file descriptors under a lowered
//! RLIMIT_NOFILE; connections beyond the cap; stalled clients that pipeline requests and read
//! nothing; a 64 MiB request line and oversized heads; another user (uid `nobody`), and a request
//! without the cookie, without the token. Before this, the first stopped the dashboard for good,
//! the second and third left it answering no one, the fourth was buffered whole, and the last read
//! the operator's prompts.

use crate::common::*;
use crate::serve::{parse_answer, raw_within, recorded, Http, Served, NOW, SCRIPT, SESSION};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

/// A GET of `path` with the server's Host and cookie, as a keep-alive client sends it.
fn request(s: &Served, path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{}\r\n", s.host, s.cookie())
}

/// A GET of `path` that closes after its answer.
fn request_close(s: &Served, path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{}\r\n", s.host, s.cookie())
}

fn connect(port: u16) -> TcpStream {
    TcpStream::connect(("127.0.0.1", port)).expect("connect to tlc serve")
}

/// What a connection has said within `wait` without being asked anything: `None` while it stays
/// open and silent, else what it sent before it closed (or the bytes so far, once some came).
fn said_within(c: &mut TcpStream, wait: Duration) -> Option<Vec<u8>> {
    let deadline = Instant::now() + wait;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return if buf.is_empty() { None } else { Some(buf) };
        }
        c.set_read_timeout(Some(left)).expect("read timeout");
        match c.read(&mut chunk) {
            Ok(0) => return Some(buf),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            // Reset: closed.
            Err(_) => return Some(buf),
        }
    }
}

/// Reads one answer (its head and its `Content-Length` body) from a connection that stays open.
fn answer_on(c: &mut TcpStream, wait: Duration) -> Result<Http, String> {
    let deadline = Instant::now() + wait;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| format!("no Content-Length: {head}"))?;
            if buf.len() >= end + 4 + len {
                return parse_answer(&buf[..end + 4 + len]).ok_or_else(|| "not an HTTP answer".to_string());
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!("no whole answer in {wait:?} ({} bytes read)", buf.len()));
        }
        c.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        match c.read(&mut chunk) {
            Ok(0) => return Err(format!("closed after {} bytes", buf.len())),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// Asks `path` until it is answered 200 or `wait` has passed; each failure named.
fn served_again(s: &Served, path: &str, wait: Duration) -> Result<Http, Vec<String>> {
    let deadline = Instant::now() + wait;
    let mut failures = Vec::new();
    while Instant::now() < deadline {
        match raw_within(s.port, &request_close(s, path), Duration::from_secs(5)) {
            Ok(r) if r.status == 200 => return Ok(r),
            Ok(r) => failures.push(format!("{} {}", r.status, r.text().chars().take(200).collect::<String>())),
            Err(e) => failures.push(e),
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(failures)
}

/// The server process's peak resident memory (VmHWM), in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/<pid>/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/<pid>/status")
}

/// As many requests as `tlc serve` answers at once (its default): a stalled client per worker
/// stopped the old server.
fn default_workers() -> usize {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    (cores * 2).clamp(4, 16)
}

#[test]
fn when_file_descriptors_run_out_the_server_refuses_at_once_and_serves_again_once_they_are_freed() {
    let w = World::new();
    // 64 descriptors: the server runs out of them before its cap of 64 connections.
    let s = Served::start_with(&w, &w.repo, &[], Some(NOW), |c| {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            c.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 64,
                    rlim_max: 64,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", s.pid())).unwrap();
    let open_files = limits.lines().find(|l| l.starts_with("Max open files")).unwrap().to_string();
    assert!(open_files.split_whitespace().nth(3) == Some("64"), "{open_files}");
    // Served, its databases' files opened.
    s.ok("/");
    s.ok("/api/sessions");

    // 100 idle connections against 64 descriptors.
    let mut held: Vec<TcpStream> = (0..100).map(|_| connect(s.port)).collect();
    // The last one is beyond what the process can hold: taken and refused at once, not left in
    // the queue.
    let last =
        said_within(held.last_mut().unwrap(), Duration::from_secs(5)).expect("the connection beyond the descriptors is refused at once");
    let answer = parse_answer(&last).unwrap_or_else(|| panic!("an HTTP answer: {:?}", String::from_utf8_lossy(&last)));
    assert_eq!(answer.status, 503, "{}", answer.text());
    assert!(answer.text().contains("file descriptor"), "{}", answer.text());
    // Some were held open (the server took what it could), the rest refused.
    let mut open = 0;
    let mut refused = 0;
    for c in &mut held {
        match said_within(c, Duration::from_millis(50)) {
            None => open += 1,
            Some(b) => {
                assert!(b.is_empty() || b.starts_with(b"HTTP/1.1 503 "), "{:?}", String::from_utf8_lossy(&b));
                refused += 1;
            }
        }
    }
    assert!(open >= 20 && refused >= 10, "{open} held open, {refused} refused");

    // The idle connections close: the server answers again, on the same listening socket.
    drop(held);
    let r = served_again(&s, "/", Duration::from_secs(15))
        .unwrap_or_else(|f| panic!("not served again after the descriptors were freed: {f:?}"));
    assert!(r.text().contains("<nav>"));
    // And again under the same pressure: the loop survived once, it survives twice.
    let held: Vec<TcpStream> = (0..100).map(|_| connect(s.port)).collect();
    std::thread::sleep(Duration::from_millis(500));
    drop(held);
    served_again(&s, "/api/sessions", Duration::from_secs(15)).unwrap_or_else(|f| panic!("not served after the second exhaustion: {f:?}"));
}

#[test]
fn connections_beyond_64_are_refused_at_once_and_the_first_64_are_served() {
    let w = World::new();
    let s = Served::start(&w);
    let mut held: Vec<TcpStream> = (0..64).map(|_| connect(s.port)).collect();
    // Each of the 64 is taken (a request on it is answered), so all 64 are open at once.
    for c in &mut held {
        c.write_all(request(&s, "/assets/icon.svg").as_bytes()).unwrap();
    }
    for (i, c) in held.iter_mut().enumerate() {
        let r = answer_on(c, Duration::from_secs(20)).unwrap_or_else(|e| panic!("connection {i}: {e}"));
        assert_eq!(r.status, 200, "connection {i}: {}", r.text());
    }
    let mut extra = connect(s.port);
    let t = Instant::now();
    let said = said_within(&mut extra, Duration::from_secs(5)).expect("the 65th connection is refused at once");
    let answer = parse_answer(&said).expect("an HTTP answer");
    assert_eq!(answer.status, 503, "{}", answer.text());
    assert!(answer.text().contains("64 connections"), "{}", answer.text());
    assert!(t.elapsed() < Duration::from_secs(3), "refused after {:?}", t.elapsed());
    // A held connection is still served.
    held[0].write_all(request(&s, "/api/sessions").as_bytes()).unwrap();
    let r = answer_on(&mut held[0], Duration::from_secs(20)).unwrap_or_else(|e| panic!("an answer on a held connection: {e}"));
    assert_eq!(r.status, 200, "{}", r.text());
    drop(held);
    served_again(&s, "/", Duration::from_secs(10)).unwrap_or_else(|f| panic!("not served once the connections closed: {f:?}"));
}

#[test]
fn clients_that_pipeline_requests_and_read_nothing_hold_no_worker_and_are_dropped_within_seconds() {
    let w = World::new();
    let s = Served::start(&w);
    let page = "/assets/style.css";
    let size = s.ok(page).body.len();
    // Enough answers to fill both sides' socket buffers (a few MiB on loopback) many times over.
    let count = (64 * 1024 * 1024 / size.max(1)).clamp(200, 20_000);
    let pipelined = request(&s, page).repeat(count);
    let stalled: Vec<TcpStream> = (0..default_workers())
        .map(|_| {
            let c = connect(s.port);
            let mut w = c.try_clone().unwrap();
            let text = pipelined.clone();
            // Written from a thread: the server stops reading once its answers back up, and so
            // the write may block; it ends when the server closes.
            std::thread::spawn(move || {
                let _ = w.write_all(text.as_bytes());
            });
            c
        })
        .collect();
    let started = Instant::now();
    // Let the stalled clients' answers back up.
    std::thread::sleep(Duration::from_secs(2));
    // Another client is answered meanwhile, at once.
    let t = Instant::now();
    let r = raw_within(s.port, &request_close(&s, "/api/sessions"), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("another client while {} stalled ones read nothing: {e}", stalled.len()));
    assert_eq!(r.status, 200);
    assert!(t.elapsed() < Duration::from_secs(5), "answered after {:?}", t.elapsed());
    // Each stalled connection is dropped by the server within seconds (a write that moves
    // nothing for 5 s ends it): read after 15 s, what it sent ends after what the buffers held,
    // where a connection still open would go on answering, then fall silent.
    std::thread::sleep(Duration::from_secs(15).saturating_sub(started.elapsed()));
    for (i, mut c) in stalled.into_iter().enumerate() {
        c.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut chunk = vec![0u8; 1 << 20];
        let mut read = 0usize;
        let ended = loop {
            match c.read(&mut chunk) {
                Ok(0) => break Ok(()),
                Ok(n) => read += n,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break Err(e),
                // Reset: the server closed with requests unread.
                Err(_) => break Ok(()),
            }
        };
        assert!(
            ended.is_ok(),
            "stalled connection {i} still open {:?} after the stall began ({read} bytes read after, of {} answers of {size} bytes asked)",
            started.elapsed(),
            count
        );
        assert!(read < count * size, "connection {i}: every answer came: it was never dropped");
    }
    s.ok("/");
}

#[test]
fn a_64_mib_request_line_gets_414_at_once_and_an_oversized_head_431_without_being_buffered() {
    let w = World::new();
    let s = Served::start(&w);
    s.ok("/");
    let before = peak_kib(s.pid());
    let c = connect(s.port);
    let mut reader = c.try_clone().unwrap();
    let answer = std::thread::spawn(move || {
        reader.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut buf = Vec::new();
        let _ = reader.read_to_end(&mut buf);
        buf
    });
    let mut writer = c;
    let mut sent = 0usize;
    let piece = vec![b'a'; 1 << 20];
    if writer.write_all(b"GET /").is_ok() {
        for _ in 0..64 {
            // The server closes after its answer: the writes fail from there on.
            if writer.write_all(&piece).is_err() {
                break;
            }
            sent += piece.len();
        }
    }
    let got = answer.join().unwrap();
    let r = parse_answer(&got).unwrap_or_else(|| {
        panic!(
            "an answer to the 64 MiB line ({sent} bytes sent): {:?}",
            String::from_utf8_lossy(&got)
        )
    });
    assert_eq!(r.status, 414, "{}", r.text());
    assert!(r.text().contains("8192 bytes"), "{}", r.text());
    let grew = peak_kib(s.pid()).saturating_sub(before);
    assert!(
        grew < 16 * 1024,
        "the server's peak memory grew by {grew} KiB over a 64 MiB line ({sent} bytes were sent)"
    );

    // A head of one 64 KiB field, and one of 100 fields: 431.
    for head in [
        format!("X-Big: {}\r\n", "b".repeat(64 * 1024)),
        (0..100).map(|i| format!("X-F{i}: v\r\n")).collect::<String>(),
    ] {
        let r = raw_within(
            s.port,
            &format!("GET / HTTP/1.1\r\nHost: {}\r\n{}{head}\r\n", s.host, s.cookie()),
            Duration::from_secs(10),
        )
        .unwrap_or_else(|e| panic!("an oversized head: {e}"));
        assert_eq!(r.status, 431, "{}", r.text());
    }
    // A head that never ends is dropped after its deadline (10 s) with 408.
    let mut slow = connect(s.port);
    slow.write_all(format!("GET / HTTP/1.1\r\nHost: {}\r\n", s.host).as_bytes())
        .unwrap();
    let t = Instant::now();
    let said = said_within(&mut slow, Duration::from_secs(20)).expect("an unfinished head is answered within its deadline");
    assert!(said.starts_with(b"HTTP/1.1 408 "), "{:?}", String::from_utf8_lossy(&said));
    assert!(t.elapsed() >= Duration::from_secs(9), "after {:?}", t.elapsed());
    let after = peak_kib(s.pid()).saturating_sub(before);
    assert!(after < 16 * 1024, "peak memory grew by {after} KiB");
    s.ok("/");
}

/// What user `nobody` runs: its uid, whether it can read the database (it cannot: the premise),
/// then a request for `$TARGET` without the token, and the answer.
const NOBODY_ASKS: &str = r#"id -u
cat "$DB" >/dev/null 2>&1 && echo "the database is readable"
exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$TARGET" "$HOSTNAME_PORT" >&3
cat <&3"#;

/// Runs `script` with bash as user `nobody` (uid and gid 65534), from `/`, with no environment
/// but `vars`: its stdout.
fn as_nobody(script: &str, vars: &[(&str, String)]) -> String {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new("/bin/bash");
    c.arg("-c").arg(script).current_dir("/").env_clear().env("PATH", "/usr/bin:/bin");
    for (k, v) in vars {
        c.env(k, v);
    }
    // SAFETY: setgroups, setgid and setuid are async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        c.pre_exec(|| {
            if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = c.output().expect("bash as nobody");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn another_user_or_a_request_without_the_cookie_gets_403_and_nothing_of_the_record() {
    let w = recorded();
    let s = Served::start(&w);
    let api = format!("/api/sessions/{SESSION}");
    // The operator, with the cookie the printed URL set, reads the prompt.
    assert!(s.ok(&api).text().contains(SCRIPT), "the prompt is in the session's JSON");
    let paths = [
        api.clone(),
        format!("/sessions/{SESSION}"),
        "/".to_string(),
        "/api/overview".to_string(),
        "/api/event_log".to_string(),
        "/assets/style.css".to_string(),
        format!("{api}?token=0123456789abcdef0123456789abcdef"),
    ];
    // From another uid, where this test can switch to one (it runs as root).
    if unsafe { libc::geteuid() } == 0 {
        for path in &paths {
            let out = as_nobody(
                NOBODY_ASKS,
                &[
                    ("PORT", s.port.to_string()),
                    ("TARGET", path.clone()),
                    ("HOSTNAME_PORT", s.host.clone()),
                    ("DB", w.repo.join(".tlc/harness/state/tlc.db").display().to_string()),
                ],
            );
            let (uid, answer) = out.split_once('\n').unwrap_or((&out, ""));
            assert_eq!(uid, "65534", "ran as nobody: {out}");
            assert!(
                !answer.contains("the database is readable"),
                "the premise: nobody cannot read the state folder: {out}"
            );
            assert!(answer.starts_with("HTTP/1.1 403 "), "{path} as nobody: {answer:.600}");
            assert!(!answer.contains(SCRIPT) && !answer.contains(SESSION), "{answer}");
        }
    } else {
        eprintln!("not root: no request from another uid (the ones without the cookie follow)");
    }
    // From this uid: no cookie, a wrong cookie, a wrong bearer token, a page of another site
    // (whose fetch the browser sends without the SameSite=Strict cookie).
    for path in &paths {
        for extra in [
            String::new(),
            format!("Cookie: tlc_token_{}=0123456789abcdef0123456789abcdef\r\n", s.port),
            "Authorization: Bearer 0123456789abcdef0123456789abcdef\r\n".to_string(),
            "Origin: http://evil.example\r\nSec-Fetch-Site: cross-site\r\n".to_string(),
        ] {
            let r = raw_within(
                s.port,
                &format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n", s.host),
                Duration::from_secs(20),
            )
            .unwrap();
            assert_eq!(r.status, 403, "{path} with {extra:?}: {}", r.text());
            assert!(!r.text().contains(SCRIPT) && !r.text().contains(SESSION), "{}", r.text());
            assert!(r.text().contains("token"), "the refusal says what is missing: {}", r.text());
        }
    }
}

#[test]
fn open_hands_the_browser_a_code_that_lets_in_once_never_the_token() {
    let w = World::new();
    // A desktop opener that writes down the command line it was given (what `ps` shows others).
    let bin = w.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let seen = w.dir.path().join("opened");
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    std::fs::write(
        bin.join(opener),
        format!(
            "#!/bin/sh\necho \"$@\" > '{}.tmp' && mv '{}.tmp' '{}'\n",
            seen.display(),
            seen.display(),
            seen.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join(opener), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let s = Served::start_with(&w, &w.repo, &["--open"], Some(NOW), |c| {
        c.env("PATH", &path);
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let opened = loop {
        if let Ok(t) = std::fs::read_to_string(&seen) {
            break t.trim().to_string();
        }
        assert!(Instant::now() < deadline, "the opener was not run");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!opened.contains(&s.token), "the token is on the opener's command line: {opened}");
    let target = opened
        .strip_prefix(&format!("http://{}", s.host))
        .unwrap_or_else(|| panic!("{opened}"));
    assert!(target.starts_with("/?open="), "{opened}");
    let ask = |extra: &str| {
        raw_within(
            s.port,
            &format!("GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n", s.host),
            Duration::from_secs(20),
        )
        .unwrap()
    };
    // The first visit: the cookie of the token, and the code out of the address bar.
    let r = ask("");
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(r.header("Location"), Some("/"));
    let cookie = r.header("Set-Cookie").unwrap_or_default();
    assert!(
        cookie.starts_with(&format!("tlc_token_{}={};", s.port, s.token)) && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    // Used up: whoever read it from the command line comes too late.
    let r = ask("");
    assert_eq!(r.status, 403, "{}", r.text());
    s.ok("/");
}
