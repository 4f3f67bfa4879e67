//! Why a stream could not be split into frames, or a message not framed.

use std::error::Error;
use std::fmt;
use std::io;
use std::time::Duration;

/// Which part of a frame a truncated stream ended in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FramePart {
    /// The five-byte header (flag and length).
    Header,
    /// The message the header announced.
    Message,
}

impl fmt::Display for FramePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FramePart::Header => "header",
            FramePart::Message => "message",
        })
    }
}

/// Why a stream of frames could not be split, or a message not framed.
///
/// Decoding errors carry the 0-based `index` of the offending frame and the
/// stream `offset` of its first byte, and say both in their text:
///
/// ```
/// use bytes::BytesMut;
/// use tokio_util::codec::Decoder;
/// use triage::frames::FrameDecoder;
///
/// let mut buf = BytesMut::from(&[7u8, 0, 0, 0, 0][..]);
/// let err = FrameDecoder::new().decode(&mut buf).unwrap_err();
/// assert_eq!(err.to_string(), "frame flag 0x07 is neither 0 nor 1 (frame 0 at byte 0)");
/// ```
#[derive(Debug)]
pub enum FrameError {
    /// The frame's flag says compressed, but no message encoding was
    /// negotiated, so its message cannot be read.
    Compressed {
        /// 0-based index of the frame in the stream.
        index: u64,
        /// Stream offset of the frame's first byte.
        offset: u64,
    },
    /// The frame's flag byte is neither 0 (plain) nor 1 (compressed): the
    /// stream is not gRPC framing, or lost its place.
    BadFlag {
        /// The flag byte as it arrived.
        flag: u8,
        /// 0-based index of the frame in the stream.
        index: u64,
        /// Stream offset of the frame's first byte.
        offset: u64,
    },
    /// The declared message length is over the decoder's limit; nothing was
    /// allocated for it.
    TooLarge {
        /// The declared message length in bytes.
        len: u64,
        /// The decoder's limit in bytes.
        max: usize,
        /// 0-based index of the frame in the stream.
        index: u64,
        /// Stream offset of the frame's first byte.
        offset: u64,
    },
    /// The stream ended inside a frame.
    Truncated {
        /// The part of the frame the stream ended in.
        part: FramePart,
        /// Bytes of that part that arrived.
        received: usize,
        /// Bytes that part should have had.
        expected: usize,
        /// 0-based index of the frame in the stream.
        index: u64,
        /// Stream offset of the frame's first byte.
        offset: u64,
    },
    /// The stream stopped moving inside a frame: no byte arrived for the
    /// idle timeout while a frame was part-way through.
    Stalled {
        /// The part of the frame the stream stalled in.
        part: FramePart,
        /// Bytes of that part that arrived.
        received: usize,
        /// Bytes that part should have had.
        expected: usize,
        /// How long nothing arrived.
        waited: Duration,
        /// 0-based index of the frame in the stream.
        index: u64,
        /// Stream offset of the frame's first byte.
        offset: u64,
    },
    /// Reading the stream failed (a reset, say) inside a frame: what
    /// [`FrameError::Truncated`] says of a clean end, with the read error.
    ReadFailed {
        /// The read error.
        error: io::Error,
        /// The part of the frame the stream failed in.
        part: FramePart,
        /// Bytes of that part that arrived.
        received: usize,
        /// Bytes that part should have had.
        expected: usize,
        /// 0-based index of the frame in the stream.
        index: u64,
        /// Stream offset of the frame's first byte.
        offset: u64,
    },
    /// A message to be framed is longer than the four-byte length field can
    /// say (`u32::MAX` bytes).
    Unframeable {
        /// The message's length in bytes.
        len: usize,
    },
    /// Reading the stream failed between frames (inside one it is
    /// [`FrameError::ReadFailed`]).
    Io(io::Error),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (index, offset) = match self {
            FrameError::Compressed { index, offset } => {
                f.write_str("compressed frame: no message encoding was negotiated")?;
                (index, offset)
            }
            FrameError::BadFlag {
                flag,
                index,
                offset,
            } => {
                write!(f, "frame flag {flag:#04x} is neither 0 nor 1")?;
                (index, offset)
            }
            FrameError::TooLarge {
                len,
                max,
                index,
                offset,
            } => {
                write!(f, "message of {len} bytes is over the {max}-byte limit")?;
                (index, offset)
            }
            FrameError::Truncated {
                part,
                received,
                expected,
                index,
                offset,
            } => {
                write!(
                    f,
                    "stream ended inside a frame: {received} of {expected} {part} bytes arrived"
                )?;
                (index, offset)
            }
            FrameError::Stalled {
                part,
                received,
                expected,
                waited,
                index,
                offset,
            } => {
                write!(
                    f,
                    "stream stalled inside a frame: {received} of {expected} {part} bytes \
                     arrived, then nothing for {waited:?}"
                )?;
                (index, offset)
            }
            FrameError::ReadFailed {
                error,
                part,
                received,
                expected,
                index,
                offset,
            } => {
                write!(
                    f,
                    "i/o error inside a frame: {error}; {received} of {expected} {part} bytes \
                     arrived"
                )?;
                (index, offset)
            }
            FrameError::Unframeable { len } => {
                return write!(
                    f,
                    "message of {len} bytes cannot be framed: \
                     the length field holds at most {} bytes",
                    u32::MAX
                );
            }
            FrameError::Io(err) => return write!(f, "i/o error: {err}"),
        };
        // Every decoding error says where it happened, the same way.
        write!(f, " (frame {index} at byte {offset})")
    }
}

impl Error for FrameError {
    /// `Io`'s and `ReadFailed`'s text already includes the I/O error's own
    /// text, so the chain continues with that error's source rather than
    /// repeating it.
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            FrameError::Io(err) | FrameError::ReadFailed { error: err, .. } => err.source(),
            _ => None,
        }
    }
}

impl From<io::Error> for FrameError {
    /// Wraps a read error; `FramedRead` needs this to report one.
    fn from(err: io::Error) -> FrameError {
        FrameError::Io(err)
    }
}
