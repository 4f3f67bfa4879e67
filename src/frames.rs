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
//! [`Bytes`] view of the read buffer: bytes are copied only when a frame
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
//! assert_eq!(&first.message()[..], b"{\"id\":1}");
//! let second = decoder.decode(&mut wire).unwrap().unwrap();
//! assert!(second.message().is_empty());
//! assert_eq!(decoder.decode_eof(&mut wire).unwrap(), None);
//! ```

use std::error::Error;
use std::fmt;
use std::io::{self, IoSlice};

use bytes::{BufMut, Bytes, BytesMut};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio_util::codec::Decoder;

/// Length of a frame's header: one flag byte and a four-byte length.
pub const HEADER_LEN: usize = 5;

/// gRPC's default limit on a received message: 4 MiB.
pub const DEFAULT_MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// The most the decoder reserves in the read buffer beyond the bytes that have
/// arrived, however large the declared length: a peer that announces a
/// 4 GiB message and sends nothing else commits at most this much memory.
pub const MAX_RESERVE_AHEAD: usize = 64 * 1024;

/// The most `IoSlice`s passed to one `write_vectored` call (Linux's `IOV_MAX`
/// is 1024; a small batch keeps the slice array on the stack).
const MAX_SLICES_PER_WRITE: usize = 64;

const FLAG_PLAIN: u8 = 0;
const FLAG_COMPRESSED: u8 = 1;

/// One length-prefixed message, as it arrived: header and message together.
///
/// Both accessors are views of the same shared buffer; nothing is copied, and
/// cloning a `Frame` costs two reference-count increments.
///
/// ```
/// use bytes::BytesMut;
/// use tokio_util::codec::Decoder;
/// use triage::frames::FrameDecoder;
///
/// let mut wire = BytesMut::from(&[0, 0, 0, 0, 2, b'{', b'}'][..]);
/// let frame = FrameDecoder::new().decode(&mut wire).unwrap().unwrap();
/// assert_eq!(&frame.frame()[..], &[0, 0, 0, 0, 2, b'{', b'}']);
/// assert_eq!(&frame.message()[..], b"{}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Header and message, exactly as they arrived.
    frame: Bytes,
    /// `frame[HEADER_LEN..]`, kept so that `message()` is a plain borrow.
    message: Bytes,
}

impl Frame {
    /// Wraps a complete, checked frame. O(1): one reference-count increment.
    fn from_checked(frame: Bytes) -> Frame {
        debug_assert!(frame.len() >= HEADER_LEN);
        debug_assert_eq!(frame[0], FLAG_PLAIN);
        let message = frame.slice(HEADER_LEN..);
        Frame { frame, message }
    }

    /// The whole frame, header and message, byte for byte as it arrived:
    /// what a forwarder writes out. O(1), nothing copied.
    ///
    /// ```
    /// # use bytes::BytesMut;
    /// # use tokio_util::codec::Decoder;
    /// # use triage::frames::FrameDecoder;
    /// let mut wire = BytesMut::from(&[0, 0, 0, 0, 1, b'7'][..]);
    /// let frame = FrameDecoder::new().decode(&mut wire).unwrap().unwrap();
    /// assert_eq!(frame.frame().len(), 6);
    /// ```
    pub fn frame(&self) -> &Bytes {
        &self.frame
    }

    /// The message within the frame, without its header. O(1), nothing
    /// copied: a borrow of a view into the frame's buffer.
    ///
    /// ```
    /// # use bytes::BytesMut;
    /// # use tokio_util::codec::Decoder;
    /// # use triage::frames::FrameDecoder;
    /// let mut wire = BytesMut::from(&[0, 0, 0, 0, 1, b'7'][..]);
    /// let frame = FrameDecoder::new().decode(&mut wire).unwrap().unwrap();
    /// assert_eq!(&frame.message()[..], b"7");
    /// ```
    pub fn message(&self) -> &Bytes {
        &self.message
    }

    /// Gives up the frame for its bytes, header and message. O(1), nothing
    /// copied; saves the reference-count increment of `frame().clone()`.
    ///
    /// ```
    /// # use bytes::BytesMut;
    /// # use tokio_util::codec::Decoder;
    /// # use triage::frames::FrameDecoder;
    /// let mut wire = BytesMut::from(&[0, 0, 0, 0, 1, b'7'][..]);
    /// let frame = FrameDecoder::new().decode(&mut wire).unwrap().unwrap();
    /// assert_eq!(&frame.into_frame()[..], &[0, 0, 0, 0, 1, b'7']);
    /// ```
    pub fn into_frame(self) -> Bytes {
        self.frame
    }
}

/// Where the decoder stands within the current frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for (the rest of) a header; nothing of it has been trusted.
    Head,
    /// The header was checked; waiting for a message of this many bytes. The
    /// header is still at the front of the buffer, so the frame is split off
    /// whole.
    Data(usize),
}

/// Splits a byte stream into [`Frame`]s: a [`Decoder`] for `FramedRead`.
///
/// A small state machine: `Head` checks the flag and the declared length
/// against the limit, `Data(len)` waits for the message and then splits the
/// whole frame off the read buffer with `split_to(..).freeze()`, O(1) and
/// without a copy. Every error is fatal for the stream: the bad frame is left
/// in the buffer and decoding it again gives the same error.
///
/// The decoder counts the frames and bytes it has handed out, so each
/// [`FrameError`] says which frame (0-based) went wrong and at which byte of
/// the stream it starts.
///
/// ```
/// use bytes::BytesMut;
/// use tokio_util::codec::Decoder;
/// use triage::frames::FrameDecoder;
///
/// let mut decoder = FrameDecoder::new();
/// let mut buf = BytesMut::from(&[0, 0, 0, 0, 3, b'a'][..]);
/// assert_eq!(decoder.decode(&mut buf).unwrap(), None); // partial input is not an error
/// buf.extend_from_slice(b"bc");
/// let frame = decoder.decode(&mut buf).unwrap().unwrap();
/// assert_eq!(&frame.message()[..], b"abc");
/// assert_eq!(decoder.frames_decoded(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct FrameDecoder {
    max_message: usize,
    state: State,
    /// Frames handed out so far: the index of the frame being decoded.
    frames: u64,
    /// Stream bytes handed out so far: the offset of the frame being decoded.
    consumed: u64,
}

impl FrameDecoder {
    /// A decoder with gRPC's default limit, [`DEFAULT_MAX_MESSAGE`] (4 MiB).
    /// O(1), allocates nothing.
    ///
    /// ```
    /// use triage::frames::FrameDecoder;
    /// assert_eq!(FrameDecoder::new().max_message(), 4 * 1024 * 1024);
    /// ```
    pub fn new() -> FrameDecoder {
        FrameDecoder::with_max_message(DEFAULT_MAX_MESSAGE)
    }

    /// A decoder that rejects messages longer than `max_message` bytes (the
    /// header is not counted). O(1), allocates nothing.
    ///
    /// ```
    /// use triage::frames::FrameDecoder;
    /// assert_eq!(FrameDecoder::with_max_message(1024).max_message(), 1024);
    /// ```
    pub fn with_max_message(max_message: usize) -> FrameDecoder {
        FrameDecoder {
            max_message,
            state: State::Head,
            frames: 0,
            consumed: 0,
        }
    }

    /// The longest message accepted, in bytes. O(1).
    ///
    /// ```
    /// use triage::frames::FrameDecoder;
    /// assert_eq!(FrameDecoder::with_max_message(7).max_message(), 7);
    /// ```
    pub fn max_message(&self) -> usize {
        self.max_message
    }

    /// How many frames were handed out so far: the 0-based index of the next
    /// frame. O(1).
    ///
    /// ```
    /// use triage::frames::FrameDecoder;
    /// assert_eq!(FrameDecoder::new().frames_decoded(), 0);
    /// ```
    pub fn frames_decoded(&self) -> u64 {
        self.frames
    }

    /// How many stream bytes were handed out as frames so far: the offset of
    /// the next frame's first byte. O(1).
    ///
    /// ```
    /// use triage::frames::FrameDecoder;
    /// assert_eq!(FrameDecoder::new().bytes_consumed(), 0);
    /// ```
    pub fn bytes_consumed(&self) -> u64 {
        self.consumed
    }

    /// Reads and checks the header at the front of `src`; `None` until the
    /// checks can be made. A bad flag is reported as soon as its byte
    /// arrives, without waiting for the length.
    fn decode_head(&self, src: &[u8]) -> Result<Option<usize>, FrameError> {
        let Some(&flag) = src.first() else {
            return Ok(None);
        };
        match flag {
            FLAG_PLAIN => {}
            FLAG_COMPRESSED => {
                return Err(FrameError::Compressed {
                    index: self.frames,
                    offset: self.consumed,
                })
            }
            flag => {
                return Err(FrameError::BadFlag {
                    flag,
                    index: self.frames,
                    offset: self.consumed,
                })
            }
        }
        let Some(len_bytes) = src.get(1..HEADER_LEN) else {
            return Ok(None);
        };
        let mut be = [0u8; 4];
        be.copy_from_slice(len_bytes);
        let declared = u32::from_be_bytes(be);
        // A length that does not even fit `usize` is over any limit.
        match usize::try_from(declared) {
            Ok(len) if len <= self.max_message && len.checked_add(HEADER_LEN).is_some() => {
                Ok(Some(len))
            }
            _ => Err(FrameError::TooLarge {
                len: u64::from(declared),
                max: self.max_message,
                index: self.frames,
                offset: self.consumed,
            }),
        }
    }

    /// The error for a stream that ended with `src` holding an incomplete
    /// frame (never empty).
    fn truncated(&self, src: &[u8]) -> FrameError {
        let (part, received, expected) = match self.state {
            State::Head => (FramePart::Header, src.len(), HEADER_LEN),
            State::Data(len) => (FramePart::Message, src.len() - HEADER_LEN, len),
        };
        FrameError::Truncated {
            part,
            received,
            expected,
            index: self.frames,
            offset: self.consumed,
        }
    }
}

impl Default for FrameDecoder {
    /// Same as [`FrameDecoder::new`].
    fn default() -> FrameDecoder {
        FrameDecoder::new()
    }
}

impl Decoder for FrameDecoder {
    type Item = Frame;
    type Error = FrameError;

    /// Splits the next frame off the front of `src`, or returns `Ok(None)`
    /// when it has not fully arrived. O(1) per call apart from a buffer that
    /// grows (by at most [`MAX_RESERVE_AHEAD`] at a time); the frame is a view
    /// of `src`'s buffer, not a copy.
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, FrameError> {
        let len = match self.state {
            State::Data(len) => len,
            State::Head => match self.decode_head(src)? {
                Some(len) => {
                    self.state = State::Data(len);
                    len
                }
                None => return Ok(None),
            },
        };
        // Cannot overflow: `decode_head` checked it.
        let frame_len = HEADER_LEN + len;
        if src.len() < frame_len {
            // Make room for what is coming, but never trust the declared
            // length with more than a bounded amount of memory.
            let missing = frame_len - src.len();
            src.reserve(missing.min(MAX_RESERVE_AHEAD));
            return Ok(None);
        }
        let frame = src.split_to(frame_len).freeze();
        self.state = State::Head;
        self.frames += 1;
        self.consumed += frame_len as u64;
        Ok(Some(Frame::from_checked(frame)))
    }

    /// Like [`decode`](Decoder::decode) at the end of the stream: `Ok(None)`
    /// when the stream ended cleanly between frames, and
    /// [`FrameError::Truncated`] when it ended inside one.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, FrameError> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None if src.is_empty() => Ok(None),
            None => Err(self.truncated(src)),
        }
    }
}

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
    /// A message to be framed is longer than the four-byte length field can
    /// say (`u32::MAX` bytes).
    Unframeable {
        /// The message's length in bytes.
        len: usize,
    },
    /// Reading the stream failed.
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
    /// `Io`'s text already includes the I/O error's own text, so the chain
    /// continues with that error's source rather than repeating it.
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            FrameError::Io(err) => err.source(),
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

/// The header of an uncompressed frame whose message is `len` bytes long.
/// O(1), allocates nothing.
///
/// # Errors
///
/// [`FrameError::Unframeable`] when `len` is over `u32::MAX`. Never panics.
///
/// ```
/// use triage::frames::header;
/// assert_eq!(header(258).unwrap(), [0, 0, 0, 1, 2]);
/// ```
pub fn header(len: usize) -> Result<[u8; HEADER_LEN], FrameError> {
    let len32 = u32::try_from(len).map_err(|_| FrameError::Unframeable { len })?;
    let [a, b, c, d] = len32.to_be_bytes();
    Ok([FLAG_PLAIN, a, b, c, d])
}

/// Appends `message` to `out` as one uncompressed frame. Copies the message
/// once (O(len)); `out` grows at most once. For producers that build frames in
/// memory; to send existing messages without copying them, use
/// [`write_messages`].
///
/// # Errors
///
/// [`FrameError::Unframeable`] when the message is over `u32::MAX` bytes;
/// `out` is then left as it was.
///
/// ```
/// use bytes::BytesMut;
/// use triage::frames::encode;
///
/// let mut out = BytesMut::new();
/// encode(b"hi", &mut out).unwrap();
/// assert_eq!(&out[..], &[0, 0, 0, 0, 2, b'h', b'i']);
/// ```
pub fn encode(message: &[u8], out: &mut BytesMut) -> Result<(), FrameError> {
    let head = header(message.len())?;
    out.reserve(HEADER_LEN + message.len());
    out.put_slice(&head);
    out.put_slice(message);
    Ok(())
}

/// Writes `frames`, each a whole frame (header and message) such as
/// [`Frame::frame`], exactly as they are, one after another. Nothing is
/// copied: up to 64 frames go to each `write_vectored` call, and a partial
/// write resumes where it stopped, even in the middle of a frame. Does not
/// flush.
///
/// # Errors
///
/// The writer's error; `WriteZero` when it accepts no bytes. Bytes already
/// written stay written.
///
/// ```
/// use bytes::Bytes;
/// use triage::frames::write_frames;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let frames = [Bytes::from_static(&[0, 0, 0, 0, 1, b'a']), Bytes::from_static(&[0, 0, 0, 0, 0])];
/// let mut out = Vec::new();
/// write_frames(&mut out, &frames).await.unwrap();
/// assert_eq!(out, [0, 0, 0, 0, 1, b'a', 0, 0, 0, 0, 0]);
/// # });
/// ```
pub async fn write_frames<W, B>(w: &mut W, frames: &[B]) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
    B: AsRef<[u8]>,
{
    for batch in frames.chunks(MAX_SLICES_PER_WRITE) {
        write_all_vectored(w, batch.iter().map(AsRef::as_ref)).await?;
    }
    Ok(())
}

/// Frames each of `messages` (uncompressed) and writes them, one after
/// another. Messages are not copied: each goes out as its own `IoSlice` next
/// to a five-byte header built on the stack, up to 32 messages per
/// `write_vectored` call, and a partial write resumes where it stopped. Does
/// not flush.
///
/// # Errors
///
/// `InvalidInput` (wrapping [`FrameError::Unframeable`]) when a message is
/// over `u32::MAX` bytes, checked before anything is written; otherwise the
/// writer's error, or `WriteZero` when it accepts no bytes.
///
/// ```
/// use bytes::Bytes;
/// use triage::frames::write_messages;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut out = Vec::new();
/// write_messages(&mut out, &[Bytes::from_static(b"{}")]).await.unwrap();
/// assert_eq!(out, [0, 0, 0, 0, 2, b'{', b'}']);
/// # });
/// ```
pub async fn write_messages<W, B>(w: &mut W, messages: &[B]) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
    B: AsRef<[u8]>,
{
    const MESSAGES_PER_WRITE: usize = MAX_SLICES_PER_WRITE / 2;
    // Fail before writing anything, so a stream is never left cut mid-way
    // by a message that could not be framed.
    for message in messages {
        header_for_write(message.as_ref())?;
    }
    let mut headers = [[0u8; HEADER_LEN]; MESSAGES_PER_WRITE];
    for batch in messages.chunks(MESSAGES_PER_WRITE) {
        for (head, message) in headers.iter_mut().zip(batch) {
            *head = header_for_write(message.as_ref())?;
        }
        let parts = headers
            .iter()
            .zip(batch)
            .flat_map(|(head, message)| [&head[..], message.as_ref()]);
        write_all_vectored(w, parts).await?;
    }
    Ok(())
}

/// [`header`] for a message about to be written, its error as an I/O error.
fn header_for_write(message: &[u8]) -> io::Result<[u8; HEADER_LEN]> {
    header(message.len()).map_err(|err| io::Error::new(io::ErrorKind::InvalidInput, err))
}

/// Writes all of `parts` (at most [`MAX_SLICES_PER_WRITE`] of them) with
/// `write_vectored`, advancing across slices after each partial write.
async fn write_all_vectored<'a, W>(
    w: &mut W,
    parts: impl Iterator<Item = &'a [u8]>,
) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let mut slices = [IoSlice::new(&[]); MAX_SLICES_PER_WRITE];
    let mut count = 0;
    let mut remaining = 0usize;
    // Empty parts are left out: they would take a slice and carry nothing.
    for part in parts.filter(|part| !part.is_empty()) {
        debug_assert!(count < MAX_SLICES_PER_WRITE, "too many parts for one batch");
        slices[count] = IoSlice::new(part);
        count += 1;
        remaining += part.len();
    }
    let mut unwritten = &mut slices[..count];
    while remaining > 0 {
        let written = w.write_vectored(unwritten).await?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        // `advance_slices` panics past the end; a writer that claims more
        // than it was given is broken, but must not take the process down.
        if written > remaining {
            return Err(io::Error::other(format!(
                "writer reported {written} bytes written of {remaining} given"
            )));
        }
        remaining -= written;
        IoSlice::advance_slices(&mut unwritten, written);
    }
    Ok(())
}
