//! The daemon's life: lock, open, bind, accept until SIGTERM/SIGINT, then stop accepting,
//! remove the socket, let in-flight commands finish and answer, and close the store.

use std::fs::DirBuilder;
use std::future::Future;
use std::os::unix::fs::DirBuilderExt;
use std::sync::Arc;

use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Semaphore;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::ServeConfig;
use crate::connection::{self, Shared};
use crate::limits::{ByteBudget, UidConnections};
use crate::lock::LockFile;
use crate::metrics::{self, stats::Refusal, stats::TransportStats};
use crate::service::{FrameService, Peer};
use crate::{activation, files, listener};

/// The locks a running daemon holds (state directory, and the socket unless it was inherited).
#[derive(Debug)]
pub struct Locks {
    _state: LockFile,
    _socket: Option<LockFile>,
}

/// Creates the state directory (0700), checks it and the socket's directory (SEMANTICS 13.16
/// "Files") and takes both lock files. A second daemon on the same state directory or socket
/// gets a clear error naming the holder's pid. With `config.inherited_socket` the socket is
/// the service manager's: neither its directory nor a lock beside it is the daemon's business.
pub fn lock(config: &ServeConfig) -> Result<Locks, String> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&config.state_dir)
        .map_err(|e| {
            format!(
                "cannot create state directory {}: {e}",
                config.state_dir.display()
            )
        })?;
    files::check_dir(&config.state_dir, "state directory")?;
    if !config.inherited_socket {
        let socket_dir = match config.socket.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        if !socket_dir.is_dir() {
            return Err(format!(
                "socket directory {} does not exist",
                socket_dir.display()
            ));
        }
        files::check_dir(socket_dir, "socket directory")?;
    }
    let state = LockFile::acquire(
        &config.state_lock_path(),
        &format!("state directory {}", config.state_dir.display()),
    )?;
    let socket = if config.inherited_socket {
        None
    } else {
        Some(LockFile::acquire(
            &config.socket_lock_path(),
            &format!("socket {}", config.socket.display()),
        )?)
    };
    Ok(Locks {
        _state: state,
        _socket: socket,
    })
}

/// Runs a daemon to completion on a fresh tokio runtime: takes a socket passed by a service
/// manager ([`activation`]), takes the locks, opens the service with `open` (only once the
/// locks are held, so two daemons never open one store), binds the socket unless one was
/// inherited, tells the service manager it is ready (`NOTIFY_SOCKET`) and serves until SIGTERM
/// or SIGINT.
///
/// Call it before the process starts any other thread: it removes the `LISTEN_*` variables
/// from the environment.
pub fn run(
    mut config: ServeConfig,
    open: impl FnOnce() -> Result<Arc<dyn FrameService>, String>,
) -> Result<(), String> {
    config.check()?;
    let inherited = activation::take_inherited()?;
    if let Some(sock) = &inherited {
        config.inherited_socket = true;
        if let Some(path) = &sock.path {
            config.socket = path.clone();
        }
    }
    let _locks = lock(&config)?;
    let fd_limit = listener::raise_fd_limit();
    let service = open()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("leasekit-serve")
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let listener = match inherited {
            Some(sock) => UnixListener::from_std(sock.listener)
                .map_err(|e| format!("cannot serve the inherited socket: {e}"))?,
            None => listener::bind(&config.socket, config.socket_mode)?,
        };
        let socket = config.socket.display().to_string();
        let state = config.state_dir.display().to_string();
        let pid = std::process::id();
        if config.inherited_socket {
            tracing::info!(
                socket,
                pid,
                state,
                fd_limit,
                "serving the socket passed by the service manager"
            );
        } else {
            let mode = format!("{:o}", config.socket_mode);
            tracing::info!(socket, pid, mode, state, fd_limit, "listening on {socket}");
        }
        // The store is open and the socket takes connections: tell a Type=notify service
        // manager. A failed notification is logged, not fatal (the manager's start timeout
        // decides).
        if let Err(e) = activation::notify("READY=1\nSTATUS=serving\n") {
            tracing::warn!(error = %e, "cannot notify the service manager (NOTIFY_SOCKET)");
        }
        serve_until(listener, config, service, shutdown_signal()).await
    })
}

/// Resolves on the first SIGTERM or SIGINT.
async fn shutdown_signal() {
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        // Without signal handlers the daemon could not shut down cleanly: never resolve, the
        // default disposition (terminate) then applies... but handlers are installed above,
        // so this only happens when the runtime cannot register them.
        std::future::pending::<()>().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => tracing::info!(signal = "SIGTERM", "shutting down"),
        _ = int.recv() => tracing::info!(signal = "SIGINT", "shutting down"),
    }
}

/// Serves `listener` until `stop` resolves, then shuts down gracefully.
pub async fn serve_until(
    listener: UnixListener,
    config: ServeConfig,
    service: Arc<dyn FrameService>,
    stop: impl Future<Output = ()>,
) -> Result<(), String> {
    let shutdown = CancellationToken::new();
    let transport = Arc::new(TransportStats::default());
    let shared = Arc::new(Shared {
        service: service.clone(),
        config: config.clone(),
        shutdown: shutdown.clone(),
        budget: ByteBudget::new(config.max_buffered_bytes),
        transport: transport.clone(),
    });
    let tracker = TaskTracker::new();
    let slots = Arc::new(Semaphore::new(config.max_connections));
    let per_uid = UidConnections::new(config.max_connections_per_uid);
    if let Some(endpoint) = metrics_endpoint(&config, &service, &shared, &per_uid, &shutdown).await
    {
        match endpoint {
            Ok(task) => {
                tracker.spawn(task);
            }
            Err(e) => {
                drop(listener);
                listener::remove(&config.socket);
                return Err(e);
            }
        }
    }
    tracker.spawn(sweeper(service.clone(), config.clone(), shutdown.clone()));

    tokio::pin!(stop);
    loop {
        tokio::select! {
            biased;
            _ = &mut stop => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((s, _)) => s,
                    Err(e) => {
                        // EMFILE and friends: back off briefly instead of spinning.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let peer = match stream.peer_cred() {
                    Ok(c) => Peer {
                        uid: c.uid(),
                        gid: c.gid(),
                        pid: c.pid(),
                    },
                    // No credentials, no service: identity decides what a peer may do (13.14).
                    Err(e) => {
                        tracing::warn!(reason = "no_peer_credentials", error = %e, "connection refused");
                        transport.refused(Refusal::NoCredentials);
                        continue;
                    }
                };
                let Ok(permit) = slots.clone().try_acquire_owned() else {
                    tracing::warn!(uid = peer.uid, reason = "max_connections", "connection refused");
                    transport.refused(Refusal::TooMany);
                    refuse(stream, &service.frame_error(&format!(
                        "too many connections (limit {}, --max-connections); retry later",
                        config.max_connections
                    )));
                    continue;
                };
                let Some(slot) = per_uid.try_take(peer.uid) else {
                    tracing::warn!(
                        uid = peer.uid, reason = "max_connections_per_uid", "connection refused"
                    );
                    transport.refused(Refusal::TooManyForUid);
                    refuse(stream, &service.frame_error(&format!(
                        "too many connections from uid {} (limit {} per uid, \
                         --max-connections-per-uid); close some and retry",
                        peer.uid, per_uid.limit()
                    )));
                    continue;
                };
                let shared = shared.clone();
                tracker.spawn(async move {
                    connection::serve(stream, peer, slot, shared).await;
                    drop(permit);
                });
            }
        }
    }

    // Stop accepting and take the socket away first, so new clients fail fast (and fall back)
    // instead of queueing on a daemon that is going away.
    drop(listener);
    if !config.inherited_socket {
        listener::remove(&config.socket);
    }
    let _ = activation::notify("STOPPING=1\n");
    shutdown.cancel();
    tracker.close();
    if timeout(config.shutdown_grace, tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            grace_secs = config.shutdown_grace.as_secs(),
            "some commands did not finish within the shutdown grace"
        );
    }
    let closed = tokio::task::spawn_blocking(move || service.close())
        .await
        .map_err(|_| "closing the store failed unexpectedly".to_string())?;
    closed.map_err(|e| format!("closing the store failed: {e}"))?;
    tracing::info!("stopped");
    Ok(())
}

/// Binds the metrics endpoint when `--metrics-listen` asks for one: the task serving it, or
/// why it cannot listen. `None` without the flag (no TCP port is opened).
async fn metrics_endpoint(
    config: &ServeConfig,
    service: &Arc<dyn FrameService>,
    shared: &Arc<Shared>,
    per_uid: &Arc<UidConnections>,
    shutdown: &CancellationToken,
) -> Option<Result<impl Future<Output = ()> + use<>, String>> {
    let mc = config.metrics.clone()?;
    let Some(gs) = service.governor_service() else {
        return Some(Err(
            "--metrics-listen needs the governor service behind the socket".into(),
        ));
    };
    let listener = match metrics::bind(&mc).await {
        Ok(l) => l,
        Err(e) => return Some(Err(e)),
    };
    let addr = listener.local_addr().map_or(mc.listen, |a| a);
    eprintln!("leasekit serve: metrics on http://{addr}/metrics");
    let refused = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let exporter = Arc::new(metrics::Exporter::new(metrics::Sources {
        governor: gs.governor().clone(),
        commands: gs.command_stats().clone(),
        store: gs.store_stats().clone(),
        transport: shared.transport.clone(),
        budget: shared.budget.clone(),
        uids: per_uid.clone(),
        max_connections: config.max_connections,
        scrapes_refused: refused.clone(),
    }));
    Some(Ok(metrics::serve(
        listener,
        mc,
        exporter,
        refused,
        shutdown.clone(),
    )))
}

/// Answers a connection over a limit with one error frame and closes it, without a task: the
/// frame is small enough for the fresh socket's send buffer, so a non-blocking write either
/// takes it whole or the peer gets a plain close. A refused connection holds nothing.
fn refuse(stream: tokio::net::UnixStream, msg: &[u8]) {
    use std::io::Write;
    let mut frame = (msg.len() as i32).to_le_bytes().to_vec();
    frame.extend_from_slice(msg);
    if let Ok(std) = stream.into_std() {
        let _ = (&std).write(&frame);
    }
}

/// Sweeps expired leases every `sweep_interval` until shutdown.
async fn sweeper(service: Arc<dyn FrameService>, config: ServeConfig, shutdown: CancellationToken) {
    let mut failing = false;
    loop {
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(config.sweep_interval) => {}
        }
        let s = service.clone();
        let r = tokio::task::spawn_blocking(move || s.sweep()).await;
        match r {
            Ok(Ok(())) => failing = false,
            Ok(Err(e)) if !failing => {
                tracing::warn!(error = %e, "store error: sweep failed");
                failing = true;
            }
            Err(_) if !failing => {
                tracing::warn!("store error: sweep failed unexpectedly");
                failing = true;
            }
            _ => {}
        }
    }
}
