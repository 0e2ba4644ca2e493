//! TLS to PostgreSQL: the `sslmode`, `sslrootcert`, `sslcert` and `sslkey` parameters of a
//! store URL, with libpq's meaning, through rustls (`tokio-postgres-rustls`, ring provider).
//!
//! | `sslmode` | TLS | server certificate |
//! |---|---|---|
//! | `disable` | never | - |
//! | `prefer` (default) | when the server offers it, else plaintext | as `require` |
//! | `require` | always: a server without TLS is refused | not checked; with `sslrootcert`, as `verify-ca` |
//! | `verify-ca` | always | chain to `sslrootcert` |
//! | `verify-full` | always | chain to `sslrootcert` and the URL's host name |
//!
//! Fail closed: a mode that requires TLS never falls back to plaintext, `verify-ca` and
//! `verify-full` without `sslrootcert` are refused, `require` and above are refused on a Unix
//! socket (PostgreSQL speaks no TLS there), an unreadable or malformed file is an error. Errors
//! name a file, never its contents. libpq's default files (`~/.postgresql/...`) are not read:
//! every file is named in the URL.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ::postgres::Config;
use ::postgres::config::{Host, SslMode};
use percent_encoding::percent_decode_str;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{verify_server_cert_signed_by_trust_anchor, verify_server_name};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::{Error, ErrorCode};

/// The connector every PostgreSQL connection of a store uses.
pub(crate) type Tls = MakeRustlsConnect;

/// An `sslmode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

#[derive(Default)]
struct Params {
    mode: Option<Mode>,
    root: Option<PathBuf>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidRequest, msg)
}

/// Parses a `postgres://` URL: the connection settings and the TLS connector its `ssl*`
/// parameters ask for.
pub(crate) fn parse(url: &str) -> crate::Result<(Config, Tls)> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut p = Params::default();
    let mut rest: Vec<&str> = Vec::new();
    for pair in query.split('&').filter(|s| !s.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let value = || -> crate::Result<String> {
            percent_decode_str(v)
                .decode_utf8()
                .map(|s| s.into_owned())
                .map_err(|_| invalid(format!("invalid PostgreSQL URL: {k} is not UTF-8")))
        };
        let twice = || invalid(format!("invalid PostgreSQL URL: {k} given twice"));
        match k {
            "sslmode" => {
                let m = match value()?.as_str() {
                    "disable" => Mode::Disable,
                    "prefer" => Mode::Prefer,
                    "require" => Mode::Require,
                    "verify-ca" => Mode::VerifyCa,
                    "verify-full" => Mode::VerifyFull,
                    _ => {
                        return Err(invalid(
                            "invalid PostgreSQL URL: sslmode is one of disable, prefer, require, \
                             verify-ca, verify-full",
                        ));
                    }
                };
                if p.mode.replace(m).is_some() {
                    return Err(twice());
                }
            }
            "sslrootcert" | "sslcert" | "sslkey" => {
                let v = value()?;
                if v.is_empty() {
                    return Err(invalid(format!("invalid PostgreSQL URL: {k} is empty")));
                }
                let slot = match k {
                    "sslrootcert" => &mut p.root,
                    "sslcert" => &mut p.cert,
                    _ => &mut p.key,
                };
                if slot.replace(PathBuf::from(v)).is_some() {
                    return Err(twice());
                }
            }
            _ => rest.push(pair),
        }
    }
    let plain = if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    let mut config: Config = plain.parse().map_err(|e: ::postgres::Error| {
        // The parser's reasons name an option, never a value: the password is not echoed,
        // nor is the URL itself.
        let why = std::error::Error::source(&e)
            .map(|s| format!(": {s}"))
            .unwrap_or_default();
        invalid(format!("invalid PostgreSQL URL: {e}{why}"))
    })?;
    let mode = p.mode.unwrap_or(Mode::Prefer);
    let unix = config
        .get_hosts()
        .iter()
        .any(|h| matches!(h, Host::Unix(_)));
    let required = matches!(mode, Mode::Require | Mode::VerifyCa | Mode::VerifyFull);
    if unix && required {
        return Err(invalid(
            "invalid PostgreSQL URL: a Unix-socket host cannot use TLS (PostgreSQL offers none \
             there), so sslmode=require/verify-ca/verify-full is refused on it: connect over \
             TCP or drop sslmode",
        ));
    }
    config.ssl_mode(match mode {
        Mode::Disable => SslMode::Disable,
        // libpq tries no TLS on a Unix socket: neither does this (no wasted round trip).
        Mode::Prefer if unix => SslMode::Disable,
        Mode::Prefer => SslMode::Prefer,
        _ => SslMode::Require,
    });
    Ok((config, connector(mode, &p)?))
}

/// rustls with the ring provider (no process-wide default is installed or relied on).
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn connector(mode: Mode, p: &Params) -> crate::Result<Tls> {
    let provider = provider();
    let algs = provider.signature_verification_algorithms;
    let roots = match &p.root {
        Some(path) => Some(read_roots(path)?),
        None if matches!(mode, Mode::VerifyCa | Mode::VerifyFull) => {
            return Err(invalid(
                "invalid PostgreSQL URL: sslmode=verify-ca and verify-full need sslrootcert=FILE \
                 (the CA certificates, PEM)",
            ));
        }
        None => None,
    };
    let verifier = Arc::new(Verifier {
        roots: roots.map(Arc::new),
        check_name: mode == Mode::VerifyFull,
        algs,
    });
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(format!("TLS setup: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let config = match (&p.cert, &p.key) {
        (None, None) => builder.with_no_client_auth(),
        (Some(cert), Some(key)) => {
            let chain = read_certs(cert, "sslcert")?;
            let key = read_key(key)?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|_| invalid("sslcert and sslkey do not make a usable client identity"))?
        }
        _ => {
            return Err(invalid(
                "invalid PostgreSQL URL: sslcert and sslkey go together",
            ));
        }
    };
    Ok(MakeRustlsConnect::new(config))
}

fn read_certs(path: &Path, what: &str) -> crate::Result<Vec<CertificateDer<'static>>> {
    let bytes = std::fs::read(path)
        .map_err(|e| invalid(format!("{what} {}: cannot read: {e}", path.display())))?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<_, _>>()
        .map_err(|_| invalid(format!("{what} {}: not PEM certificates", path.display())))?;
    if certs.is_empty() {
        return Err(invalid(format!(
            "{what} {}: no certificate in it (PEM expected)",
            path.display()
        )));
    }
    Ok(certs)
}

fn read_roots(path: &Path) -> crate::Result<RootCertStore> {
    let mut store = RootCertStore::empty();
    for c in read_certs(path, "sslrootcert")? {
        store.add(c).map_err(|_| {
            invalid(format!(
                "sslrootcert {}: a certificate in it is not a usable CA certificate",
                path.display()
            ))
        })?;
    }
    Ok(store)
}

/// The client key: refused when others may read it (as libpq does: 0600, or 0640 owned by
/// root), since a key others can read is no proof of identity.
fn read_key(path: &Path) -> crate::Result<PrivateKeyDer<'static>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let md = std::fs::metadata(path)
            .map_err(|e| invalid(format!("sslkey {}: cannot read: {e}", path.display())))?;
        let mode = md.mode() & 0o777;
        let ok = if md.uid() == 0 {
            mode & 0o037 == 0
        } else {
            mode & 0o077 == 0
        };
        if !ok {
            return Err(invalid(format!(
                "sslkey {}: group or others may read it (mode {mode:o}): chmod 0600 (or 0640 \
                 owned by root)",
                path.display()
            )));
        }
    }
    let bytes = std::fs::read(path)
        .map_err(|e| invalid(format!("sslkey {}: cannot read: {e}", path.display())))?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|_| {
        invalid(format!(
            "sslkey {}: no private key in it (PEM PKCS#8, PKCS#1 or SEC1 expected)",
            path.display()
        ))
    })
}

/// The server-certificate check of a mode: none (`require` without roots: encryption
/// only), the chain (`verify-ca`), or the chain and the host name (`verify-full`). Handshake
/// signatures are always verified.
#[derive(Debug)]
struct Verifier {
    roots: Option<Arc<RootCertStore>>,
    check_name: bool,
    algs: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(roots) = &self.roots else {
            return Ok(ServerCertVerified::assertion());
        };
        let cert = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(&cert, roots, intermediates, now, self.algs.all)?;
        if self.check_name {
            verify_server_name(&cert, server_name)?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algs.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(url: &str) -> String {
        match parse(url) {
            Ok(_) => panic!("{url} accepted"),
            Err(e) => e.message().to_string(),
        }
    }

    #[test]
    fn ssl_parameters_are_parsed_and_checked() {
        let (c, _) = parse("postgres://u@db.example/x?sslmode=require&connect_timeout=3").unwrap();
        assert_eq!(c.get_ssl_mode(), SslMode::Require);
        assert_eq!(
            c.get_connect_timeout(),
            Some(&std::time::Duration::from_secs(3))
        );
        let (c, _) = parse("postgres://u@db.example/x").unwrap();
        assert_eq!(c.get_ssl_mode(), SslMode::Prefer, "libpq's default");
        let (c, _) = parse("postgres://u@%2Ftmp%2Fs/x").unwrap();
        assert_eq!(
            c.get_ssl_mode(),
            SslMode::Disable,
            "no TLS on a Unix socket"
        );
        assert!(err("postgres://u@h/x?sslmode=verify-full").contains("need sslrootcert"));
        assert!(err("postgres://u@h/x?sslmode=verify-ca").contains("need sslrootcert"));
        assert!(err("postgres://u@h/x?sslmode=allow").contains("one of"));
        assert!(err("postgres://u@h/x?sslmode=require&sslmode=disable").contains("twice"));
        assert!(err("postgres://u@%2Ftmp/x?sslmode=require").contains("Unix-socket"));
        assert!(err("postgres://u@h/x?sslcert=%2Fa.crt").contains("go together"));
        assert!(err("postgres://u@h/x?sslrootcert=%2Fno%2Fsuch.crt").contains("cannot read"));
        assert!(err("postgres://u@h/x?sslcrl=%2Fa").contains("unknown"));
    }
}
