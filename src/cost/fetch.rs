//! Reading a price source: a local file, or a download through `ureq` (rustls with the bundled
//! web PKI roots) for `http://` and `https://` alike, under one set of [`Limits`]: the body cap,
//! the redirects followed (from either scheme to either), and the timeouts that end a stalled
//! server's download.

use std::io::Read;
use std::time::Duration;

/// What a download may take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The largest body accepted, whatever the server announces or sends (LiteLLM's catalog is
    /// a few MB).
    pub max_body: u64,
    /// Redirects followed before giving up.
    pub max_redirects: u32,
    /// How long connecting, or any one read (the headers, a piece of the body), may wait.
    pub stall: Duration,
    /// How long the whole download may take, redirects included.
    pub total: Duration,
}

impl Limits {
    /// What `tlc prices refresh` uses.
    pub(crate) const DEFAULT: Limits = Limits {
        max_body: 256 << 20,
        max_redirects: 5,
        stall: Duration::from_secs(30),
        total: Duration::from_secs(120),
    };
}

/// Why a price source could not be read; every variant names the file or URL.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("{path}: cannot read: {cause}")]
    Read { path: String, cause: std::io::Error },
    #[error("{url}: HTTP {code}")]
    Status { url: String, code: u16 },
    #[error("{url}: the body is larger than {max_body} bytes; not read")]
    TooLarge { url: String, max_body: u64 },
    #[error("{url}: more than {max_redirects} redirects")]
    TooManyRedirects { url: String, max_redirects: u32 },
    #[error("{url}: the download took longer than {} s", total.as_secs_f64())]
    TooLong { url: String, total: Duration },
    #[error("{url}: the server sent nothing for {} s (timed out)", stall.as_secs_f64())]
    Stalled { url: String, stall: Duration },
    /// Anything else the client reports (no such host, a refused connection, a TLS failure, …).
    #[error("{url}: {cause}")]
    Http { url: String, cause: ureq::Error },
}

/// True when `source` is a URL rather than a path.
pub(crate) fn is_url(source: &str) -> bool {
    source.starts_with("http://") || source.starts_with("https://")
}

/// Reads `source` (a path or a URL), calling `progress(done, total)` as bytes arrive.
pub(crate) fn fetch(source: &str, progress: &mut dyn FnMut(u64, u64)) -> Result<Vec<u8>, FetchError> {
    if !is_url(source) {
        // A local catalog is read within the download's size limit, and never from a FIFO.
        let read = crate::fsread::read_capped(std::path::Path::new(source), Limits::DEFAULT.max_body, crate::fsread::Links::Follow);
        return match read {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err(FetchError::Read {
                path: source.to_string(),
                cause: std::io::Error::from_raw_os_error(libc::ENOENT),
            }),
            Err(e) => Err(FetchError::Read {
                path: source.to_string(),
                cause: e.into_io(),
            }),
        };
    }
    download(source, &Limits::DEFAULT, progress)
}

/// Downloads `url` under `limits`. Any status but 2xx (after redirects) is an error.
pub(crate) fn download(url: &str, limits: &Limits, progress: &mut dyn FnMut(u64, u64)) -> Result<Vec<u8>, FetchError> {
    // The host is resolved without NSS modules (see there).
    crate::sys::resolve_hosts_without_nss_modules();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(limits.max_redirects)
        .timeout_connect(Some(limits.stall))
        .timeout_per_read(Some(limits.stall))
        .timeout_global(Some(limits.total))
        .user_agent(concat!("tlc/", env!("CARGO_PKG_VERSION")))
        // One download per process: a pooled connection would only be one the server may have
        // closed meanwhile.
        .max_idle_connections(0)
        .build()
        .into();
    let describe = |e: ureq::Error| describe(url, limits, e);
    let mut resp = agent.get(url).call().map_err(describe)?;
    let total = resp
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut reader = resp.body_mut().with_config().limit(limits.max_body).reader();
    let mut body = Vec::with_capacity(total.min(limits.max_body).min(64 << 20) as usize);
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buf).map_err(|e| describe(ureq::Error::from(e)))?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
        progress(body.len() as u64, total);
    }
    Ok(body)
}

fn describe(url: &str, limits: &Limits, e: ureq::Error) -> FetchError {
    let url = url.to_string();
    match e {
        ureq::Error::StatusCode(code) => FetchError::Status { url, code },
        ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
            url,
            max_body: limits.max_body,
        },
        ureq::Error::TooManyRedirects => FetchError::TooManyRedirects {
            url,
            max_redirects: limits.max_redirects,
        },
        ureq::Error::Timeout(ureq::Timeout::Global) => FetchError::TooLong { url, total: limits.total },
        ureq::Error::Timeout(_) => FetchError::Stalled { url, stall: limits.stall },
        cause => FetchError::Http { url, cause },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::sync::mpsc;
    use std::time::Instant;

    /// Reads one request's head.
    fn request(s: &mut TcpStream) -> String {
        let mut req = Vec::new();
        let mut buf = [0u8; 1024];
        while !req.windows(4).any(|w| w == b"\r\n\r\n") {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => req.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&req).into_owned()
    }

    /// A server on loopback that answers each connection with the next of `responses`, then
    /// stops; returns its port and the requests it read.
    fn serve(responses: Vec<Vec<u8>>) -> (u16, std::thread::JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for r in responses {
                let (mut s, _) = listener.accept().unwrap();
                seen.push(request(&mut s));
                // The client may stop reading (a body over the cap): a write error is expected.
                let _ = s.write_all(&r);
            }
            seen
        });
        (port, server)
    }

    /// Runs `download` on a thread and fails the test if it has not returned within `bound`:
    /// a hang fails fast instead of stalling the suite.
    fn download_within(url: String, limits: Limits, bound: Duration) -> Result<Vec<u8>, FetchError> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(download(&url, &limits, &mut |_, _| {}));
        });
        rx.recv_timeout(bound).expect("the download did not return in time")
    }

    fn quick() -> Limits {
        Limits {
            stall: Duration::from_millis(500),
            total: Duration::from_secs(5),
            ..Limits::DEFAULT
        }
    }

    #[test]
    fn a_real_server_on_loopback_serves_a_chunked_body() {
        let (port, server) = serve(vec![
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".to_vec(),
        ]);
        let body = fetch(&format!("http://127.0.0.1:{port}/x"), &mut |_, _| {}).unwrap();
        assert_eq!(body, b"hello world");
        assert!(server.join().unwrap()[0].starts_with("GET /x HTTP/1.1"));
    }

    #[test]
    fn redirects_are_followed_absolute_and_relative() {
        let (to, target) = serve(vec![b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone".to_vec()]);
        let (from, first) = serve(vec![
            b"HTTP/1.1 301 Moved\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n".to_vec(),
            format!("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{to}/final\r\nContent-Length: 0\r\n\r\n").into_bytes(),
        ]);
        let body = download_within(format!("http://127.0.0.1:{from}/start"), quick(), Duration::from_secs(10)).unwrap();
        assert_eq!(body, b"done");
        let seen = first.join().unwrap();
        assert!(seen[0].starts_with("GET /start ") && seen[1].starts_with("GET /next "), "{seen:?}");
        assert!(target.join().unwrap()[0].starts_with("GET /final "));
    }

    #[test]
    fn an_http_to_https_redirect_is_followed_with_tls() {
        // The https side is a plain socket: what arrives there must be a TLS handshake record
        // (content type 22, version 3.x), which then fails, as no certificate is offered.
        let tls = TcpListener::bind("127.0.0.1:0").unwrap();
        let tls_port = tls.local_addr().unwrap().port();
        let hello = std::thread::spawn(move || {
            let (mut s, _) = tls.accept().unwrap();
            let mut head = [0u8; 2];
            s.read_exact(&mut head).unwrap();
            head
        });
        let (port, server) = serve(vec![format!(
            "HTTP/1.1 302 Found\r\nLocation: https://127.0.0.1:{tls_port}/prices.json\r\nContent-Length: 0\r\n\r\n"
        )
        .into_bytes()]);
        let url = format!("http://127.0.0.1:{port}/prices.json");
        let err = download_within(url.clone(), quick(), Duration::from_secs(10)).unwrap_err();
        assert!(matches!(err, FetchError::Http { .. }), "{err:?}");
        assert!(err.to_string().starts_with(&url), "{err}");
        assert_eq!(hello.join().unwrap(), [0x16, 0x03], "no TLS handshake after the redirect");
        server.join().unwrap();
    }

    #[test]
    fn redirects_stop_at_the_limit() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let limits = Limits {
            max_redirects: 3,
            ..quick()
        };
        let server = std::thread::spawn(move || {
            // The first request and three redirects; a fifth connection would be a bug.
            for _ in 0..4 {
                let (mut s, _) = listener.accept().unwrap();
                request(&mut s);
                let _ = s.write_all(b"HTTP/1.1 302 Found\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n");
            }
        });
        let err = download_within(format!("http://127.0.0.1:{port}/again"), limits, Duration::from_secs(10)).unwrap_err();
        assert!(err.to_string().ends_with("more than 3 redirects"), "{err}");
        server.join().unwrap();
    }

    #[test]
    fn a_chunked_body_over_the_cap_is_refused() {
        let mut response = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for _ in 0..8 {
            response.extend_from_slice(b"400\r\n");
            response.extend_from_slice(&[b'x'; 0x400]);
            response.extend_from_slice(b"\r\n");
        }
        response.extend_from_slice(b"0\r\n\r\n");
        let (port, server) = serve(vec![response.clone(), response]);
        let url = format!("http://127.0.0.1:{port}/big");
        let limits = Limits { max_body: 4096, ..quick() };
        let err = download_within(url.clone(), limits, Duration::from_secs(10)).unwrap_err();
        assert_eq!(err.to_string(), format!("{url}: the body is larger than 4096 bytes; not read"));
        // The same body under a cap it fits: read whole.
        let limits = Limits { max_body: 8192, ..quick() };
        assert_eq!(download_within(url, limits, Duration::from_secs(10)).unwrap().len(), 8192);
        server.join().unwrap();
    }

    #[test]
    fn a_server_that_stalls_is_timed_out() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (done, wait) = mpsc::channel::<()>();
        let server = std::thread::spawn(move || {
            // Headers and half the body, then nothing, the connection held open until the test
            // is over (or 20 s, so that the server always ends).
            let (mut s, _) = listener.accept().unwrap();
            request(&mut s);
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf_").unwrap();
            let _ = wait.recv_timeout(Duration::from_secs(20));
        });
        let started = Instant::now();
        let url = format!("http://127.0.0.1:{port}/slow");
        let err = download_within(url.clone(), quick(), Duration::from_secs(10)).unwrap_err();
        assert_eq!(err.to_string(), format!("{url}: the server sent nothing for 0.5 s (timed out)"));
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        done.send(()).unwrap();
        server.join().unwrap();
    }

    #[test]
    fn a_status_other_than_success_names_the_url() {
        let (port, server) = serve(vec![b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec()]);
        let url = format!("http://127.0.0.1:{port}/gone");
        assert_eq!(
            download_within(url.clone(), quick(), Duration::from_secs(10))
                .unwrap_err()
                .to_string(),
            format!("{url}: HTTP 404")
        );
        server.join().unwrap();
    }
}
