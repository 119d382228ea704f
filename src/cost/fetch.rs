//! Reading a price source: a local file, or a download. `http://` is a small blocking HTTP/1.1
//! client over `std::net` (GET, `Connection: close`, Content-Length / chunked / until-EOF bodies,
//! up to five redirects); `https://` goes through `ureq` with rustls and the bundled web PKI roots.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);
const MAX_REDIRECTS: usize = 5;

/// True when `source` is a URL rather than a path.
pub fn is_url(source: &str) -> bool {
    source.starts_with("http://") || source.starts_with("https://")
}

/// Reads `source` (a path or a URL), calling `progress(done, total)` as bytes arrive.
pub fn fetch(source: &str, progress: &mut dyn FnMut(u64, u64)) -> Result<Vec<u8>, String> {
    if !is_url(source) {
        return std::fs::read(source).map_err(|e| format!("{source}: cannot read: {e}"));
    }
    if source.starts_with("https://") {
        return get_https(source, progress);
    }
    let mut url = source.to_string();
    for _ in 0..=MAX_REDIRECTS {
        match get(&url, progress)? {
            Response::Body(b) => return Ok(b),
            Response::Redirect(to) => url = to,
        }
    }
    Err(format!("{source}: more than {MAX_REDIRECTS} redirects"))
}

enum Response {
    Body(Vec<u8>),
    Redirect(String),
}

#[derive(Debug)]
struct Url<'a> {
    host: &'a str,
    port: u16,
    path: &'a str,
}

fn parse_url(url: &str) -> Result<Url<'_>, String> {
    if url.starts_with("https://") {
        return Err(format!("{url}: an https URL reached the plain http client"));
    }
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("{url}: not an http:// URL"))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || p.is_empty() => (h, p.parse().map_err(|_| format!("{url}: bad port {p:?}"))?),
        _ => (authority, 80),
    };
    if host.is_empty() {
        return Err(format!("{url}: no host"));
    }
    Ok(Url { host, port, path })
}

/// The largest download accepted (LiteLLM's catalog is a few MB).
const MAX_BODY: u64 = 256 << 20;

fn get_https(url: &str, progress: &mut dyn FnMut(u64, u64)) -> Result<Vec<u8>, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(TIMEOUT * 4)).build().into();
    let mut resp = agent
        .get(url)
        .header("User-Agent", concat!("tlc/", env!("CARGO_PKG_VERSION")))
        .call()
        .map_err(|e| format!("{url}: {e}"))?;
    let total = resp
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut reader = resp.body_mut().with_config().limit(MAX_BODY).reader();
    let mut body = Vec::with_capacity(total.min(MAX_BODY) as usize);
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buf).map_err(|e| format!("{url}: cannot read the body: {e}"))?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
        progress(body.len() as u64, total);
    }
    Ok(body)
}

fn get(url: &str, progress: &mut dyn FnMut(u64, u64)) -> Result<Response, String> {
    let u = parse_url(url)?;
    let err = |what: &str, e: std::io::Error| format!("{url}: {what}: {e}");
    let addr = (u.host, u.port)
        .to_socket_addrs()
        .map_err(|e| err("cannot resolve the host", e))?
        .next()
        .ok_or_else(|| format!("{url}: the host has no address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT).map_err(|e| err("cannot connect", e))?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(|e| err("socket", e))?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(|e| err("socket", e))?;
    let host_header = if u.port == 80 {
        u.host.to_string()
    } else {
        format!("{}:{}", u.host, u.port)
    };
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: tlc/{}\r\nAccept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
        u.path,
        env!("CARGO_PKG_VERSION")
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| err("cannot send the request", e))?;
    let mut r = BufReader::new(stream);
    let mut status_line = String::new();
    r.read_line(&mut status_line).map_err(|e| err("cannot read the response", e))?;
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{url}: not an HTTP response: {:?}", status_line.trim()))?;
    let mut length: Option<u64> = None;
    let mut chunked = false;
    let mut location = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).map_err(|e| err("cannot read the headers", e))? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().ok(),
                "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
                "location" => location = Some(value.to_string()),
                _ => {}
            }
        }
    }
    if (300..400).contains(&status) {
        let to = location.ok_or_else(|| format!("{url}: HTTP {status} without a Location"))?;
        let to = if to.starts_with('/') {
            format!("http://{host_header}{to}")
        } else {
            to
        };
        return Ok(Response::Redirect(to));
    }
    if status != 200 {
        return Err(format!("{url}: HTTP {status}"));
    }
    let total = length.unwrap_or(0);
    let mut body = Vec::with_capacity(total.min(64 << 20) as usize);
    if chunked {
        loop {
            let mut size_line = String::new();
            r.read_line(&mut size_line).map_err(|e| err("cannot read a chunk", e))?;
            let size = u64::from_str_radix(size_line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| format!("{url}: bad chunk size {:?}", size_line.trim()))?;
            if size == 0 {
                break;
            }
            let start = body.len();
            body.resize(start + size as usize, 0);
            r.read_exact(&mut body[start..]).map_err(|e| err("the body was cut short", e))?;
            let mut crlf = [0u8; 2];
            r.read_exact(&mut crlf).map_err(|e| err("the body was cut short", e))?;
            progress(body.len() as u64, 0);
        }
    } else {
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = r.read(&mut buf).map_err(|e| err("cannot read the body", e))?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&buf[..n]);
            progress(body.len() as u64, total);
            if length.is_some_and(|l| body.len() as u64 >= l) {
                break;
            }
        }
        if let Some(l) = length {
            if (body.len() as u64) < l {
                return Err(format!("{url}: the body was cut short ({} of {l} bytes)", body.len()));
            }
            body.truncate(l as usize);
        }
    }
    Ok(Response::Body(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_host_port_and_path() {
        let u = parse_url("http://127.0.0.1:8080/prices.json?x=1").unwrap();
        assert_eq!((u.host, u.port, u.path), ("127.0.0.1", 8080, "/prices.json?x=1"));
        let u = parse_url("http://example.org").unwrap();
        assert_eq!((u.host, u.port, u.path), ("example.org", 80, "/"));
        assert!(parse_url("https://example.org/x").is_err());
    }

    #[test]
    fn a_real_server_on_loopback_serves_a_chunked_body() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut req = [0u8; 1024];
            let _ = s.read(&mut req).unwrap();
            s.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
                .unwrap();
        });
        let body = fetch(&format!("http://127.0.0.1:{port}/x"), &mut |_, _| {}).unwrap();
        assert_eq!(body, b"hello world");
        server.join().unwrap();
    }
}
