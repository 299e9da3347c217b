//! The request body's two clocks (docs/OPERATIONS.md, "Connections"): a
//! body may pause at most `body_read_timeout_secs` between bytes, and must
//! arrive in full within `body_total_timeout_secs` of its request head,
//! however steadily it trickles. Either one answers the request `408` (a
//! problem document, `Connection: close`), whatever the handler was doing
//! with the body; nothing is charged, since every charge comes after the
//! body is read.
//!
//! tower-http's `RequestBodyTimeoutLayer` has only the first clock, and a
//! client sending one byte every few seconds never trips it; this is both
//! clocks in one body wrapper, with a flag the middleware reads so the
//! answer is the same 408 whichever extractor was reading.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use tokio::time::{Instant, Sleep};

use crate::http::error::ApiError;

/// How long a request body may pause, and how long it may take in all.
#[derive(Debug, Clone, Copy)]
pub struct BodyClocks {
    pub pause: Duration,
    pub total: Duration,
}

/// The error a clocked body ends with when a clock fires.
#[derive(Debug, thiserror::Error)]
#[error("the request body was not received in time")]
pub struct BodyTimedOut;

/// Wraps every request body that has one in the two clocks, and answers
/// `408` when either fired.
pub async fn clock_bodies(State(clocks): State<BodyClocks>, req: Request, next: Next) -> Response {
    if http_body::Body::is_end_stream(req.body()) {
        return next.run(req).await;
    }
    let fired = Arc::new(AtomicBool::new(false));
    let req = req.map(|inner| ClockedBody::wrap(inner, clocks, &fired));
    let response = next.run(req).await;
    if !fired.load(Ordering::Acquire) {
        return response;
    }
    let mut response = ApiError::RequestTimeout.into_response();
    // The rest of the body may still be on its way: don't wait for it.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

struct ClockedBody {
    inner: Body,
    pause: Duration,
    pause_clock: Pin<Box<Sleep>>,
    total_clock: Pin<Box<Sleep>>,
    fired: Arc<AtomicBool>,
}

impl ClockedBody {
    /// `inner` under both clocks, started now; `fired` is set when one fires.
    fn wrap(inner: Body, clocks: BodyClocks, fired: &Arc<AtomicBool>) -> Body {
        Body::new(ClockedBody {
            inner,
            pause: clocks.pause,
            pause_clock: Box::pin(tokio::time::sleep(clocks.pause)),
            total_clock: Box::pin(tokio::time::sleep(clocks.total)),
            fired: Arc::clone(fired),
        })
    }
}

impl http_body::Body for ClockedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            if matches!(frame, Some(Ok(_))) {
                this.pause_clock.as_mut().reset(Instant::now() + this.pause);
            }
            return Poll::Ready(frame);
        }
        let total = this.total_clock.as_mut().poll(cx).is_ready();
        if total || this.pause_clock.as_mut().poll(cx).is_ready() {
            this.fired.store(true, Ordering::Release);
            return Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that yields one byte every `every`, `n` times.
    struct Trickle {
        left: usize,
        every: Duration,
        next: Pin<Box<Sleep>>,
    }

    impl http_body::Body for Trickle {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            let this = self.get_mut();
            if this.left == 0 {
                return Poll::Ready(None);
            }
            std::task::ready!(this.next.as_mut().poll(cx));
            this.left -= 1;
            this.next.as_mut().reset(Instant::now() + this.every);
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"x")))))
        }
    }

    fn trickle(n: usize, every_ms: u64) -> Body {
        let every = Duration::from_millis(every_ms);
        Body::new(Trickle {
            left: n,
            every,
            next: Box::pin(tokio::time::sleep(every)),
        })
    }

    /// Whether `err` is, or was caused by, a fired clock (axum wraps a
    /// body's error once more when the body is boxed).
    fn timed_out(err: &axum::Error) -> bool {
        crate::http::extract::caused_by::<BodyTimedOut>(err)
    }

    fn clocked(inner: Body, pause_ms: u64, total_ms: u64) -> (Body, Arc<AtomicBool>) {
        let clocks = BodyClocks {
            pause: Duration::from_millis(pause_ms),
            total: Duration::from_millis(total_ms),
        };
        let fired = Arc::new(AtomicBool::new(false));
        (ClockedBody::wrap(inner, clocks, &fired), fired)
    }

    #[tokio::test]
    async fn a_steady_trickle_is_cut_by_the_total_clock() {
        // 100 bytes, one every 50 ms: never a 300 ms pause, but 5 s in all.
        let (body, fired) = clocked(trickle(100, 50), 300, 600);
        let started = Instant::now();
        let err = axum::body::to_bytes(body, 1024).await.unwrap_err();
        assert!(timed_out(&err), "{err}");
        assert!(fired.load(Ordering::Acquire));
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(600) && took < Duration::from_secs(3),
            "{took:?}"
        );
    }

    #[tokio::test]
    async fn a_pause_is_cut_by_the_pause_clock() {
        let (body, fired) = clocked(trickle(3, 500), 100, 60_000);
        let err = axum::body::to_bytes(body, 1024).await.unwrap_err();
        assert!(timed_out(&err), "{err}");
        assert!(fired.load(Ordering::Acquire));
    }

    #[tokio::test]
    async fn a_body_within_both_clocks_arrives_whole() {
        let (body, fired) = clocked(trickle(10, 20), 300, 5_000);
        let bytes = axum::body::to_bytes(body, 1024).await.unwrap();
        assert_eq!(bytes.len(), 10);
        assert!(!fired.load(Ordering::Acquire));
    }
}
