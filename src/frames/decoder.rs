//! Splitting a byte stream into frames: [`FrameDecoder`] and the [`Frame`]s it
//! hands out.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio_util::codec::Decoder;

use super::{
    FrameError, FramePart, DEFAULT_MAX_MESSAGE, FLAG_COMPRESSED, FLAG_PLAIN, HEADER_LEN,
    MAX_RESERVE_AHEAD,
};

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
/// assert_eq!(frame.message(), b"{}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Header and message, exactly as they arrived (at least the header).
    frame: Bytes,
}

impl Frame {
    /// Wraps a complete, checked frame. O(1): the buffer's reference count
    /// is not touched (a frame holds one view of it, not two: the count is
    /// one cache line that the reading, judging and writing cores all
    /// write).
    fn from_checked(frame: Bytes) -> Frame {
        debug_assert!(frame.len() >= HEADER_LEN);
        debug_assert_eq!(frame[0], FLAG_PLAIN);
        Frame { frame }
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
    /// copied: a borrow of the frame's bytes.
    ///
    /// ```
    /// # use bytes::BytesMut;
    /// # use tokio_util::codec::Decoder;
    /// # use triage::frames::FrameDecoder;
    /// let mut wire = BytesMut::from(&[0, 0, 0, 0, 1, b'7'][..]);
    /// let frame = FrameDecoder::new().decode(&mut wire).unwrap().unwrap();
    /// assert_eq!(frame.message(), b"7");
    /// ```
    pub fn message(&self) -> &[u8] {
        // A checked frame holds at least its header.
        self.frame.get(HEADER_LEN..).unwrap_or_default()
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
/// assert_eq!(frame.message(), b"abc");
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

    /// Makes room in `buf`, the buffer this decoder reads from, for `want`
    /// more bytes. Inside a frame longer than [`MAX_RESERVE_AHEAD`] the
    /// buffer grows as a `Vec` does, to twice its capacity, but never past
    /// the frame's own length: split off, such a frame holds a buffer of its
    /// own size, where `BytesMut::reserve` could leave it holding twice that
    /// (a 4 MiB frame in an 8 MiB buffer). The rest of the time it is
    /// `buf.reserve(want)`. Costs a copy of the bytes held at each growth,
    /// as a `Vec`'s growth does; nothing when the room is there.
    pub fn make_room(&self, buf: &mut BytesMut, want: usize) {
        let frame_len = match self.state {
            State::Data(len) => HEADER_LEN + len,
            State::Head => 0,
        };
        if frame_len <= MAX_RESERVE_AHEAD || buf.len() >= frame_len {
            buf.reserve(want);
            return;
        }
        // The buffer holds the front of this frame and nothing else.
        let needed = buf.len() + want.min(frame_len - buf.len());
        if buf.capacity() >= needed {
            return;
        }
        let capacity = (buf.capacity().saturating_mul(2))
            .max(needed)
            .min(frame_len);
        let mut grown = BytesMut::with_capacity(capacity);
        grown.extend_from_slice(buf);
        *buf = grown;
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
    /// Which part of the current frame `src` (the bytes not yet handed out)
    /// is in, how many of its bytes arrived and how many it should have.
    fn progress(&self, src: &[u8]) -> (FramePart, usize, usize) {
        match self.state {
            State::Head => (FramePart::Header, src.len(), HEADER_LEN),
            State::Data(len) => (FramePart::Message, src.len() - HEADER_LEN, len),
        }
    }

    /// The error for a stream that stopped moving for `waited` while `src`
    /// (the bytes not yet handed out, not empty) held part of a frame.
    pub fn stalled(&self, src: &[u8], waited: Duration) -> FrameError {
        let (part, received, expected) = self.progress(src);
        FrameError::Stalled {
            part,
            received,
            expected,
            waited,
            index: self.frames,
            offset: self.consumed,
        }
    }

    /// The error for a read that failed with `error`: with the frame's
    /// progress when `src` (the bytes not yet handed out) holds part of one,
    /// as [`FrameError::Io`] between frames.
    pub fn read_failed(&self, src: &[u8], error: std::io::Error) -> FrameError {
        if src.is_empty() {
            return FrameError::Io(error);
        }
        let (part, received, expected) = self.progress(src);
        FrameError::ReadFailed {
            error,
            part,
            received,
            expected,
            index: self.frames,
            offset: self.consumed,
        }
    }

    fn truncated(&self, src: &[u8]) -> FrameError {
        let (part, received, expected) = self.progress(src);
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
            self.make_room(src, missing.min(MAX_RESERVE_AHEAD));
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
