//! What the daemon serves, seen from the transport: one request frame's payload in, one
//! response frame's payload out, for a peer identified by its Unix credentials.

/// The other end of a connection, from `SO_PEERCRED` (the kernel's word, not the client's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// Effective uid of the connecting process.
    pub uid: u32,
    /// Effective gid of the connecting process.
    pub gid: u32,
    /// Pid of the connecting process, when the kernel reports one.
    pub pid: Option<i32>,
}

/// The answer to one request.
pub enum Answer {
    /// The response frame's payload, to send now.
    Ready(Vec<u8>),
    /// The payload, once the command's changes are committed (a durable store's group
    /// commit): await it on the connection's task, then send it.
    AfterCommit(std::pin::Pin<Box<dyn std::future::Future<Output = Vec<u8>> + Send>>),
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Ready(b) => f.debug_tuple("Ready").field(&b.len()).finish(),
            Answer::AfterCommit(_) => f.write_str("AfterCommit"),
        }
    }
}

/// A request handler behind the socket. [`FrameService::handle`] is called on blocking threads
/// (a call may wait for a durable commit), [`FrameService::handle_nonblocking`] on the async
/// runtime's, both from many connections at once.
pub trait FrameService: Send + Sync + 'static {
    /// Answers one request: `request` is the payload of one frame (untrusted bytes), the
    /// answer the payload of the response frame, now or after the command's commit. Never
    /// panics on bad input: a malformed request gets a `success: false` envelope.
    fn handle(&self, request: &[u8], peer: &Peer) -> Answer;

    /// Answers one request on the caller's (async runtime) thread when that cannot block (no
    /// I/O, no wait for a commit or for another command's long work), as
    /// [`FrameService::handle`] would; `None` (the default) sends it to
    /// [`FrameService::handle`] on a blocking thread instead.
    fn handle_nonblocking(&self, request: &[u8], peer: &Peer) -> Option<Answer> {
        let _ = (request, peer);
        None
    }
    /// The response envelope for a frame that could not be read (bad length, truncated).
    fn frame_error(&self, message: &str) -> Vec<u8>;

    /// Settles leases that expired (the background sweep). An error is logged, never fatal.
    fn sweep(&self) -> Result<(), String>;

    /// Makes every answered change durable and closes the store (graceful shutdown).
    fn close(&self) -> Result<(), String>;

    /// The governor service behind the socket, when there is one (the metrics read it).
    fn governor_service(&self) -> Option<&crate::GovernorService> {
        None
    }
}
