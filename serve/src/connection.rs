//! One client connection: many request/response pairs in sequence. A small per-call request is
//! decided on this task when that cannot block ([`FrameService::handle_nonblocking`]); any
//! other is handed to a blocking thread. Its answer is sent once the command is committed (a
//! durable store's commit is awaited on this task, never on a thread), each wait bounded so a
//! slow, silent or half-open client only ever holds its own connection.
//!
//! The read loop drives the codec itself (rather than through `Framed`) so that the two
//! timeouts apply to the right stretches (`idle_timeout` while nothing of the next request
//! has arrived, `frame_timeout` from the first byte of a request to its last) and so that
//! every read is paid for first: it reserves room in the daemon's shared byte budget, reads at
//! most that much, and gives back what it did not use. A request's bytes stay reserved until
//! it is answered. When the budget has no room the request is refused with an error frame and
//! the connection closed (SEMANTICS 13.16).

use std::sync::Arc;

use bytes::{BufMut, Bytes, BytesMut};
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::time::{Instant, timeout_at};
use tokio_util::codec::{Decoder, Encoder};
use tokio_util::sync::CancellationToken;

use crate::codec::{FrameCodec, FrameError, MAX_FRAME_PAYLOAD};
use crate::config::ServeConfig;
use crate::limits::{BufferHold, ByteBudget, UidSlot};
use crate::metrics::stats::{Refusal, TransportStats};
use crate::service::{Answer, FrameService, Peer};

/// The most a connection reads (and reserves) at once.
const READ_CHUNK: usize = 64 * 1024;

/// What every connection task shares.
pub(crate) struct Shared {
    pub service: Arc<dyn FrameService>,
    pub config: ServeConfig,
    pub shutdown: CancellationToken,
    pub budget: Arc<ByteBudget>,
    pub transport: Arc<TransportStats>,
}

/// Why the read side produced no request.
enum Next {
    Frame(BytesMut),
    /// Clean end of stream, shutdown, idle timeout or a socket error: close silently.
    Close,
    /// A frame error, a frame timeout or a full byte budget: answer with this message, then
    /// close.
    Error(String),
}

/// Serves one connection of `peer` until the client closes it, a timeout or a frame error
/// ends it, or the daemon shuts down (a request already read is still answered). `slot` is the
/// peer uid's connection slot, given back when the connection ends.
pub(crate) async fn serve(stream: UnixStream, peer: Peer, slot: UidSlot, shared: Arc<Shared>) {
    let _slot = slot;
    shared.transport.accepted();
    let _open = OpenConnection(shared.transport.clone());
    let mut conn = Conn {
        stream,
        codec: FrameCodec::new(),
        buf: BytesMut::new(),
        hold: BufferHold::new(shared.budget.clone()),
        shared,
    };
    loop {
        let frame = match conn.next_request().await {
            Next::Frame(f) => f,
            Next::Close => return,
            Next::Error(msg) => {
                tracing::warn!(uid = peer.uid, reason = "frame_error", detail = %msg, "connection refused");
                let answer = conn.shared.service.frame_error(&msg);
                let _ = conn.send(answer).await;
                return;
            }
        };
        let service = conn.shared.service.clone();
        // Decided here when that cannot block this thread, else on a blocking one.
        let answer = match service.handle_nonblocking(&frame, &peer) {
            Some(a) => Ok(a),
            None => tokio::task::spawn_blocking(move || service.handle(&frame, &peer)).await,
        };
        let answer = match answer {
            Ok(Answer::Ready(a)) => a,
            // Nobody is held by the commit: this task waits for it.
            Ok(Answer::AfterCommit(after)) => after.await,
            Err(_) => conn
                .shared
                .service
                .frame_error("internal error: the command failed unexpectedly"),
        };
        // The request is gone: keep only what is buffered of the next one.
        conn.release_answered();
        if conn.send(answer).await.is_err() {
            return;
        }
    }
}

/// Counts the connection closed when it ends, however it ends.
struct OpenConnection(Arc<TransportStats>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.closed();
    }
}

struct Conn {
    stream: UnixStream,
    codec: FrameCodec,
    buf: BytesMut,
    hold: BufferHold,
    shared: Arc<Shared>,
}

impl Conn {
    /// Gives back the budget of an answered request and, after a large one, its memory (the
    /// buffer would otherwise keep the frame's allocation alive while the connection idles).
    fn release_answered(&mut self) {
        if self.buf.capacity() > 2 * READ_CHUNK {
            self.buf = BytesMut::from(&self.buf[..]);
        }
        self.hold.shrink_to(self.buf.len());
    }

    async fn next_request(&mut self) -> Next {
        let cfg = &self.shared.config;
        // When the current request started (None: between requests).
        let mut started: Option<Instant> = None;
        loop {
            match self.codec.decode(&mut self.buf) {
                Ok(Some(frame)) => return Next::Frame(frame),
                Ok(None) => {}
                Err(FrameError::Io(_)) => return Next::Close,
                Err(e) => {
                    if matches!(e, FrameError::Length(_)) {
                        self.shared.transport.refused(Refusal::Oversized);
                    }
                    return Next::Error(e.to_string());
                }
            }
            if !self.buf.is_empty() || self.codec.in_frame() {
                started.get_or_insert_with(Instant::now);
            }
            let deadline = match started {
                None => Instant::now() + cfg.idle_timeout,
                Some(t) => t + cfg.frame_timeout,
            };
            let ready = tokio::select! {
                biased;
                _ = self.shared.shutdown.cancelled() => return Next::Close,
                r = timeout_at(deadline, self.stream.readable()) => r,
            };
            match ready {
                // Idle too long: close quietly.
                Err(_) if started.is_none() => return Next::Close,
                Err(_) => {
                    return Next::Error(format!(
                        "request frame not complete within {} ms",
                        cfg.frame_timeout.as_millis()
                    ));
                }
                Ok(Err(_)) => return Next::Close,
                Ok(Ok(())) => {}
            }
            // Inside a frame, read no further than its end (a pipelined next request waits
            // for the next read); between frames, a chunk.
            let want = if self.codec.in_frame() {
                self.codec.missing(&self.buf).min(READ_CHUNK)
            } else {
                READ_CHUNK
            };
            let granted = self.hold.grow(want);
            if granted == 0 {
                self.shared.transport.refused(Refusal::Oversized);
                return Next::Error(format!(
                    "request refused: the daemon's request buffers are full ({} bytes across                      all connections, --max-buffered-bytes); retry later",
                    self.shared.budget.limit()
                ));
            }
            self.buf.reserve(granted);
            let before = self.buf.len();
            let read = self
                .stream
                .try_read_buf(&mut (&mut self.buf).limit(granted));
            // Keep what arrived, give back the rest.
            self.hold
                .shrink_to(self.hold.held() - granted + (self.buf.len() - before));
            match read {
                Ok(0) => {
                    return match self.codec.decode_eof(&mut self.buf) {
                        Ok(Some(frame)) => Next::Frame(frame),
                        Ok(None) | Err(FrameError::Io(_)) => Next::Close,
                        Err(e) => Next::Error(e.to_string()),
                    };
                }
                Ok(_) => {
                    started.get_or_insert_with(Instant::now);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => return Next::Close,
            }
        }
    }

    /// Writes one response frame within write_timeout. A response too large for a frame is
    /// replaced by an error envelope saying so.
    async fn send(&mut self, payload: Vec<u8>) -> Result<(), ()> {
        let payload = if payload.len() > MAX_FRAME_PAYLOAD {
            self.shared.service.frame_error(&format!(
                "response of {} bytes exceeds maximum {MAX_FRAME_PAYLOAD}; ask for less (e.g. a \
                 smaller ExportAudit range)",
                payload.len()
            ))
        } else {
            payload
        };
        let mut out = BytesMut::with_capacity(payload.len() + 4);
        self.codec
            .encode(Bytes::from(payload), &mut out)
            .map_err(|_| ())?;
        let deadline = Instant::now() + self.shared.config.write_timeout;
        match timeout_at(deadline, self.stream.write_all(&out)).await {
            Ok(Ok(())) => Ok(()),
            _ => Err(()),
        }
    }
}
