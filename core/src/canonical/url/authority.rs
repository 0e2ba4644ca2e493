//! The authority of a `net.fetch` URL (SEMANTICS 5.2): lower-cased reg-name or IP literal,
//! no userinfo, a 1-5 digit port without leading zeros, the scheme's default port removed.

use crate::error::{Error, Result};

/// Canonicalizes an authority (`host[:port]`) for `scheme` (already lower-cased).
pub(crate) fn canonical_authority(scheme: &str, a: &str) -> Result<String> {
    if a.contains('@') {
        return Err(Error::invalid(
            "userinfo (user@host) is not allowed in a URL",
        ));
    }
    let (host, port) = if let Some(inner) = a.strip_prefix('[') {
        let close = inner
            .find(']')
            .ok_or_else(|| Error::invalid("unterminated IP literal"))?;
        let lit = &inner[..close];
        validate_ip_literal(lit)?;
        let after = &inner[close + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(Error::invalid("garbage after IP literal")),
        };
        (format!("[{}]", lit.to_ascii_lowercase()), port)
    } else {
        let (h, p) = match a.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (a, None),
        };
        let h = h.strip_suffix('.').unwrap_or(h);
        if h.is_empty() {
            return Err(Error::invalid("empty host"));
        }
        if h.starts_with('.') || h.ends_with('.') || h.contains("..") {
            return Err(Error::invalid(format!(
                "invalid host {h:?}: an empty label (a leading '.', '..', or a second trailing '.')"
            )));
        }
        if !h.bytes().all(is_reg_name_byte) {
            return Err(Error::invalid(format!(
                "invalid host {h:?}: only ASCII letters, digits and -._~!$&'()*+,;= (use punycode for IDNs)"
            )));
        }
        (h.to_ascii_lowercase(), p)
    };
    let mut out = host;
    if let Some(p) = port {
        let port = parse_port(p)?;
        let default = match scheme {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            _ => None,
        };
        if default != Some(port) {
            out.push(':');
            out.push_str(&port.to_string());
        }
    }
    Ok(out)
}

pub(super) const fn is_reg_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        )
}

fn parse_port(p: &str) -> Result<u32> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid(format!("invalid port {p:?}")));
    }
    let n: u32 = p.parse().map_err(|_| Error::invalid("invalid port"))?;
    if n > 65535 {
        return Err(Error::invalid(format!("port {n} is above 65535")));
    }
    Ok(n)
}

fn validate_ip_literal(lit: &str) -> Result<()> {
    let ok = if let Some(rest) = lit.strip_prefix(['v', 'V']) {
        // IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        match rest.split_once('.') {
            Some((hex, tail)) => {
                !hex.is_empty()
                    && hex.bytes().all(|b| b.is_ascii_hexdigit())
                    && !tail.is_empty()
                    && tail.bytes().all(|b| b == b':' || is_reg_name_byte(b))
            }
            None => false,
        }
    } else {
        lit.parse::<std::net::Ipv6Addr>().is_ok()
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!("invalid IP literal [{lit}]")))
    }
}
