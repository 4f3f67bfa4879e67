//! gRPC Length-Prefixed-Message framing: splitting a byte stream into frames
//! and writing frames back out, without copying messages.
//!
//! # Wire format
//!
//! Every message on a gRPC stream is preceded by a five-byte header:
//!
//! ```text
//!  byte 0     bytes 1..5                    bytes 5..5+len
//! +--------+-----------------------------+-------------------------+
//! |  flag  |  len: u32, big-endian       |  message: len bytes     |
//! +--------+-----------------------------+-------------------------+
//!  0 = plain, 1 = compressed
//! |<-------------- header (5 bytes) ---->|
//! |<------------------------- one frame -------------------------->|
//! ```
//!
//! No message encoding is ever negotiated here, so a compressed frame (flag 1)
//! is an error, as is any flag other than 0 or 1.
//!
//! # Reading
//!
//! [`FrameDecoder`] is a [`tokio_util::codec::Decoder`]: give it to
//! `FramedRead` and it yields one [`Frame`] per message. A frame is a
//! [`Bytes`](bytes::Bytes) view of the read buffer: bytes are copied only when a frame
//! straddles two reads and the buffer has to grow to hold it whole. A declared
//! length is checked against the limit before it is trusted, and memory is
//! committed only as the message's bytes arrive (at most
//! [`MAX_RESERVE_AHEAD`] ahead of them).
//!
//! # Writing
//!
//! [`write_frames`] forwards frames exactly as they arrived, and
//! [`write_messages`] frames new messages; both use vectored writes, so
//! neither copies a frame or a message. [`encode`] and [`header`] build frames
//! in memory for producers.
//!
//! ```
//! use bytes::BytesMut;
//! use tokio_util::codec::Decoder;
//! use triage::frames::{encode, FrameDecoder};
//!
//! let mut wire = BytesMut::new();
//! encode(b"{\"id\":1}", &mut wire).unwrap();
//! encode(b"", &mut wire).unwrap();
//!
//! let mut decoder = FrameDecoder::new();
//! let first = decoder.decode(&mut wire).unwrap().unwrap();
//! assert_eq!(first.message(), b"{\"id\":1}");
//! let second = decoder.decode(&mut wire).unwrap().unwrap();
//! assert!(second.message().is_empty());
//! assert_eq!(decoder.decode_eof(&mut wire).unwrap(), None);
//! ```

mod batch;
mod decoder;
mod error;
mod write;

pub use batch::{BatchReader, READ_SIZE};
pub use decoder::{Frame, FrameDecoder};
pub use error::{FrameError, FramePart};
pub use write::{encode, header, write_frames, write_messages};

/// Length of a frame's header: one flag byte and a four-byte length.
pub const HEADER_LEN: usize = 5;

/// gRPC's default limit on a received message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// The most the decoder reserves in the read buffer beyond the bytes that have
/// arrived, however large the declared length: a peer that announces a
/// 4 GiB message and sends nothing else commits at most this much memory.
pub const MAX_RESERVE_AHEAD: usize = 64 * 1024;

const FLAG_PLAIN: u8 = 0;
const FLAG_COMPRESSED: u8 = 1;
