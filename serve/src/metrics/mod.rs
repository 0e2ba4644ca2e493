//! `--metrics-listen`: the Prometheus endpoint. `GET /metrics` answers the text exposition
//! ([`exposition`]); any other path is 404, any other method 405. A scraper is held to a
//! small request head (8 KiB, else 431), a read timeout for that head and a deadline for the
//! whole exchange, one request per connection, and a cap on scrape connections at once (a
//! connection over it is closed at once and counted): a slow or hostile scraper holds one
//! slot for at most the deadline and never touches the governor's socket. The listener is
//! refused at startup on a non-loopback address unless `--metrics-allow-remote` is given.

pub mod exposition;
pub mod stats;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use exposition::{Exporter, Sources};

/// The content type of the text exposition.
pub const CONTENT_TYPE_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The content type of the OpenMetrics exposition (for a scraper whose `Accept` asks for it).
pub const CONTENT_TYPE_OPENMETRICS: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The largest request head a scraper may send (hyper's smallest buffer).
pub const MAX_REQUEST_HEAD: usize = 8192;

/// Settings of the metrics endpoint.
#[derive(Debug, Clone)]
pub struct MetricsConfig {
    /// Address to listen on (port 0: any free port, printed at startup).
    pub listen: SocketAddr,
    /// Allow a non-loopback address.
    pub allow_remote: bool,
    /// Time a scraper has to send its request head.
    pub read_timeout: Duration,
    /// Time one scrape connection may last in all.
    pub deadline: Duration,
    /// Scrape connections served at once.
    pub max_scrapers: usize,
}

impl MetricsConfig {
    /// Defaults for `listen`: 5 s to send the request, 10 s per connection, 8 at once.
    pub fn new(listen: SocketAddr) -> MetricsConfig {
        MetricsConfig {
            listen,
            allow_remote: false,
            read_timeout: Duration::from_secs(5),
            deadline: Duration::from_secs(10),
            max_scrapers: 8,
        }
    }

    /// Refuses a non-loopback address without `allow_remote` (fail-closed: governor state
    /// is not published to the network by accident).
    pub fn check(&self) -> Result<(), String> {
        if !self.listen.ip().is_loopback() && !self.allow_remote {
            return Err(format!(
                "--metrics-listen {} is not a loopback address: the metrics would be reachable \
                 from other hosts; add --metrics-allow-remote to allow that, or listen on \
                 127.0.0.1 or [::1]",
                self.listen
            ));
        }
        if self.max_scrapers == 0 {
            return Err("the metrics endpoint needs at least one scrape slot".into());
        }
        Ok(())
    }
}

/// Binds the endpoint's listener (inside the runtime).
pub async fn bind(config: &MetricsConfig) -> Result<TcpListener, String> {
    config.check()?;
    TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen for metrics on {}: {e}", config.listen))
}

/// Serves scrapes on `listener` until `shutdown`.
pub async fn serve(
    listener: TcpListener,
    config: MetricsConfig,
    exporter: Arc<Exporter>,
    scrapes_refused: Arc<std::sync::atomic::AtomicU64>,
    shutdown: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(config.max_scrapers));
    let tracker = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            a = listener.accept() => a,
        };
        let stream = match accepted {
            Ok((s, _)) => s,
            Err(e) => {
                eprintln!("leasekit serve: metrics accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            scrapes_refused.fetch_add(1, Ordering::Relaxed);
            drop(stream);
            continue;
        };
        let exporter = exporter.clone();
        let (read_timeout, deadline) = (config.read_timeout, config.deadline);
        let stop = shutdown.clone();
        tracker.spawn(async move {
            // The slot is held by the connection and by a rendering still under way (one
            // that waits for the governor's lock outlives a timed-out connection), so a stuck
            // governor cannot pile up rendering threads.
            let permit = Arc::new(permit);
            let service = service_fn(move |req| {
                let exporter = exporter.clone();
                let permit = permit.clone();
                async move { Ok::<_, Infallible>(answer(&req, &exporter, permit).await) }
            });
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(read_timeout)
                .max_buf_size(MAX_REQUEST_HEAD)
                .keep_alive(false);
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = stop.cancelled() => {}
                _ = tokio::time::timeout(deadline, conn) => {}
            }
        });
    }
    tracker.close();
    let _ = tokio::time::timeout(Duration::from_secs(1), tracker.wait()).await;
}

fn text(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

async fn answer(
    req: &Request<Incoming>,
    exporter: &Arc<Exporter>,
    permit: Arc<tokio::sync::OwnedSemaphorePermit>,
) -> Response<Full<Bytes>> {
    if req.uri().path() != "/metrics" {
        return text(
            StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n",
        );
    }
    if req.method() != Method::GET {
        let mut r = text(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: use GET\n",
        );
        r.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET"));
        return r;
    }
    let openmetrics = req
        .headers()
        .get_all(hyper::header::ACCEPT)
        .iter()
        .any(|v| v.as_bytes().starts_with(b"application/openmetrics-text"));
    // The governor's engine lock may be held by a command for a moment: render off the
    // async threads.
    let e = exporter.clone();
    let body = tokio::task::spawn_blocking(move || {
        let _slot = permit;
        if openmetrics {
            e.render_openmetrics()
        } else {
            e.render()
        }
    })
    .await
    .unwrap_or_default();
    let mut r = Response::new(Full::new(Bytes::from(body)));
    let kind = if openmetrics {
        CONTENT_TYPE_OPENMETRICS
    } else {
        CONTENT_TYPE_TEXT
    };
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    r
}
