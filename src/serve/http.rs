//! HTTP/1.1 for `tlc serve`, on std's sockets: the accept loop, a thread per connection, the
//! deadlines and the limits. httparse (hyper's parser) reads each request head; this file frames
//! the answers (a status line, headers, a length or chunks). Why this is not tiny_http any more:
//! docs/decisions/008-the-dashboards-own-connection-loop.md.
//!
//! What a client cannot do here, and what it gets instead:
//! - exhaust the process's file descriptors and stop the server: a failed `accept` is retried
//!   after a pause (5 ms, doubling to 1 s), and while descriptors run out the one kept spare lets
//!   the server take the waiting connection and refuse it at once;
//! - hold more than [`MAX_CONNECTIONS`] connections: the next is answered 503 and closed at once;
//! - hold a worker by not reading: an answer held in memory is written by the connection's own
//!   thread, not a worker, and every write must move within [`WRITE_TIMEOUT`] or the connection
//!   is closed;
//! - hold a connection by sending slowly or not at all: a request head must arrive whole within
//!   [`HEAD_TIMEOUT`] of its first byte (408), and a kept-alive connection idle for
//!   [`IDLE_TIMEOUT`] is closed;
//! - make the server buffer without bound: the request line is read up to [`MAX_REQUEST_LINE`]
//!   bytes (414), the whole head up to [`MAX_HEAD`] bytes and [`MAX_HEADERS`] fields (431), and no
//!   request body is ever read (a GET with one is refused, any other method is).

use super::head::plain;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Connections open at once; the next is answered 503 and closed. A browser opens at most six
/// to one host, so this is room for the operator's tabs and scripts, and it keeps the server's
/// descriptors (one per connection) well under the usual limits of 256 and 1,024 beside SQLite's.
pub(crate) const MAX_CONNECTIONS: usize = 64;
/// The longest request line read (method, target, version); 414 beyond.
pub(crate) const MAX_REQUEST_LINE: usize = 8 * 1024;
/// The longest request head read (the request line and every header field); 431 beyond.
pub(crate) const MAX_HEAD: usize = 16 * 1024;
/// The most header fields a request may carry; 431 beyond.
pub(crate) const MAX_HEADERS: usize = 64;
/// How long a kept-alive connection may wait for its next request. Longer than the pages' 10-s
/// refresh, so a tab's refresh reuses its connection.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a request head may take from its first byte to its end; 408 beyond.
pub(crate) const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one write of an answer (at most [`WRITE_CHUNK`] bytes) may wait for the client to
/// take it; the connection is closed beyond.
pub(crate) const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// The most bytes written under one [`WRITE_TIMEOUT`]: an answer must move at least this much
/// every 5 s.
const WRITE_CHUNK: usize = 64 * 1024;
/// The first pause after a failed `accept`, doubled at each failure in a row up to
/// [`BACKOFF_MAX`] (Go's net/http does the same).
const BACKOFF_FIRST: Duration = Duration::from_millis(5);
const BACKOFF_MAX: Duration = Duration::from_secs(1);
/// What is read from a refused connection before it is closed, so that the refusal is not lost
/// to the reset a close with unread input sends.
const LINGER_BYTES: usize = 4 * 1024 * 1024;
const LINGER_TIME: Duration = Duration::from_secs(2);

/// A request head, read whole.
#[derive(Debug)]
pub(crate) struct Request {
    pub method: String,
    /// The request target as sent (origin form: path and query).
    pub target: String,
    /// HTTP/1.1 (else 1.0: the connection closes after the answer, which is not chunked).
    pub http11: bool,
    pub headers: Vec<(String, String)>,
    /// When its head was read whole: the start of `Server-Timing`.
    pub arrived: Instant,
}

impl Request {
    /// The first field named `name` (case-insensitive).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn count(&self, name: &str) -> usize {
        self.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case(name)).count()
    }

    /// Whether the client asked to close after this answer (HTTP/1.0 always does here).
    pub(crate) fn wants_close(&self) -> bool {
        !self.http11
            || self
                .headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("connection"))
                .any(|(_, v)| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
    }

    /// Whether a body follows the head. None is ever read: the connection closes after the answer.
    pub(crate) fn has_body(&self) -> bool {
        self.header("Transfer-Encoding").is_some()
            || self
                .headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                .any(|(_, v)| v.trim() != "0")
    }
}

/// What reading a request head came to.
enum Head {
    Request(Request),
    /// The client closed, or sent nothing for [`IDLE_TIMEOUT`]: closed without an answer.
    Gone,
    /// Refused before it was read whole (its status and why).
    Refused(u16, String),
}

enum Parsed {
    Partial,
    Done(usize, Request),
    Refused(u16, String),
}

/// Parses the head at the start of `buf`, within the limits.
fn parse(buf: &[u8]) -> Parsed {
    // The request line's length, empty lines before it aside (RFC 9112 §2.2 lets a server skip them).
    let start = buf.iter().position(|b| *b != b'\r' && *b != b'\n').unwrap_or(buf.len());
    let line = buf[start..].iter().position(|b| *b == b'\n').unwrap_or(buf.len() - start);
    if line > MAX_REQUEST_LINE {
        return Parsed::Refused(
            414,
            format!("the request line is longer than {MAX_REQUEST_LINE} bytes: at most that much is read"),
        );
    }
    let too_big = || {
        Parsed::Refused(
            431,
            format!("the request head is longer than {MAX_HEAD} bytes or has more than {MAX_HEADERS} fields"),
        )
    };
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut fields);
    match req.parse(buf) {
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => too_big(),
        Ok(httparse::Status::Partial) => Parsed::Partial,
        Ok(httparse::Status::Complete(len)) if len > MAX_HEAD => too_big(),
        Ok(httparse::Status::Complete(len)) => {
            let request = Request {
                method: req.method.unwrap_or("").to_string(),
                target: req.path.unwrap_or("").to_string(),
                http11: req.version == Some(1),
                headers: req
                    .headers
                    .iter()
                    .map(|h| (h.name.to_string(), String::from_utf8_lossy(h.value).into_owned()))
                    .collect(),
                arrived: Instant::now(),
            };
            if request.count("Host") > 1 {
                // RFC 9112 §3.2: which one would the Host check believe?
                return Parsed::Refused(400, "the request has more than one Host field".into());
            }
            Parsed::Done(len, request)
        }
        Err(httparse::Error::TooManyHeaders) => too_big(),
        Err(e) => Parsed::Refused(400, format!("the request is not HTTP/1.1 ({e})")),
    }
}

/// One client connection: its socket and what was read of it and not yet parsed (the next
/// pipelined requests).
pub(crate) struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn new(stream: TcpStream) -> Conn {
        Conn {
            stream,
            buf: Vec::with_capacity(4096),
        }
    }

    /// Reads the next request head, within [`IDLE_TIMEOUT`] for its first byte and
    /// [`HEAD_TIMEOUT`] from there to its end.
    fn read_head(&mut self) -> Head {
        let waiting = Instant::now();
        let mut first_byte = None;
        let mut chunk = [0u8; 8192];
        loop {
            if !self.buf.is_empty() {
                first_byte.get_or_insert_with(Instant::now);
                match parse(&self.buf) {
                    Parsed::Done(len, request) => {
                        self.buf.drain(..len);
                        return Head::Request(request);
                    }
                    Parsed::Refused(status, why) => return Head::Refused(status, why),
                    Parsed::Partial => {}
                }
            }
            let deadline = match first_byte {
                Some(t) => t + HEAD_TIMEOUT,
                None => waiting + IDLE_TIMEOUT,
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return match first_byte {
                    Some(_) => Head::Refused(
                        408,
                        format!("the request head did not arrive whole within {} s", HEAD_TIMEOUT.as_secs()),
                    ),
                    None => Head::Gone,
                };
            }
            if self.stream.set_read_timeout(Some(left)).is_err() {
                return Head::Gone;
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Head::Gone,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                // The deadline above decides.
                Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => return Head::Gone,
            }
        }
    }

    /// Writes all of `bytes`, each [`WRITE_CHUNK`] of it within [`WRITE_TIMEOUT`].
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        for part in bytes.chunks(WRITE_CHUNK) {
            let deadline = Instant::now() + WRITE_TIMEOUT;
            let mut rest = part;
            while !rest.is_empty() {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::Error::new(
                        ErrorKind::TimedOut,
                        format!("the client took nothing of the answer for {} s", WRITE_TIMEOUT.as_secs()),
                    ));
                }
                self.stream.set_write_timeout(Some(left))?;
                match self.stream.write(rest) {
                    Ok(0) => return Err(ErrorKind::WriteZero.into()),
                    Ok(n) => rest = &rest[n..],
                    // The deadline above decides.
                    Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// Closes after a refusal: our side first, then what the client still sends is read and
    /// dropped for a moment, so that the close does not reset the connection before the client
    /// has read the refusal.
    fn linger(mut self) {
        let _ = self.stream.shutdown(Shutdown::Write);
        let deadline = Instant::now() + LINGER_TIME;
        let mut read = 0;
        let mut chunk = [0u8; 16384];
        while read < LINGER_BYTES {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.stream.set_read_timeout(Some(left)).is_err() {
                return;
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return,
                Ok(n) => read += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    }
}

/// Counts the requests being answered, at most as many as there are workers: the pools hold
/// that many connections, so no request waits for one. Turns go in the order they were asked for
/// (a ticket each), so that under load no request waits behind ones that came after it.
pub(crate) struct Workers {
    n: u64,
    tickets: Mutex<Tickets>,
    freed: Condvar,
}

#[derive(Default)]
struct Tickets {
    /// Tickets handed out.
    issued: u64,
    /// Turns given back.
    done: u64,
}

/// One worker's turn; given back when dropped.
pub(crate) struct Turn<'w>(&'w Workers);

impl Workers {
    pub(crate) fn new(n: usize) -> Workers {
        Workers {
            n: u64::try_from(n.max(1)).unwrap_or(1),
            tickets: Mutex::new(Tickets::default()),
            freed: Condvar::new(),
        }
    }

    /// Waits for a worker's turn: ticket `t` is served once `t - n + 1` turns were given back,
    /// so at most `n` are out at once, in ticket order.
    pub(crate) fn take(&self) -> Turn<'_> {
        let mut t = self.tickets.lock().unwrap_or_else(|p| p.into_inner());
        let mine = t.issued;
        t.issued += 1;
        while mine >= t.done + self.n {
            t = self.freed.wait(t).unwrap_or_else(|p| p.into_inner());
        }
        Turn(self)
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut t = self.0.tickets.lock().unwrap_or_else(|p| p.into_inner());
        t.done += 1;
        // Every waiter checks its ticket: the next in line goes.
        self.0.freed.notify_all();
    }
}

/// An open connection's place under [`MAX_CONNECTIONS`]; given back when dropped.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What answers the requests: `answer` answers one, writing to `conn`, and says whether the
/// connection may stay open.
pub(crate) trait Handler: Send + Sync + 'static {
    fn answer(&self, conn: &mut Conn, request: Request) -> bool;
}

fn serve_connection<H: Handler>(stream: TcpStream, handler: &H) {
    // Answers go out in one write each or in 64 KiB chunks: nothing gains from Nagle's delay.
    let _ = stream.set_nodelay(true);
    let mut conn = Conn::new(stream);
    loop {
        match conn.read_head() {
            Head::Gone => return,
            Head::Refused(status, why) => {
                let _ = conn.write_all(&plain(status, &why));
                conn.linger();
                return;
            }
            Head::Request(request) => {
                let has_body = request.has_body();
                if !handler.answer(&mut conn, request) {
                    if has_body {
                        conn.linger();
                    }
                    return;
                }
            }
        }
    }
}

/// The errors of `accept` that say the process (or the system) is out of descriptors.
fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// The errors of `accept` that concern only the connection being accepted: the next is tried at once.
fn this_connection_only(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::Interrupted | ErrorKind::WouldBlock
    ) || matches!(e.raw_os_error(), Some(libc::EPROTO | libc::EPERM))
}

/// A descriptor held in reserve, given up when `accept` finds none free so that the waiting
/// connection can still be taken and refused, instead of waiting in the queue for nothing.
fn reserve() -> Option<std::fs::File> {
    std::fs::File::open("/dev/null").ok()
}

/// Refuses `stream` at once, from the accept loop: one write that cannot block, then close.
fn turn_away(stream: TcpStream, why: &str) {
    if stream.set_nonblocking(true).is_ok() {
        let _ = (&stream).write(&plain(503, why));
    }
    let _ = stream.shutdown(Shutdown::Write);
}

/// What the accept loop remembers of failures in a row: the last pause, and whether the operator
/// was told (once per run of failures, and once when they end).
#[derive(Default)]
struct Trouble {
    pause: Option<Duration>,
    told: bool,
}

impl Trouble {
    fn tell(&mut self, what: &str) {
        if !self.told {
            eprintln!("tlc serve: {what}");
            self.told = true;
        }
    }

    /// Waits before the next `accept`: 5 ms, doubling at each failure in a row up to 1 s.
    fn wait(&mut self, e: &io::Error) {
        let next = self.pause.map_or(BACKOFF_FIRST, |b| (b * 2).min(BACKOFF_MAX));
        self.tell(&format!(
            "cannot accept a connection: {e}; retrying after a pause ({} ms, doubling to at most {} s)",
            BACKOFF_FIRST.as_millis(),
            BACKOFF_MAX.as_secs()
        ));
        self.pause = Some(next);
        std::thread::sleep(next);
    }

    fn over(&mut self) {
        if self.told {
            eprintln!("tlc serve: accepting connections again");
        }
        *self = Trouble::default();
    }
}

/// Accepts connections until the process ends, each served by a thread of its own. Never returns:
/// no error of `accept` ends the loop.
pub(crate) fn serve<H: Handler>(listener: TcpListener, handler: Arc<H>) -> ! {
    let open = Arc::new(AtomicUsize::new(0));
    let mut spare = reserve();
    let mut trouble = Trouble::default();
    let busy = format!("tlc serve has {MAX_CONNECTIONS} connections open, its most; try again in a moment");
    // A rendezvous: a connection is handed over only to a kept thread waiting for one.
    let (idle, waiting) = mpsc::sync_channel::<(TcpStream, Slot)>(0);
    let waiting = Arc::new(Mutex::new(waiting));
    let exhausted = "tlc serve has no file descriptor free for this connection; try again in a moment";
    loop {
        let accepted = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if this_connection_only(&e) => continue,
            Err(e) if out_of_descriptors(&e) => {
                let Some(held) = spare.take() else {
                    trouble.wait(&e);
                    spare = reserve();
                    continue;
                };
                trouble.tell(&format!(
                    "cannot accept a connection: {e}; until descriptors are free, each connection is answered 503 and closed"
                ));
                drop(held);
                // With the spare's descriptor free: the waiting connection, or the next one.
                match listener.accept() {
                    Ok((stream, _)) => {
                        spare = reserve();
                        if spare.is_none() {
                            // Still none free: refused now, not left in the queue.
                            turn_away(stream, exhausted);
                            spare = reserve();
                            continue;
                        }
                        stream
                    }
                    Err(e) => {
                        spare = reserve();
                        trouble.wait(&e);
                        continue;
                    }
                }
            }
            Err(e) => {
                trouble.wait(&e);
                continue;
            }
        };
        trouble.over();
        if open.load(Ordering::Acquire) >= MAX_CONNECTIONS {
            turn_away(accepted, &busy);
            continue;
        }
        open.fetch_add(1, Ordering::AcqRel);
        let job = (accepted, Slot(open.clone()));
        // A thread that finished its connection takes this one, else a new thread does.
        let job = match idle.try_send(job) {
            Ok(()) => continue,
            Err(mpsc::TrySendError::Full(job) | mpsc::TrySendError::Disconnected(job)) => job,
        };
        let (h, waiting) = (handler.clone(), waiting.clone());
        let spawned = std::thread::Builder::new()
            .name("serve-conn".into())
            .spawn(move || connection_thread(job, &*h, &waiting));
        if let Err(e) = spawned {
            // The closure, its socket and its slot are dropped with the error: the client sees
            // the connection close.
            trouble.wait(&e);
        }
    }
}

/// How long a connection's thread, its connection closed, waits for the next one before it ends.
const THREAD_IDLE: Duration = Duration::from_secs(30);

/// Serves `job`, then the connections the accept loop hands over while this thread waits, until
/// none comes for [`THREAD_IDLE`]. Starting a thread for each connection cost a connection's round
/// trip a tenth of a millisecond and more on a busy machine; a thread kept is handed the next.
fn connection_thread<H: Handler>(mut job: (TcpStream, Slot), handler: &H, waiting: &Mutex<mpsc::Receiver<(TcpStream, Slot)>>) {
    loop {
        let (stream, slot) = job;
        serve_connection(stream, handler);
        drop(slot);
        // One kept thread waits on the channel at a time; the others wait for their turn here.
        let next = waiting.lock().unwrap_or_else(|p| p.into_inner()).recv_timeout(THREAD_IDLE);
        match next {
            Ok(j) => job = j,
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_are_at_most_n_and_go_in_the_order_asked() {
        let workers = Arc::new(Workers::new(1));
        let first = workers.take();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for i in 0..4u64 {
            let (w, order) = (workers.clone(), order.clone());
            waiting.push(std::thread::spawn(move || {
                let _turn = w.take();
                order.lock().unwrap().push(i);
            }));
            // Each asks after the one before it.
            while workers.tickets.lock().unwrap().issued < 2 + i {
                std::thread::yield_now();
            }
        }
        std::thread::sleep(Duration::from_millis(50));
        assert!(order.lock().unwrap().is_empty(), "no turn while the one is out");
        drop(first);
        for t in waiting {
            t.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_head_is_read_within_its_limits() {
        let Parsed::Done(len, r) = parse(b"GET /a?b=1 HTTP/1.1\r\nHost: x:1\r\nConnection: close\r\n\r\nGET /next") else {
            panic!("a whole head")
        };
        assert_eq!(len, 53);
        assert_eq!((r.method.as_str(), r.target.as_str(), r.http11), ("GET", "/a?b=1", true));
        assert_eq!(r.header("host"), Some("x:1"));
        assert!(r.wants_close() && !r.has_body());
        assert!(matches!(parse(b"GET / HTTP/1.1\r\nHost: x"), Parsed::Partial));
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_REQUEST_LINE));
        assert!(matches!(parse(long.as_bytes()), Parsed::Refused(414, _)));
        assert!(matches!(parse(&vec![b'a'; MAX_REQUEST_LINE + 1]), Parsed::Refused(414, _)));
        let fields = format!("GET / HTTP/1.1\r\n{}", "X-A: b\r\n".repeat(MAX_HEADERS + 1) + "\r\n");
        assert!(matches!(parse(fields.as_bytes()), Parsed::Refused(431, _)));
        let big = format!("GET / HTTP/1.1\r\nX-A: {}\r\n", "b".repeat(MAX_HEAD));
        assert!(matches!(parse(big.as_bytes()), Parsed::Refused(431, _)));
        assert!(matches!(
            parse(b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
            Parsed::Refused(400, _)
        ));
        assert!(matches!(parse(b"PRI * HTTP/2.0\r\n\r\n"), Parsed::Refused(400, _)));
        let Parsed::Done(_, r) = parse(b"GET / HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc") else {
            panic!("a whole head")
        };
        assert!(r.wants_close() && r.has_body());
    }
}
