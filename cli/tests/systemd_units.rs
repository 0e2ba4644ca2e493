//! The systemd units in contrib/systemd: `systemd-analyze verify` accepts them without a
//! warning (where it runs), they carry the hardening the operations guide promises, and the
//! service's ExecStart is a real `leasekit serve` command line: run under
//! `systemd-socket-activate` with the socket unit's socket moved to a temp directory, it
//! reports READY=1 and answers.

mod daemon;

use std::collections::BTreeMap;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};

const SOCKET_ACTIVATE: &str = "/usr/bin/systemd-socket-activate";

fn unit_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../contrib/systemd")
}

fn read_unit(name: &str) -> String {
    std::fs::read_to_string(unit_dir().join(name)).unwrap()
}

/// `section.Key` -> every value it is given, in order.
fn parse_unit(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.to_string();
            continue;
        }
        let (k, v) = line.split_once('=').expect("key=value");
        out.entry(format!("{section}.{}", k.trim()))
            .or_default()
            .push(v.trim().to_string());
    }
    out
}

fn one<'a>(unit: &'a BTreeMap<String, Vec<String>>, key: &str) -> &'a str {
    match unit.get(key).map(Vec::as_slice) {
        Some([v]) => v,
        other => panic!("{key}: expected one value, found {other:?}"),
    }
}

#[test]
fn the_service_is_hardened_and_socket_activated() {
    let svc = parse_unit(&read_unit("leasekit.service"));
    let sock = parse_unit(&read_unit("leasekit.socket"));
    for (key, want) in [
        ("Service.Type", "notify"),
        ("Service.NoNewPrivileges", "yes"),
        ("Service.ProtectSystem", "strict"),
        ("Service.ProtectHome", "yes"),
        ("Service.PrivateTmp", "yes"),
        ("Service.PrivateDevices", "yes"),
        ("Service.StateDirectory", "leasekit"),
        ("Service.RuntimeDirectory", "leasekit"),
        ("Service.UMask", "0077"),
        ("Service.DynamicUser", "yes"),
        ("Service.User", "leasekit"),
        ("Service.ProtectKernelTunables", "yes"),
        ("Service.ProtectKernelModules", "yes"),
        ("Service.ProtectKernelLogs", "yes"),
        ("Service.ProtectControlGroups", "yes"),
        ("Service.LockPersonality", "yes"),
        ("Service.MemoryDenyWriteExecute", "yes"),
        ("Service.RestrictNamespaces", "yes"),
        ("Service.RestrictSUIDSGID", "yes"),
        ("Service.CapabilityBoundingSet", ""),
        (
            "Service.RestrictAddressFamilies",
            "AF_UNIX AF_INET AF_INET6",
        ),
        ("Unit.Requires", "leasekit.socket"),
        ("Socket.SocketMode", "0600"),
        ("Socket.Accept", "no"),
    ] {
        let unit = if key.starts_with("Socket.") {
            &sock
        } else {
            &svc
        };
        assert_eq!(one(unit, key), want, "{key}");
    }
    assert_eq!(
        svc["Service.SystemCallFilter"],
        ["@system-service", "~@privileged"]
    );
    // A user namespace would hide every peer's uid (SO_PEERCRED reads nobody).
    assert!(!svc.contains_key("Service.PrivateUsers"));
    assert!(one(&sock, "Socket.ListenStream").starts_with('/'));
}

#[test]
fn systemd_analyze_verify_accepts_the_units() {
    let Ok(out) = Command::new("systemd-analyze").arg("--version").output() else {
        eprintln!("SKIP: systemd-analyze is not installed; only the unit contents were checked");
        return;
    };
    assert!(out.status.success());
    // verify checks that ExecStart's binary exists: point it at the one just built.
    let dir = daemon::temp_dir("units");
    let svc = read_unit("leasekit.service").replace(
        "/usr/bin/leasekit",
        daemon::leasekit_bin().to_str().unwrap(),
    );
    std::fs::write(dir.join("leasekit.service"), svc).unwrap();
    std::fs::write(dir.join("leasekit.socket"), read_unit("leasekit.socket")).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(dir.join("leasekit.socket"))
        .arg(dir.join("leasekit.service"))
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success()
        && (err.contains("not been booted with systemd") || err.contains("Failed to connect"))
    {
        eprintln!("SKIP: systemd-analyze verify cannot run here: {err}");
        return;
    }
    assert!(out.status.success(), "{err}");
    // Unknown keys and bad values are warnings with exit status 0: none is allowed.
    assert!(
        err.trim().is_empty(),
        "systemd-analyze verify warned:\n{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exec_start_is_a_real_command_line_under_socket_activation() {
    let svc = parse_unit(&read_unit("leasekit.service"));
    let exec = one(&svc, "Service.ExecStart");
    let words: Vec<&str> = exec.split_whitespace().collect();
    assert_eq!(&words[..2], ["/usr/bin/leasekit", "serve"], "{exec}");
    // Every flag is one `leasekit serve --help` names.
    let help = Command::new(daemon::leasekit_bin())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in words.iter().filter(|w| w.starts_with("--")) {
        assert!(help.contains(flag), "{flag} is not a `leasekit serve` flag");
    }
    if !Path::new(SOCKET_ACTIVATE).exists() {
        eprintln!("SKIP (part): {SOCKET_ACTIVATE} is not installed; the command line was not run");
        return;
    }
    // Run it as systemd would: STATE_DIRECTORY set, the socket passed in, NOTIFY_SOCKET set.
    let dir = daemon::temp_dir("unitrun");
    let state = dir.join("state");
    let sock = dir.join("leasekit.sock");
    let notify = UnixDatagram::bind(dir.join("notify")).unwrap();
    notify
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let args: Vec<String> = words[2..]
        .iter()
        .map(|w| w.replace("${STATE_DIRECTORY}", state.to_str().unwrap()))
        .collect();
    let mut child = Command::new(SOCKET_ACTIVATE)
        .arg("-l")
        .arg(&sock)
        .arg("-E")
        .arg(format!("NOTIFY_SOCKET={}", dir.join("notify").display()))
        .arg(daemon::leasekit_bin())
        .arg("serve")
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(dir.join("daemon.log")).unwrap(),
        ))
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !sock.exists() {
        assert!(Instant::now() < deadline, "socket never appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = std::os::unix::net::UnixStream::connect(&sock);
    let mut buf = [0u8; 512];
    let n = notify.recv(&mut buf);
    let log = || std::fs::read_to_string(dir.join("daemon.log")).unwrap_or_default();
    let n = n.unwrap_or_else(|e| panic!("no READY=1 ({e}):\n{}", log()));
    assert!(String::from_utf8_lossy(&buf[..n]).contains("READY=1"));
    let client = GovernorClient::with_options(
        &sock,
        ClientOptions {
            fallback: FallbackMode::Off,
            ..ClientOptions::default()
        },
    );
    client
        .status()
        .unwrap_or_else(|e| panic!("{e:?}\n{}", log()));
    assert!(state.join("governor.db").exists());
    // SAFETY: kill on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{}", log());
    let _ = std::fs::remove_dir_all(&dir);
}
