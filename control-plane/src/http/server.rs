//! Connections: accepting, the connection cap, the header-read and idle
//! timeouts, and problem documents for the errors hyper answers by itself.
//!
//! axum's `serve` has no knobs for any of this, so the accept loop is ours,
//! over hyper's HTTP/1 connection. A slow or hostile client is cut off,
//! never the server (docs/OPERATIONS.md, "Connections"):
//! - **header-read timeout**: a request head must arrive in full within this
//!   long of its first byte (and a new connection must send one within this
//!   long of opening);
//! - **idle timeout**: a kept-alive connection waiting for its next request
//!   is closed after this long;
//! - **body clocks**: a pause between body bytes, and the whole body, are
//!   timed per request by [`super::body_clock`] (either answers 408);
//! - **connection caps**: past the listener's cap, or past the per-address
//!   cap for the client's address, a new connection gets one 503 problem
//!   document and is closed.
//!
//! hyper answers a malformed request head (400), an over-long URI (414) and
//! too many or too large header fields (431) itself, with an empty body and
//! no hook to change it. [`Guarded`] sees those heads on their way out, by
//! their shape (a 4xx/5xx head with no Content-Type and Content-Length 0,
//! which no route of ours produces), and sends a problem document instead.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::HeaderMap;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

use super::context;
use crate::config::{Cidr, HttpConfig};
use crate::http::error::{PROBLEM_JSON, title_for};

/// Header fields per request; more is a 431. (A request head larger than
/// hyper's read buffer, about 400 KiB, is a 431 too; a URI over 64 KiB a 414.)
const MAX_HEADERS: usize = 100;

/// Limits every connection of one listener shares.
#[derive(Clone)]
pub struct Limits {
    pub header_read: Duration,
    pub idle: Duration,
    pub base_url: Arc<str>,
    slots: Arc<Semaphore>,
    per_address: Arc<PerAddress>,
    /// `[http] trusted_proxies`.
    trusted: Arc<[Cidr]>,
}

impl Limits {
    pub fn new(config: &HttpConfig, base_url: Arc<str>) -> Limits {
        let trusted: Arc<[Cidr]> = config.trusted_proxy_blocks().into();
        Limits {
            header_read: Duration::from_secs(config.header_read_timeout_secs),
            idle: Duration::from_secs(config.idle_timeout_secs),
            base_url,
            slots: Arc::new(Semaphore::new(config.max_connections)),
            per_address: Arc::new(PerAddress {
                cap: config.max_connections_per_address,
                uncapped: config
                    .uncapped_addresses
                    .iter()
                    .map(|ip| client_of(*ip))
                    .collect(),
                trusted: Arc::clone(&trusted),
                open: Mutex::new(HashMap::new()),
            }),
            trusted,
        }
    }
}

/// Open connections per client, for the per-address cap. An entry lives
/// only while its client has a connection open, so the map never holds
/// more entries than the listener has connections.
struct PerAddress {
    /// 0: no cap.
    cap: usize,
    uncapped: Vec<IpAddr>,
    /// Trusted proxies carry many clients: never capped.
    trusted: Arc<[Cidr]>,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// Who a peer address counts as: an IPv4 address (IPv4-mapped IPv6 too),
/// or an IPv6 /64, the block one subscriber or host is normally given, so
/// that walking through one's own addresses does not multiply the cap.
fn client_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

impl PerAddress {
    /// A slot for one more connection from `ip`, or `None` past the cap.
    fn take(self: &Arc<Self>, ip: IpAddr) -> Option<AddressSlot> {
        let client = client_of(ip);
        if self.cap == 0
            || self.uncapped.contains(&client)
            || self.trusted.iter().any(|block| block.contains(ip))
        {
            return Some(AddressSlot {
                owner: None,
                client,
            });
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(client).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            owner: Some(Arc::clone(self)),
            client,
        })
    }
}

/// One counted connection; dropping it gives the slot back.
struct AddressSlot {
    owner: Option<Arc<PerAddress>>,
    client: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let Some(owner) = &self.owner else { return };
        let mut open = owner.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.client);
            }
        }
    }
}

/// Accepts connections on `listener` and serves `router` on each until
/// `shutdown` resolves; then waits for open connections to finish their
/// requests (the caller bounds that wait).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> GracefulShutdown {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of file descriptors and the like: back off, don't spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let Some(address_slot) = limits.per_address.take(peer.ip()) else {
            tokio::spawn(refuse(
                stream,
                Arc::clone(&limits.base_url),
                "Too many open connections from your address; close some or retry shortly.",
            ));
            continue;
        };
        let Ok(slot) = Arc::clone(&limits.slots).try_acquire_owned() else {
            tokio::spawn(refuse(
                stream,
                Arc::clone(&limits.base_url),
                "The server has too many open connections; retry shortly.",
            ));
            continue;
        };
        let trusted = Arc::clone(&limits.trusted);
        let service =
            router
                .clone()
                .map_request(move |mut req: hyper::Request<hyper::body::Incoming>| {
                    // `ConnectInfo` is the client: the peer, or behind a
                    // trusted proxy the hop it forwarded for. Every per-IP
                    // limit and log line reads it; `Peer` is the socket's.
                    let client = client_addr(peer, req.headers(), &trusted);
                    req.extensions_mut().insert(ConnectInfo(client));
                    req.extensions_mut().insert(Peer(peer));
                    req
                });
        let io = TokioIo::new(Guarded::new(stream, &limits));
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            // Guarded keeps the header and idle clocks; hyper's own would
            // count idle keep-alive time as header time.
            .header_read_timeout(None)
            .max_headers(MAX_HEADERS)
            .serve_connection(io, TowerToHyperService::new(service));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(slot);
            drop(address_slot);
        });
    }
    graceful
}

/// The address a request's connection came from (a proxy's, behind one);
/// `ConnectInfo` holds the client's.
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub SocketAddr);

/// The client a request is from: `peer` itself, unless `peer` is a trusted
/// proxy; then the rightmost hop of `X-Forwarded-For` (or, without one, of
/// `Forwarded`'s `for=`) that is not a trusted proxy. A hop that does not
/// parse (`unknown`, an obfuscated name) stops the walk at the trusted hop
/// to its right. A client address from a header has port 0.
pub fn client_addr(peer: SocketAddr, headers: &HeaderMap, trusted: &[Cidr]) -> SocketAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|block| block.contains(ip));
    if !is_trusted(peer.ip()) {
        return peer;
    }
    let mut hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    if hops.is_empty() {
        hops = headers
            .get_all("forwarded")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|element| {
                element.split(';').find_map(|pair| {
                    let (name, value) = pair.split_once('=')?;
                    name.trim().eq_ignore_ascii_case("for").then_some(value)
                })
            })
            .collect();
    }
    let mut client = peer.ip();
    for hop in hops.iter().rev() {
        let Some(ip) = hop_address(hop) else {
            break;
        };
        client = ip;
        if !is_trusted(ip) {
            break;
        }
    }
    if client == peer.ip() {
        peer
    } else {
        SocketAddr::new(client.to_canonical(), 0)
    }
}

/// One hop's address: `203.0.113.7`, `203.0.113.7:4711`, `"[2001:db8::1]:4711"`,
/// `2001:db8::1`.
fn hop_address(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim().trim_matches('"').trim();
    if let Some(rest) = hop.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    if let Ok(ip) = hop.parse() {
        return Some(ip);
    }
    hop.parse::<SocketAddr>().ok().map(|a| a.ip())
}

/// The answer to a connection past a cap: one 503 problem, then close.
async fn refuse(mut stream: TcpStream, base_url: Arc<str>, detail: &'static str) {
    let bytes = problem_head(503, detail, &base_url, Some(1));
    let write = async {
        stream.write_all(&bytes).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), write).await;
}

/// A whole HTTP/1.1 response carrying a problem document; the connection
/// closes after it.
fn problem_head(status: u16, detail: &str, base_url: &str, retry_after: Option<u64>) -> Vec<u8> {
    let status_code = axum::http::StatusCode::from_u16(status)
        .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    let request_id = context::new_request_id();
    let body = serde_json::json!({
        "type": format!("{base_url}/docs/errors#{status}"),
        "title": title_for(status_code),
        "status": status,
        "detail": detail,
        "request_id": request_id,
    })
    .to_string();
    let retry = retry_after
        .map(|s| format!("retry-after: {s}\r\n"))
        .unwrap_or_default();
    format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {PROBLEM_JSON}\r\ncontent-length: {}\r\nx-request-id: {request_id}\r\n{retry}connection: close\r\n\r\n{body}",
        status_code.canonical_reason().unwrap_or("Error"),
        body.len()
    )
    .into_bytes()
}

/// The detail for an error head hyper wrote itself, by status.
fn hyper_error_detail(status: u16) -> &'static str {
    match status {
        414 => "The request URI is too long.",
        431 => "The request has too many header fields, or one that is too large.",
        _ => "The request could not be parsed as HTTP/1.1 (or HTTP/1.0).",
    }
}

/// If `buf` is an error head hyper produced on its own (see the module
/// docs), its status.
fn hyper_error_status(buf: &[u8]) -> Option<u16> {
    let rest = buf
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| buf.strip_prefix(b"HTTP/1.0 "))?;
    let status: u16 = std::str::from_utf8(rest.get(..3)?).ok()?.parse().ok()?;
    if !(400..600).contains(&status) {
        return None;
    }
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    if end + 4 != buf.len() {
        return None;
    }
    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
    (head.contains("\r\ncontent-length: 0") && !head.contains("\r\ncontent-type:"))
        .then_some(status)
}

/// Where a connection is in its request cycle, for the two clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Between requests: the idle clock runs.
    Idle,
    /// Reading a request head; `tail` holds its last bytes, to find the
    /// blank line that ends it across reads. The header clock runs.
    Head { tail: [u8; 3] },
    /// A request is being answered: no clock (a cold render may take
    /// minutes; the body has its own timeout).
    Busy,
}

/// A TCP stream with the header and idle clocks and the rewrite of hyper's
/// own error heads.
pub struct Guarded<S> {
    inner: S,
    phase: Phase,
    limits: Limits,
    /// When the running clock fires, if any.
    deadline: Option<Instant>,
    sleep: Pin<Box<Sleep>>,
    /// The task waiting to read, woken when a clock starts after it last
    /// polled (a clock runs only while somebody polls it).
    read_waker: Option<Waker>,
    /// Bytes of a replacement response still to write.
    pending: Vec<u8>,
    pending_from: usize,
}

impl<S> Guarded<S> {
    fn new(inner: S, limits: &Limits) -> Self {
        let deadline = Instant::now() + limits.header_read;
        Guarded {
            inner,
            phase: Phase::Head { tail: [0; 3] },
            limits: limits.clone(),
            deadline: Some(deadline),
            sleep: Box::pin(tokio::time::sleep_until(deadline)),
            read_waker: None,
            pending: Vec::new(),
            pending_from: 0,
        }
    }

    fn set_clock(&mut self, after: Option<Duration>) {
        self.deadline = after.map(|d| Instant::now() + d);
        if let Some(deadline) = self.deadline {
            self.sleep.as_mut().reset(deadline);
            if let Some(waker) = self.read_waker.take() {
                waker.wake();
            }
        }
    }

    /// Follows the request cycle through bytes read from the client.
    fn observe_read(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.phase == Phase::Idle {
            self.phase = Phase::Head { tail: [0; 3] };
            self.set_clock(Some(self.limits.header_read));
        }
        if let Phase::Head { tail } = self.phase {
            let mut window = Vec::with_capacity(3 + bytes.len());
            window.extend_from_slice(&tail);
            window.extend_from_slice(bytes);
            if window.windows(4).any(|w| w == b"\r\n\r\n") {
                self.phase = Phase::Busy;
                self.set_clock(None);
            } else {
                let n = window.len();
                self.phase = Phase::Head {
                    tail: [window[n - 3], window[n - 2], window[n - 1]],
                };
            }
        }
    }

    /// Follows the request cycle through bytes written to the client: a
    /// response (other than `100 Continue`) means the request is answered.
    fn observe_write(&mut self, bytes: &[u8]) {
        if self.phase == Phase::Busy && !bytes.starts_with(b"HTTP/1.1 100") {
            self.phase = Phase::Idle;
        }
        if self.phase == Phase::Idle {
            self.set_clock(Some(self.limits.idle));
        }
    }
}

impl<S: AsyncWrite + Unpin> Guarded<S> {
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.pending_from < self.pending.len() {
            let n = ready!(
                Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.pending_from..])
            )?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending_from += n;
        }
        self.pending.clear();
        self.pending_from = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                this.observe_read(&buf.filled()[before..]);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                if this.deadline.is_some() && this.sleep.as_mut().poll(cx).is_ready() {
                    let what = if this.phase == Phase::Idle {
                        "idle connection closed"
                    } else {
                        "request head not received in time"
                    };
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, what)));
                }
                this.read_waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        this.observe_write(buf);
        if let Some(status) = hyper_error_status(buf) {
            this.pending = problem_head(
                status,
                hyper_error_detail(status),
                &this.limits.base_url,
                None,
            );
            this.pending_from = 0;
            // hyper sees its head written; ours goes out instead.
            let _ = this.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        let first = bufs.iter().find(|b| !b.is_empty());
        if let Some(first) = first {
            if bufs.iter().filter(|b| !b.is_empty()).count() == 1 {
                // One slice: the same checks as a plain write.
                return Pin::new(this).poll_write(cx, first);
            }
            this.observe_write(first);
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_only_hyper_own_error_heads() {
        let hyper_431 = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Sun, 22 Nov 2026 10:00:00 GMT\r\n\r\n";
        assert_eq!(hyper_error_status(hyper_431), Some(431));
        let ours = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/problem+json\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(hyper_error_status(ours), None);
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(hyper_error_status(ok), None);
        let with_body = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nxx";
        assert_eq!(hyper_error_status(with_body), None);
    }

    #[test]
    fn the_client_is_the_rightmost_untrusted_hop_and_only_behind_a_trusted_proxy() {
        let trusted = [
            Cidr::parse("10.0.0.0/8").unwrap(),
            Cidr::parse("127.0.0.2").unwrap(),
        ];
        let peer = |ip: &str| SocketAddr::new(ip.parse().unwrap(), 5555);
        let with = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.append(*k, v.parse().unwrap());
            }
            h
        };
        let client = |p: &str, h: &HeaderMap| client_addr(peer(p), h, &trusted).ip().to_string();
        let spoofed = with(&[("x-forwarded-for", "6.6.6.6")]);
        // An untrusted peer's headers are not believed.
        assert_eq!(client("203.0.113.9", &spoofed), "203.0.113.9");
        assert_eq!(
            client_addr(peer("203.0.113.9"), &spoofed, &trusted).port(),
            5555
        );
        // Behind a trusted proxy: the hop it appended, not what the client
        // wrote before it.
        let h = with(&[("x-forwarded-for", "6.6.6.6, 198.51.100.7")]);
        assert_eq!(client("127.0.0.2", &h), "198.51.100.7");
        // Chains of trusted proxies are walked; header lines join in order.
        let h = with(&[
            ("x-forwarded-for", "6.6.6.6, 198.51.100.7"),
            ("x-forwarded-for", "10.1.2.3"),
        ]);
        assert_eq!(client("10.9.9.9", &h), "198.51.100.7");
        // A hop that does not parse stops the walk at the trusted one.
        let h = with(&[("x-forwarded-for", "198.51.100.7, unknown")]);
        assert_eq!(client("10.9.9.9", &h), "10.9.9.9");
        // No header: the proxy itself.
        assert_eq!(client("10.9.9.9", &HeaderMap::new()), "10.9.9.9");
        // Forwarded (RFC 7239) when there is no X-Forwarded-For, ports and
        // brackets and quotes included.
        let h = with(&[(
            "forwarded",
            "for=6.6.6.6, for=\"[2001:db8::7]:4711\";proto=https, for=10.0.0.1:80",
        )]);
        assert_eq!(client("127.0.0.2", &h), "2001:db8::7");
        let h = with(&[("forwarded", "proto=https;For=192.0.2.60:1")]);
        assert_eq!(client("127.0.0.2", &h), "192.0.2.60");
        // Everything trusted: the leftmost hop.
        let h = with(&[("x-forwarded-for", "10.0.0.5, 10.0.0.6")]);
        assert_eq!(client("127.0.0.2", &h), "10.0.0.5");
    }

    #[test]
    fn trusted_proxies_are_not_capped_per_address() {
        let config = HttpConfig {
            max_connections_per_address: 1,
            trusted_proxies: vec!["10.0.0.0/8".into()],
            ..HttpConfig::default()
        };
        let limits = Limits::new(&config, Arc::from("http://x"));
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let held: Vec<_> = (0..5).map(|_| limits.per_address.take(proxy)).collect();
        assert!(held.iter().all(Option::is_some));
        let other: IpAddr = "198.51.100.1".parse().unwrap();
        let _one = limits.per_address.take(other).unwrap();
        assert!(limits.per_address.take(other).is_none());
    }

    fn limits(cap: usize) -> Limits {
        let config = HttpConfig {
            max_connections_per_address: cap,
            ..HttpConfig::default()
        };
        Limits::new(&config, Arc::from("http://x"))
    }

    #[test]
    fn the_per_address_cap_counts_clients_and_forgets_them_when_they_leave() {
        let per = limits(2).per_address;
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        let held = [per.take(a).unwrap(), per.take(a).unwrap()];
        assert!(per.take(a).is_none(), "a third connection is past the cap");
        // The same client over IPv4-mapped IPv6 is the same client.
        assert!(per.take("::ffff:203.0.113.7".parse().unwrap()).is_none());
        // Another client is not affected; loopback is never capped.
        let other = per.take("203.0.113.8".parse().unwrap()).unwrap();
        let local: Vec<_> = (0..5)
            .map(|_| per.take("127.0.0.1".parse().unwrap()).unwrap())
            .collect();
        drop(held);
        assert!(per.take(a).is_some(), "closing frees the slots");
        drop((other, local));
        assert!(
            per.open.lock().unwrap().is_empty(),
            "no entry outlives its connections"
        );
    }

    #[test]
    fn one_ipv6_slash_64_is_one_client_and_a_zero_cap_is_no_cap() {
        let per = limits(1).per_address;
        let _held = per.take("2001:db8:1:2::1".parse().unwrap()).unwrap();
        assert!(per.take("2001:db8:1:2:ffff::9".parse().unwrap()).is_none());
        assert!(per.take("2001:db8:1:3::1".parse().unwrap()).is_some());
        let open = limits(0).per_address;
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        let _many: Vec<_> = (0..100).map(|_| open.take(a).unwrap()).collect();
    }

    #[test]
    fn a_replacement_is_a_whole_problem_response() {
        let bytes = problem_head(414, hyper_error_detail(414), "http://x", None);
        let text = String::from_utf8(bytes).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"));
        assert!(head.contains("content-type: application/problem+json"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["status"], 414);
        assert_eq!(v["type"], "http://x/docs/errors#414");
        assert!(v["request_id"].as_str().is_some_and(|s| !s.is_empty()));
    }
}
