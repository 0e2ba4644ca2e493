//! A throwaway PostgreSQL server for tests and benches (a real server, no mocks).
//!
//! [`TempPostgres::start`] runs `initdb` into a fresh directory under
//! `$TMPDIR/leasekit-pg/`, then `pg_ctl start` listening on a Unix socket in that directory
//! only (no TCP), and stops the server and removes the directory when dropped. `initdb`
//! refuses to run as root, so under root (CI) every server command runs as the unprivileged
//! `postgres` account through `runuser`. Binaries are looked up in `LEASEKIT_PG_BIN`, then
//! `PATH`, `/usr/local/bin` and `/usr/lib/postgresql/*/bin` (`scripts/ensure-postgres.sh`
//! installs them with apt-get when missing). A server left behind by a test process that
//! died is stopped and removed by the next [`TempPostgres::start`].
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

static SERVERS: AtomicU64 = AtomicU64::new(0);
static DBS: AtomicU64 = AtomicU64::new(0);

/// A running throwaway server.
pub struct TempPostgres {
    dir: PathBuf,
    bin: PathBuf,
    as_postgres: bool,
    /// The server's port (its Unix socket's name; TCP too when a test listens on it).
    port: u16,
}

fn root() -> PathBuf {
    std::env::temp_dir().join("leasekit-pg")
}

fn find_bin() -> PathBuf {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Ok(d) = std::env::var("LEASEKIT_PG_BIN") {
        let d = PathBuf::from(d);
        assert!(
            has(&d),
            "LEASEKIT_PG_BIN={} has no initdb/pg_ctl",
            d.display()
        );
        return d;
    }
    let mut dirs: Vec<PathBuf> = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(PathBuf::from)
        .collect();
    dirs.push("/usr/local/bin".into());
    if let Ok(rd) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<PathBuf> = rd.flatten().map(|e| e.path().join("bin")).collect();
        versions.sort();
        dirs.extend(versions.into_iter().rev());
    }
    dirs.into_iter().find(|d| has(d)).unwrap_or_else(|| {
        panic!(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: run scripts/ensure-postgres.sh \
             (apt-get install postgresql) or set LEASEKIT_PG_BIN"
        )
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn pid_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Stops and removes servers whose test process is gone.
fn reap_stale(base: &Path, bin: &Path, as_postgres: bool) {
    let Ok(rd) = std::fs::read_dir(base) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(pid) = name.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() || pid_alive(pid) {
            continue;
        }
        // Dropping it stops the server (if running) and removes the directory.
        drop(TempPostgres {
            dir: e.path(),
            bin: bin.to_path_buf(),
            as_postgres,
            port: 5432,
        });
    }
}

impl TempPostgres {
    /// One server shared by the tests of a test binary that run at the same time: the last
    /// holder to drop its handle stops it (a static would outlive the process's destructors).
    pub fn shared() -> std::sync::Arc<TempPostgres> {
        use std::sync::{Arc, Mutex, Weak};
        static SHARED: Mutex<Weak<TempPostgres>> = Mutex::new(Weak::new());
        let mut w = SHARED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pg) = w.upgrade() {
            return pg;
        }
        let pg = Arc::new(TempPostgres::start());
        *w = Arc::downgrade(&pg);
        pg
    }

    /// initdb + start. Panics with the server log when anything fails.
    pub fn start() -> TempPostgres {
        let bin = find_bin();
        let as_postgres = is_root();
        let base = root();
        std::fs::create_dir_all(&base).expect("create pg temp root");
        reap_stale(&base, &bin, as_postgres);
        let dir = base.join(format!(
            "{}-{}",
            std::process::id(),
            SERVERS.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create pg dir");
        let me = TempPostgres {
            dir,
            bin,
            as_postgres,
            port: 5432,
        };
        if as_postgres {
            // The server account must own its directory and reach it.
            for d in [&base, &me.dir] {
                let ok = Command::new("chmod")
                    .arg("0777")
                    .arg(d)
                    .status()
                    .is_ok_and(|s| s.success());
                assert!(ok, "chmod {}", d.display());
            }
            let ok = Command::new("chown")
                .arg("postgres")
                .arg(&me.dir)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown postgres {}", me.dir.display());
        }
        let data = me.data();
        me.run_ok(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ],
        );
        // Durable commits (fsync, synchronous_commit) stay at their defaults: the tests and
        // benches measure and check the real thing.
        let conf = "listen_addresses = ''\nmax_connections = 200\nshared_buffers = 128MB\n\
                    unix_socket_permissions = 0777\n";
        let conf_path = data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf_path).expect("read postgresql.conf");
        text.push_str(conf);
        text.push_str(&format!(
            "unix_socket_directories = '{}'\n",
            me.dir.display()
        ));
        std::fs::write(&conf_path, text).expect("write postgresql.conf");
        me.start_server();
        me
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn log(&self) -> PathBuf {
        self.dir.join("server.log")
    }

    /// The socket directory.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    fn command(&self, prog: &str) -> Command {
        let path = self.bin.join(prog);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        }
    }

    fn run_ok(&self, prog: &str, args: &[&str]) {
        let out = self
            .command(prog)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {prog}: {e}"));
        if !out.status.success() {
            panic!(
                "{prog} failed ({}): {}{}\nserver log:\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(self.log()).unwrap_or_default()
            );
        }
    }

    /// `pg_ctl start` (waits until the server accepts connections).
    pub fn start_server(&self) {
        let (data, log) = (self.data(), self.log());
        self.run_ok(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
        self.wait_ready(Duration::from_secs(30));
    }

    /// `pg_ctl stop` with `mode` (`fast`, `immediate`: a crash, recovered at the next start).
    pub fn stop_server(&self, mode: &str) {
        let data = self.data();
        self.run_ok(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-m",
                mode,
                "-w",
                "-t",
                "60",
                "stop",
            ],
        );
    }

    /// Stops (`immediate`: like a crash) and starts again.
    pub fn restart(&self) {
        self.stop_server("immediate");
        self.start_server();
    }

    fn wait_ready(&self, limit: Duration) {
        let t = Instant::now();
        loop {
            match postgres::Client::connect(&self.conninfo("postgres"), postgres::NoTls) {
                Ok(_) => return,
                Err(e) if t.elapsed() > limit => panic!("server not ready: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Records the `port` a test set in `postgresql.conf` (applies from the next start).
    pub fn set_port(&mut self, port: u16) {
        self.port = port;
    }

    /// Key-value connection string for `db`.
    pub fn conninfo(&self, db: &str) -> String {
        format!(
            "host={} port={} user=postgres dbname={db}",
            self.dir.display(),
            self.port
        )
    }

    /// A `postgres://` URL for `db` (the socket directory percent-encoded as the host).
    pub fn url(&self, db: &str) -> String {
        let host: String = self
            .dir
            .display()
            .to_string()
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        let port = if self.port == 5432 {
            String::new()
        } else {
            format!(":{}", self.port)
        };
        format!("postgres://postgres@{host}{port}/{db}")
    }

    /// A client connected to `db`.
    pub fn client(&self, db: &str) -> postgres::Client {
        postgres::Client::connect(&self.conninfo(db), postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect {db}: {e}"))
    }

    /// Creates a fresh database and answers its URL.
    pub fn fresh_db(&self, tag: &str) -> String {
        let name = format!("{tag}_{}", DBS.fetch_add(1, Ordering::Relaxed));
        self.client("postgres")
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|e| panic!("create database {name}: {e}"));
        self.url(&name)
    }

    fn shutdown(&self) {
        let data = self.data();
        if data.join("postmaster.pid").exists() {
            let _ = self
                .command("pg_ctl")
                .args([
                    "-D",
                    data.to_str().unwrap(),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        self.shutdown();
    }
}
