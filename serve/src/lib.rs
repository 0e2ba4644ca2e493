//! `leasekit serve`: the governor of SEMANTICS section 13 as a local daemon.
//!
//! Clients connect to a Unix socket and exchange LeaseGate frames (13.1): a 4-byte
//! little-endian length and UTF-8 JSON, many request/response pairs per connection. The
//! transport is tokio with tokio-util's codec traits ([`codec`]); the peer's uid
//! comes from `SO_PEERCRED` and decides what it may do (13.14). Shutdown on SIGTERM/SIGINT
//! is graceful: stop accepting, remove the socket, answer every request already read, close
//! the store. A lock file keeps a second daemon off the same state directory or socket.
//! Hostile local peers are bounded ([`limits`]: request bytes buffered across connections,
//! connections per uid) and kept away from the daemon's files ([`files`]).

pub mod activation;
pub mod codec;
pub mod config;
mod connection;
pub mod files;
pub mod governor_service;
pub mod limits;
pub mod listener;
pub mod lock;
pub mod logging;

pub mod metrics;
pub mod server;
pub mod service;

pub use config::ServeConfig;
pub use governor_service::{GovernorService, GovernorSpec, StoreKind};
pub use server::{run, serve_until};
pub use service::{Answer, FrameService, Peer};
