//! TLS to a real PostgreSQL server (`ssl=on`, a CA and certificates made here): `verify-full`
//! checks the host name, `verify-ca` the chain only, `require` never falls back to plaintext,
//! client-certificate authentication (`hostssl ... cert`), a readable key refused. One
//! server for every case.

mod pg;

use std::path::{Path, PathBuf};
use std::process::Command;

use leasekit::governor::store::PostgresStore;
use leasekit::governor::wire::AcquireRequest;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use pg::TempPostgres;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

struct Pki {
    dir: PathBuf,
}

impl Pki {
    fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::self_signed(p, KeyPair::generate().unwrap()).unwrap()
}

fn leaf(
    dir: &Path,
    name: &str,
    sans: &[&str],
    cn: &str,
    issuer: &CertifiedIssuer<'static, KeyPair>,
) {
    let key = KeyPair::generate().unwrap();
    let mut p =
        CertificateParams::new(sans.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    p.distinguished_name.push(DnType::CommonName, cn);
    let cert = p.signed_by(&key, issuer).unwrap();
    std::fs::write(dir.join(format!("{name}.crt")), cert.pem()).unwrap();
    let kp = dir.join(format!("{name}.key"));
    std::fs::write(&kp, key.serialize_pem()).unwrap();
    set_mode(&kp, 0o600);
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn make_pki() -> Pki {
    let dir = std::env::temp_dir().join(format!("leasekit-pg-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = ca("leasekit test CA");
    let other = ca("another CA");
    std::fs::write(dir.join("ca.crt"), good.pem()).unwrap();
    std::fs::write(dir.join("other-ca.crt"), other.pem()).unwrap();
    leaf(&dir, "server", &["localhost"], "localhost", &good);
    leaf(&dir, "client", &[], "certuser", &good);
    Pki { dir }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Turns the throwaway server into a TLS server on 127.0.0.1:`port`.
fn enable_tls(pg: &mut TempPostgres, pki: &Pki, port: u16) {
    let data = pg.socket_dir().join("data");
    for f in ["server.crt", "server.key", "ca.crt"] {
        std::fs::copy(pki.dir.join(f), data.join(f)).unwrap();
        set_mode(&data.join(f), 0o600);
        let ok = Command::new("chown")
            .arg(format!("--reference={}", data.display()))
            .arg(data.join(f))
            .status()
            .unwrap()
            .success();
        assert!(ok, "chown {f}");
    }
    let conf = data.join("postgresql.conf");
    let mut text = std::fs::read_to_string(&conf).unwrap();
    text.push_str(&format!(
        "listen_addresses = '127.0.0.1'\nport = {port}\nssl = on\nssl_cert_file = 'server.crt'\n\
         ssl_key_file = 'server.key'\nssl_ca_file = 'ca.crt'\n"
    ));
    std::fs::write(&conf, text).unwrap();
    // Plaintext TCP is allowed for everyone but `certuser`: a client that fell back to it
    // would get in, so a refusal shows that none did.
    std::fs::write(
        data.join("pg_hba.conf"),
        "local all all trust\n\
         hostssl all certuser 127.0.0.1/32 cert\n\
         host all certuser 127.0.0.1/32 reject\n\
         host all all 127.0.0.1/32 trust\n",
    )
    .unwrap();
    pg.stop_server("fast");
    pg.set_port(port);
    pg.start_server();
}

fn url(user: &str, host: &str, port: u16, params: &str) -> String {
    format!("postgres://{user}@{host}:{port}/tls_db?{params}")
}

/// Connects (reads the schema version, needs no privilege): the error text when refused.
fn probe(url: &str) -> Result<(), String> {
    PostgresStore::migrate_schema(url, false)
        .map(|_| ())
        .map_err(|e| e.message().to_string())
}

fn refused(url: &str) -> String {
    match probe(url) {
        Ok(()) => panic!("{url}: connected, expected a refusal"),
        Err(e) => e,
    }
}

#[test]
fn tls_modes_verify_what_they_promise_and_never_fall_back_to_plaintext() {
    let pki = make_pki();
    let mut pg = TempPostgres::start();
    let port = free_port();
    enable_tls(&mut pg, &pki, port);
    let mut admin = pg.client("postgres");
    admin.batch_execute("CREATE DATABASE tls_db").unwrap();
    admin.batch_execute("CREATE ROLE certuser LOGIN").unwrap();
    let ca = format!("sslrootcert={}", pki.path("ca.crt"));
    let other = format!("sslrootcert={}", pki.path("other-ca.crt"));

    // verify-full with the certificate's host name: a governor runs over TLS.
    let full = url(
        "postgres",
        "localhost",
        port,
        &format!("sslmode=verify-full&{ca}"),
    );
    let policy = Policy::from_json(r#"{"maxInFlight": 4, "dailyBudgetCents": 100}"#).unwrap();
    let g = Governor::open(&full, policy, GovernorOptions::default()).expect("verify-full");
    let r = g
        .acquire(AcquireRequest {
            actor_id: "a".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 5,
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(r.granted, "{r:?}");
    let encrypted: i64 = pg
        .client("postgres")
        .query_one(
            "SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
             WHERE a.application_name LIKE 'leasekit-governor %' AND s.ssl",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(encrypted >= 1, "the governor's connection uses TLS");
    drop(g);

    // verify-full with another host name (TCP to the same server): refused.
    let e = refused(&url(
        "postgres",
        "wrong.invalid",
        port,
        &format!("hostaddr=127.0.0.1&sslmode=verify-full&{ca}"),
    ));
    assert!(e.contains("TLS") && e.contains("not valid for name"), "{e}");
    // verify-ca checks the chain, not the name: the same connection is accepted...
    probe(&url(
        "postgres",
        "wrong.invalid",
        port,
        &format!("hostaddr=127.0.0.1&sslmode=verify-ca&{ca}"),
    ))
    .expect("verify-ca ignores the host name");
    // ...but not a server certificate of another CA (nor verify-full, nor require with it).
    for mode in ["verify-ca", "verify-full", "require"] {
        let e = refused(&url(
            "postgres",
            "localhost",
            port,
            &format!("sslmode={mode}&{other}"),
        ));
        let l = e.to_lowercase();
        assert!(
            l.contains("unknownissuer") || l.contains("unknown issuer"),
            "{mode}: {e}"
        );
    }
    // require without a root certificate: encrypted, not verified.
    probe(&url("postgres", "localhost", port, "sslmode=require")).expect("require");

    pg.client("tls_db")
        .batch_execute(
            "GRANT USAGE ON SCHEMA leasekit TO certuser;
             GRANT SELECT ON leasekit.migrations TO certuser",
        )
        .unwrap();
    // Client-certificate authentication (hostssl ... cert): the certificate's CN is the role.
    let cert = format!(
        "sslcert={}&sslkey={}",
        pki.path("client.crt"),
        pki.path("client.key")
    );
    probe(&url(
        "certuser",
        "localhost",
        port,
        &format!("sslmode=verify-full&{ca}&{cert}"),
    ))
    .expect("client certificate");
    let e = refused(&url(
        "certuser",
        "localhost",
        port,
        &format!("sslmode=verify-full&{ca}"),
    ));
    assert!(e.contains("certificate"), "{e}");
    // A key that others may read is refused, and no error carries key material.
    set_mode(&pki.dir.join("client.key"), 0o644);
    let e = refused(&url(
        "certuser",
        "localhost",
        port,
        &format!("sslmode=verify-full&{ca}&{cert}"),
    ));
    assert!(e.contains("chmod 0600"), "{e}");
    let key = std::fs::read_to_string(pki.dir.join("client.key")).unwrap();
    let body = key.lines().nth(1).unwrap();
    assert!(!e.contains("PRIVATE KEY") && !e.contains(body), "{e}");

    // The server without TLS: prefer connects in plaintext (so plaintext would work), require
    // and the verify modes are refused: no plaintext connection is made.
    pg.client("postgres")
        .batch_execute("ALTER SYSTEM SET ssl = off")
        .unwrap();
    pg.stop_server("fast");
    pg.start_server();
    probe(&url("postgres", "localhost", port, "sslmode=prefer")).expect("prefer, plaintext");
    for params in [
        "sslmode=require".to_string(),
        format!("sslmode=verify-ca&{ca}"),
        format!("sslmode=verify-full&{ca}"),
    ] {
        let e = refused(&url("postgres", "localhost", port, &params));
        assert!(e.contains("server does not support TLS"), "{params}: {e}");
    }
}
