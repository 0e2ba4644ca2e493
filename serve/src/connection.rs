//! One client connection: many request/response pairs in sequence, each request handed to a
//! blocking thread (the governor may wait for a durable commit there), each wait bounded so a
//! slow, silent or half-open client only ever holds its own connection.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use tokio::net::UnixStream;
use tokio::time::timeout;
use tokio_util::codec::Framed;
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
    let cfg = &shared.config;
    let mut framed = Framed::new(stream, FrameCodec::new());
    loop {
        // Between requests: wait for the first byte of the next one, at most idle_timeout.
        if framed.read_buffer().is_empty() {
            tokio::select! {
                biased;
                _ = shared.shutdown.cancelled() => return,
                r = timeout(cfg.idle_timeout, framed.get_ref().readable()) => {
                    if !matches!(r, Ok(Ok(()))) {
                        return;
                    }
                }
            }
        }
        // A request has started: all of it must arrive within frame_timeout.
        let next = tokio::select! {
            biased;
            _ = shared.shutdown.cancelled() => return,
            r = timeout(cfg.frame_timeout, framed.next()) => r,
        };
        let frame = match next {
            Ok(Some(Ok(frame))) => frame,
            Ok(None) | Ok(Some(Err(FrameError::Io(_)))) => return,
            Ok(Some(Err(e))) => {
                // A bad length or a truncated frame: answer with the error, then close (the
                // stream cannot be re-synchronized).
                let msg = shared.service.frame_error(&e.to_string());
                let _ = send(&mut framed, msg, &shared).await;
                return;
            }
            Err(_elapsed) => {
                let msg = shared.service.frame_error(&format!(
                    "request frame not complete within {} ms",
                    cfg.frame_timeout.as_millis()
                ));
                let _ = send(&mut framed, msg, &shared).await;
                return;
            }
        };
        let service = shared.service.clone();
        let answer = tokio::task::spawn_blocking(move || service.handle(&frame, &peer)).await;
        let answer = match answer {
            Ok(a) => a,
            Err(_) => shared
                .service
                .frame_error("internal error: the command failed unexpectedly"),
        };
        if send(&mut framed, answer, &shared).await.is_err() {
            return;
        }
    }
}

/// Writes one response frame within write_timeout. A response too large for a frame is
/// replaced by an error envelope saying so.
async fn send(
    framed: &mut Framed<UnixStream, FrameCodec>,
    payload: Vec<u8>,
    shared: &Shared,
) -> Result<(), ()> {
    let payload = if payload.len() > MAX_FRAME_PAYLOAD {
        shared.service.frame_error(&format!(
            "response of {} bytes exceeds maximum {MAX_FRAME_PAYLOAD}; ask for less (e.g. a \
             smaller ExportAudit range)",
            payload.len()
        ))
    } else {
        payload
    };
    match timeout(
        shared.config.write_timeout,
        framed.send(Bytes::from(payload)),
    )
    .await
    {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}
