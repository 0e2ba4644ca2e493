//! The socket's frame codec (SEMANTICS 13.1), a tokio-util `Decoder`/`Encoder`: a 4-byte
//! little-endian length, then that many bytes of UTF-8 JSON.
//!
//! The length is read as a signed 32-bit integer: a length <= 0 or > 16 777 216 is an error
//! (the message for the latter contains `exceeds maximum`), and a stream that ends inside a
//! frame is an error. Decoding reads the prefix itself rather than through
//! `LengthDelimitedCodec`: that codec reads the prefix as unsigned (turning `-1` into "too
//! big" and accepting a zero length), takes an end of stream right after a prefix for a clean
//! close, and reserves buffer space for the whole announced length the moment the prefix
//! arrives. Here nothing is reserved for a frame until its bytes arrive (SEMANTICS 13.16: the
//! connection reads in bounded chunks against the daemon's shared byte budget). Encoding is
//! `LengthDelimitedCodec`'s.

use std::fmt;
use std::io;

use bytes::{Buf, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};

pub use leasekit::governor::wire::MAX_FRAME_PAYLOAD;

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// A length prefix <= 0 or > 16 MiB; the message says which.
    Length(String),
    /// The stream ended inside a frame (after some bytes of its prefix or payload).
    Truncated,
    /// The socket failed.
    Io(io::Error),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Length(m) => f.write_str(m),
            FrameError::Truncated => f.write_str("stream ended inside a frame"),
            FrameError::Io(e) => write!(f, "socket error: {e}"),
        }
    }
}

impl std::error::Error for FrameError {}

impl From<io::Error> for FrameError {
    fn from(e: io::Error) -> Self {
        FrameError::Io(e)
    }
}

/// Checks a length prefix by 13.1 (signed, 1..=16 MiB): core's rule, the daemon's message.
pub fn check_length(prefix: [u8; 4]) -> Result<usize, String> {
    leasekit::governor::wire::check_frame_length(i32::from_le_bytes(prefix))
        .map_err(|e| e.message().to_string())
}

/// The daemon's codec: frames in, frames out.
#[derive(Debug)]
pub struct FrameCodec {
    /// Writes response frames.
    encoder: LengthDelimitedCodec,
    /// The payload length of the frame being read, once its prefix has been consumed.
    frame_len: Option<usize>,
}

impl Default for FrameCodec {
    fn default() -> Self {
        FrameCodec::new()
    }
}

impl FrameCodec {
    /// True while a frame's prefix has been read and its payload is incomplete.
    pub fn in_frame(&self) -> bool {
        self.frame_len.is_some()
    }

    /// How many more bytes the frame being read needs (its prefix included while that is
    /// incomplete), given the buffered bytes `src`.
    pub fn missing(&self, src: &BytesMut) -> usize {
        match self.frame_len {
            Some(n) => n.saturating_sub(src.len()),
            None => 4usize.saturating_sub(src.len()),
        }
    }

    /// A codec for 13.1 frames.
    pub fn new() -> FrameCodec {
        let encoder = LengthDelimitedCodec::builder()
            .little_endian()
            .length_field_type::<u32>()
            .max_frame_length(MAX_FRAME_PAYLOAD)
            .new_codec();
        FrameCodec {
            encoder,
            frame_len: None,
        }
    }
}

impl Decoder for FrameCodec {
    type Item = BytesMut;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, FrameError> {
        let n = match self.frame_len {
            Some(n) => n,
            None => {
                if src.len() < 4 {
                    return Ok(None);
                }
                let n =
                    check_length([src[0], src[1], src[2], src[3]]).map_err(FrameError::Length)?;
                src.advance(4);
                self.frame_len = Some(n);
                n
            }
        };
        if src.len() < n {
            // No reservation for the rest: the bytes are buffered as they arrive.
            return Ok(None);
        }
        self.frame_len = None;
        Ok(Some(src.split_to(n)))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, FrameError> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None if !self.in_frame() && src.is_empty() => Ok(None),
            None => Err(FrameError::Truncated),
        }
    }
}

impl Encoder<Bytes> for FrameCodec {
    type Error = FrameError;

    fn encode(&mut self, item: Bytes, dst: &mut BytesMut) -> Result<(), FrameError> {
        if item.is_empty() || item.len() > MAX_FRAME_PAYLOAD {
            return Err(FrameError::Length(format!(
                "response payload length {} is outside 1..={MAX_FRAME_PAYLOAD}",
                item.len()
            )));
        }
        self.encoder.encode(item, dst).map_err(FrameError::Io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(payload: &[u8]) -> BytesMut {
        let mut b = BytesMut::new();
        b.extend_from_slice(&(payload.len() as i32).to_le_bytes());
        b.extend_from_slice(payload);
        b
    }

    #[test]
    fn whole_frames_and_partial_ones() {
        let mut c = FrameCodec::new();
        let mut buf = frame(b"{\"a\":1}");
        buf.extend_from_slice(&frame(b"{}"));
        assert_eq!(&c.decode(&mut buf).unwrap().unwrap()[..], b"{\"a\":1}");
        assert_eq!(&c.decode(&mut buf).unwrap().unwrap()[..], b"{}");
        assert!(c.decode(&mut buf).unwrap().is_none());
        assert!(c.decode_eof(&mut buf).unwrap().is_none());

        let whole = frame(b"hello");
        let mut part = BytesMut::from(&whole[..6]);
        assert!(c.decode(&mut part).unwrap().is_none());
        part.extend_from_slice(&whole[6..]);
        assert_eq!(&c.decode(&mut part).unwrap().unwrap()[..], b"hello");
    }

    #[test]
    fn bad_lengths() {
        for len in [0i32, -1, i32::MIN, 16_777_217] {
            let mut c = FrameCodec::new();
            let mut buf = BytesMut::from(&len.to_le_bytes()[..]);
            let e = c.decode(&mut buf).unwrap_err();
            assert!(matches!(e, FrameError::Length(_)), "{len}");
            if len > 0 {
                assert!(e.to_string().contains("exceeds maximum"));
            }
        }
        let mut c = FrameCodec::new();
        let mut max = BytesMut::from(&(16_777_216i32).to_le_bytes()[..]);
        assert!(c.decode(&mut max).unwrap().is_none());
    }

    #[test]
    fn an_announced_length_reserves_nothing() {
        let mut c = FrameCodec::new();
        let mut buf = BytesMut::with_capacity(64);
        buf.extend_from_slice(&(16_777_216i32).to_le_bytes());
        buf.extend_from_slice(b"{}");
        assert!(c.decode(&mut buf).unwrap().is_none());
        assert!(buf.capacity() < 1024, "reserved {}", buf.capacity());
        assert_eq!(c.missing(&buf), 16_777_216 - 2);
        assert!(c.in_frame());
    }

    #[test]
    fn truncation_is_an_error_at_eof() {
        // Inside the prefix.
        let mut c = FrameCodec::new();
        let mut buf = BytesMut::from(&[5u8, 0][..]);
        assert!(matches!(c.decode_eof(&mut buf), Err(FrameError::Truncated)));
        // Right after the prefix (the inner codec alone would call this a clean end).
        let mut c = FrameCodec::new();
        let mut buf = BytesMut::from(&5i32.to_le_bytes()[..]);
        assert!(c.decode(&mut buf).unwrap().is_none());
        assert!(matches!(c.decode_eof(&mut buf), Err(FrameError::Truncated)));
        // Inside the payload.
        let mut c = FrameCodec::new();
        let mut buf = BytesMut::from(&frame(b"hello")[..7]);
        assert!(matches!(c.decode_eof(&mut buf), Err(FrameError::Truncated)));
    }

    #[test]
    fn encode_round_trips_and_refuses_empty() {
        let mut c = FrameCodec::new();
        let mut out = BytesMut::new();
        c.encode(Bytes::from_static(b"{}"), &mut out).unwrap();
        assert_eq!(&out[..], &frame(b"{}")[..]);
        assert!(c.encode(Bytes::new(), &mut out).is_err());
    }
}
