//! The frame codec (SEMANTICS 13.1): a 4-byte little-endian signed length, then that many
//! bytes of UTF-8 JSON. A length <= 0 or > 16 777 216 is an error, and so is a stream that
//! ends inside a frame. Bytes after one whole frame are not looked at.

use std::io::{self, Read, Write};

use crate::{Error, ErrorCode};

/// The largest payload a frame may carry (16 MiB).
pub const MAX_FRAME_PAYLOAD: usize = 16 * 1024 * 1024;

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidRequest, msg)
}

/// Checks a length prefix (13.1: 1..=16 MiB as a signed 32-bit integer) and answers the
/// payload length; shared by the daemon's codec and the socket client.
pub fn check_frame_length(len: i32) -> crate::Result<usize> {
    if len <= 0 {
        return Err(invalid(format!("invalid payload length {len}")));
    }
    let len = len as usize;
    if len > MAX_FRAME_PAYLOAD {
        return Err(invalid(format!(
            "payload length {len} exceeds maximum {MAX_FRAME_PAYLOAD}"
        )));
    }
    Ok(len)
}

/// Encodes one frame. Fails (`INVALID_REQUEST`) for an empty or oversize payload, so a writer
/// never sends what a reader must refuse.
pub fn encode_frame(payload: &[u8]) -> crate::Result<Vec<u8>> {
    if payload.is_empty() {
        return Err(invalid("invalid payload length 0"));
    }
    if payload.len() > MAX_FRAME_PAYLOAD {
        return Err(invalid(format!(
            "payload length {} exceeds maximum {MAX_FRAME_PAYLOAD}",
            payload.len()
        )));
    }
    let mut out = Vec::with_capacity(4 + payload.len());
    out.extend_from_slice(&(payload.len() as i32).to_le_bytes());
    out.extend_from_slice(payload);
    Ok(out)
}

/// Decodes the first frame of `bytes`: its payload and the number of bytes it used. Empty
/// input, a bad length or a truncated frame is `INVALID_REQUEST`.
pub fn decode_frame(bytes: &[u8]) -> crate::Result<(&[u8], usize)> {
    if bytes.is_empty() {
        return Err(invalid("empty input: no frame"));
    }
    if bytes.len() < 4 {
        return Err(invalid("stream ended inside the length prefix"));
    }
    let len = check_frame_length(i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))?;
    let end = 4 + len;
    if bytes.len() < end {
        return Err(invalid(format!(
            "stream ended inside a frame ({} of {len} payload bytes)",
            bytes.len() - 4
        )));
    }
    Ok((&bytes[4..end], end))
}

/// Reads one frame from a stream. `Ok(None)` at a clean end of stream (before any byte of a
/// frame); an end inside a frame or a bad length is an error.
pub fn read_frame(r: &mut impl Read) -> crate::Result<Option<Vec<u8>>> {
    let mut prefix = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut prefix[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(invalid("stream ended inside the length prefix")),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::new(ErrorCode::InternalError, format!("read: {e}"))),
        }
    }
    let len = check_frame_length(i32::from_le_bytes(prefix))?;
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            invalid("stream ended inside a frame")
        } else {
            Error::new(ErrorCode::InternalError, format!("read: {e}"))
        }
    })?;
    Ok(Some(payload))
}

/// Writes one frame.
pub fn write_frame(w: &mut impl Write, payload: &[u8]) -> crate::Result<()> {
    let frame = encode_frame(payload)?;
    w.write_all(&frame)
        .and_then(|_| w.flush())
        .map_err(|e| Error::new(ErrorCode::InternalError, format!("write: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_limits() {
        let f = encode_frame(b"{}").unwrap();
        assert_eq!(decode_frame(&f).unwrap(), (&b"{}"[..], 6));
        assert!(decode_frame(&[]).is_err());
        assert!(decode_frame(&0i32.to_le_bytes()).is_err());
        assert!(decode_frame(&(-1i32).to_le_bytes()).is_err());
        let e = decode_frame(&(16_777_217i32).to_le_bytes()).unwrap_err();
        assert!(e.message().contains("exceeds maximum"));
        assert!(decode_frame(&f[..5]).is_err());
        let mut two = f.clone();
        two.extend_from_slice(b"garbage");
        assert_eq!(decode_frame(&two).unwrap().1, 6);
        let mut r = &f[..];
        assert_eq!(read_frame(&mut r).unwrap().unwrap(), b"{}");
        assert!(read_frame(&mut r).unwrap().is_none());
        let mut short = &f[..3];
        assert!(read_frame(&mut short).is_err());
    }
}
