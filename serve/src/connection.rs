//! One client connection: many request/response pairs in sequence, each request handed to a
//! blocking thread (the governor may wait for a durable commit there), each wait bounded so a
//! slow, silent or half-open client only ever holds its own connection.
//!
//! The read loop drives the codec itself (rather than through `Framed`) so that the two
//! timeouts apply to the right stretches: `idle_timeout` while nothing of the next request
//! has arrived, `frame_timeout` from the first byte of a request to its last.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::time::{Instant, timeout_at};
use tokio_util::codec::{Decoder, Encoder};
use tokio_util::sync::CancellationToken;

use crate::codec::{FrameCodec, FrameError, MAX_FRAME_PAYLOAD};
use crate::config::ServeConfig;
use crate::service::{FrameService, Peer};

/// What every connection task shares.
pub(crate) struct Shared {
    pub service: Arc<dyn FrameService>,
    pub config: ServeConfig,
    pub shutdown: CancellationToken,
}

/// Why the read side produced no request.
enum Next {
    Frame(BytesMut),
    /// Clean end of stream, shutdown, idle timeout or a socket error: close silently.
    Close,
    /// A frame error or a frame timeout: answer with this message, then close.
    Error(String),
}

/// Serves one connection until the client closes it, a timeout or a frame error ends it, or
/// the daemon shuts down (a request already read is still answered).
pub(crate) async fn serve(stream: UnixStream, shared: Arc<Shared>) {
    let peer = match stream.peer_cred() {
        Ok(c) => Peer {
            uid: c.uid(),
            gid: c.gid(),
            pid: c.pid(),
        },
        // No credentials, no service: identity decides what a peer may do (13.14).
        Err(_) => return,
    };
    let mut conn = Conn {
        stream,
        codec: FrameCodec::new(),
        buf: BytesMut::with_capacity(8 * 1024),
        shared,
    };
    loop {
        let frame = match conn.next_request().await {
            Next::Frame(f) => f,
            Next::Close => return,
            Next::Error(msg) => {
                let answer = conn.shared.service.frame_error(&msg);
                let _ = conn.send(answer).await;
                return;
            }
        };
        let service = conn.shared.service.clone();
        let answer = tokio::task::spawn_blocking(move || service.handle(&frame, &peer)).await;
        let answer = match answer {
            Ok(a) => a,
            Err(_) => conn
                .shared
                .service
                .frame_error("internal error: the command failed unexpectedly"),
        };
        if conn.send(answer).await.is_err() {
            return;
        }
    }
}

struct Conn {
    stream: UnixStream,
    codec: FrameCodec,
    buf: BytesMut,
    shared: Arc<Shared>,
}

impl Conn {
    async fn next_request(&mut self) -> Next {
        let cfg = &self.shared.config;
        // When the current request started (None: between requests).
        let mut started: Option<Instant> = None;
        loop {
            match self.codec.decode(&mut self.buf) {
                Ok(Some(frame)) => return Next::Frame(frame),
                Ok(None) => {}
                Err(FrameError::Io(_)) => return Next::Close,
                Err(e) => return Next::Error(e.to_string()),
            }
            if !self.buf.is_empty() || self.codec.in_frame() {
                started.get_or_insert_with(Instant::now);
            }
            let deadline = match started {
                None => Instant::now() + cfg.idle_timeout,
                Some(t) => t + cfg.frame_timeout,
            };
            let read = tokio::select! {
                biased;
                _ = self.shared.shutdown.cancelled() => return Next::Close,
                r = timeout_at(deadline, self.stream.read_buf(&mut self.buf)) => r,
            };
            match read {
                // Idle too long: close quietly.
                Err(_) if started.is_none() => return Next::Close,
                Err(_) => {
                    return Next::Error(format!(
                        "request frame not complete within {} ms",
                        cfg.frame_timeout.as_millis()
                    ));
                }
                Ok(Err(_)) => return Next::Close,
                Ok(Ok(0)) => {
                    return match self.codec.decode_eof(&mut self.buf) {
                        Ok(Some(frame)) => Next::Frame(frame),
                        Ok(None) | Err(FrameError::Io(_)) => Next::Close,
                        Err(e) => Next::Error(e.to_string()),
                    };
                }
                Ok(Ok(_)) => {
                    started.get_or_insert_with(Instant::now);
                }
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
