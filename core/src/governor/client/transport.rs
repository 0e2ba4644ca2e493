//! The client's side of the socket: connections kept for reuse, one request/response pair at
//! a time per connection, a deadline per call. What went wrong is classified, because only
//! "the daemon cannot be reached" may lead to a local fallback (SEMANTICS 13.13): once a
//! request may have reached the daemon, any failure is an error to the caller.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::governor::wire::{
    MAX_FRAME_PAYLOAD, RequestEnvelope, ResponseEnvelope, check_frame_length, encode_frame,
};
use crate::{Error, ErrorCode};

/// Why a call did not produce a response envelope.
#[derive(Debug)]
pub(crate) enum CallError {
    /// No connection could be made (no socket, nobody listening): nothing was sent.
    Unreachable(String),
    /// Anything after a connection was made, or a refused connection (permissions).
    Failed(Error),
}

struct Conn {
    stream: UnixStream,
    last_used: Instant,
}

/// A pool of connections to one socket.
pub(crate) struct Transport {
    socket: PathBuf,
    timeout: Duration,
    max_idle: Duration,
    max_pooled: usize,
    idle: Mutex<Vec<Conn>>,
}

impl Transport {
    pub(crate) fn new(
        socket: PathBuf,
        timeout: Duration,
        max_idle: Duration,
        max_pooled: usize,
    ) -> Transport {
        Transport {
            socket,
            timeout,
            max_idle,
            max_pooled,
            idle: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn socket(&self) -> &Path {
        &self.socket
    }

    /// Sends one request and reads its response within the call timeout.
    pub(crate) fn call(
        &self,
        command: &str,
        payload_json: String,
    ) -> Result<ResponseEnvelope, CallError> {
        let request = RequestEnvelope {
            protocol_version: crate::governor::wire::PROTOCOL_VERSION.to_string(),
            command: command.to_string(),
            payload_json,
        };
        let body = serde_json::to_vec(&request).expect("envelope serializes");
        let frame = encode_frame(&body).map_err(CallError::Failed)?;
        let deadline = Instant::now() + self.timeout;
        let mut conn = match self.take_idle() {
            Some(c) => c,
            None => self.connect()?,
        };
        let out = exchange(&mut conn.stream, &frame, deadline);
        match out {
            Ok(env) => {
                conn.last_used = Instant::now();
                self.put_idle(conn);
                Ok(env)
            }
            // The connection is in an unknown state: drop it.
            Err(e) => Err(CallError::Failed(e)),
        }
    }

    fn connect(&self) -> Result<Conn, CallError> {
        match UnixStream::connect(&self.socket) {
            Ok(stream) => Ok(Conn {
                stream,
                last_used: Instant::now(),
            }),
            Err(e) => match e.kind() {
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => {
                    Err(CallError::Unreachable(format!(
                        "governor daemon unreachable at {}: {e}",
                        self.socket.display()
                    )))
                }
                io::ErrorKind::PermissionDenied => Err(CallError::Failed(
                    Error::new(
                        ErrorCode::PermissionDenied,
                        format!(
                            "not allowed to connect to the governor socket {} (it is owner-only \
                             unless the daemon runs with --socket-mode)",
                            self.socket.display()
                        ),
                    )
                    .with_detail("reason", "daemon_permission_denied"),
                )),
                _ => Err(CallError::Failed(
                    Error::new(
                        ErrorCode::InternalError,
                        format!("cannot connect to {}: {e}", self.socket.display()),
                    )
                    .with_detail("reason", "daemon_connect_failed"),
                )),
            },
        }
    }

    /// An idle connection that the daemon has not closed (a closed one reads EOF at once).
    fn take_idle(&self) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(mut c) = idle.pop() {
            if c.last_used.elapsed() <= self.max_idle && still_open(&mut c.stream) {
                return Some(c);
            }
        }
        None
    }

    fn put_idle(&self, conn: Conn) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < self.max_pooled {
            idle.push(conn);
        }
    }
}

/// True when nothing is pending on an idle connection: no EOF, no stray bytes.
fn still_open(stream: &mut UnixStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut b = [0u8; 1];
    let open = matches!(stream.read(&mut b), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
    open && stream.set_nonblocking(false).is_ok()
}

fn timeout_error(what: &str) -> Error {
    Error::new(
        ErrorCode::Timeout,
        format!("governor daemon did not answer in time ({what})"),
    )
    .with_detail("reason", "daemon_timeout")
}

fn io_error(what: &str, e: io::Error) -> Error {
    if matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    ) {
        return timeout_error(what);
    }
    Error::new(
        ErrorCode::InternalError,
        format!("governor connection failed while {what}: {e}"),
    )
    .with_detail("reason", "daemon_connection_lost")
}

/// Writes `frame`, reads one response frame, all before `deadline`.
fn exchange(
    stream: &mut UnixStream,
    frame: &[u8],
    deadline: Instant,
) -> crate::Result<ResponseEnvelope> {
    let remaining = |what: &str| {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| timeout_error(what))
    };
    stream
        .set_write_timeout(Some(remaining("sending")?))
        .map_err(|e| io_error("sending", e))?;
    stream
        .write_all(frame)
        .map_err(|e| io_error("sending", e))?;
    let mut prefix = [0u8; 4];
    read_full(stream, &mut prefix, &remaining)?;
    let len = check_frame_length(i32::from_le_bytes(prefix)).map_err(|e| {
        Error::new(
            ErrorCode::InternalError,
            format!("governor daemon sent a bad frame: {}", e.message()),
        )
    })?;
    debug_assert!(len <= MAX_FRAME_PAYLOAD);
    let mut payload = vec![0u8; len];
    read_full(stream, &mut payload, &remaining)?;
    serde_json::from_slice::<ResponseEnvelope>(&payload).map_err(|e| {
        Error::new(
            ErrorCode::InternalError,
            format!("governor daemon sent an unreadable response: {e}"),
        )
    })
}

fn read_full(
    stream: &mut UnixStream,
    buf: &mut [u8],
    remaining: &dyn Fn(&str) -> crate::Result<Duration>,
) -> crate::Result<()> {
    let mut got = 0;
    while got < buf.len() {
        stream
            .set_read_timeout(Some(remaining("reading the response")?))
            .map_err(|e| io_error("reading the response", e))?;
        match stream.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(Error::new(
                    ErrorCode::InternalError,
                    "governor daemon closed the connection before answering",
                )
                .with_detail("reason", "daemon_connection_lost"));
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error("reading the response", e)),
        }
    }
    Ok(())
}
