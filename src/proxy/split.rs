//! Cutting gRPC frames out of HTTP/2 DATA chunks: a view per frame, a copy
//! only for a frame that straddles two chunks.
//!
//! ```text
//!  chunk k                          chunk k+1
//! +---------+---------+------+     +-----------+---------+----
//! | frame a | frame b | c... | --> | ...rest c | frame d | ...
//! +---------+---------+------+     +-----------+---------+----
//!  Chunk(0..na) Chunk(na..nb)        Assembled(c)  Chunk(..)
//!  views of chunk k, O(1)           c's bytes copied into `tail` once
//! ```
//!
//! [`FrameDecoder`](crate::frames::FrameDecoder) cuts frames out of a
//! `BytesMut` it reads into. A DATA chunk from h2 is a shared [`Bytes`] (a
//! view of h2's read buffer), and turning it into a `BytesMut` copies it
//! whole; so the proxy cuts whole frames out of the chunk itself, with the
//! same wire rules and the same [`FrameError`]s as `FrameDecoder`, and keeps
//! only a frame that straddles chunks in a buffer of its own. The property
//! test in `tests/proxy_split.rs` and the fuzz target `proxy_frames` check
//! it against `FrameDecoder` on the same bytes cut at arbitrary places.

use std::ops::Range;

use bytes::Bytes;

use crate::frames::{FrameError, FramePart, DEFAULT_MAX_MESSAGE, HEADER_LEN};

/// Where the next frame is.
#[derive(Debug, PartialEq, Eq)]
pub enum Cut {
    /// A whole frame inside the current chunk (header and message), as a
    /// range of [`ChunkSplitter::chunk`]. Nothing copied.
    Chunk(Range<usize>),
    /// A frame that straddled chunks, assembled in its own buffer (its
    /// bytes were copied once).
    Assembled(Bytes),
}

/// The largest straddling frame whose whole buffer is reserved when its
/// first bytes arrive: no more than a chunk the splitter holds anyway.
const RESERVE_AHEAD: usize = 64 * 1024;

/// Appends `bytes` to `tail`, the start of a frame of `frame_len` bytes
/// (`bytes` fits in it). Its buffer doubles as it fills, as a `Vec` does,
/// but never grows past the frame: a frame of the limit is assembled in a
/// buffer of its own size, not twice that. Where a doubled buffer would
/// hold more than half the frame, it takes the whole frame at once, so the
/// last growth copies at most half the frame; a frame no longer than
/// [`RESERVE_AHEAD`] gets its whole buffer at once (one allocation for the
/// common small frame). O(`bytes`); growing reallocates, which copies the
/// tail only where the allocator cannot extend it in place.
fn grow_within(tail: &mut Vec<u8>, bytes: &[u8], frame_len: usize) {
    debug_assert!(tail.len() + bytes.len() <= frame_len);
    if tail.capacity() - tail.len() < bytes.len() {
        let doubled = (tail.capacity() * 2).max(tail.len() + bytes.len());
        let capacity = if frame_len <= RESERVE_AHEAD || doubled > frame_len / 2 {
            frame_len
        } else {
            doubled
        };
        tail.reserve_exact(capacity - tail.len());
    }
    tail.extend_from_slice(bytes);
}

/// Splits a sequence of byte chunks into gRPC frames.
///
/// Feed a chunk with [`push`](ChunkSplitter::push), then call
/// [`next_cut`](ChunkSplitter::next_cut) until it returns `Ok(None)` (the
/// chunk is used up), then push the next one. At the end of the stream,
/// [`finish`](ChunkSplitter::finish) says whether it ended between frames.
///
/// Costs O(1) per frame inside a chunk; a frame that straddles chunks is
/// copied once into a buffer of its own (the declared length is checked
/// against the limit first; a frame of at most 64 KiB gets its whole buffer
/// when its first bytes arrive, a longer one a buffer that grows with the
/// bytes as they arrive, doubling but never past the frame), so memory is
/// at most one message plus one chunk.
///
/// ```
/// use bytes::Bytes;
/// use triage::proxy::split::{ChunkSplitter, Cut};
///
/// let mut split = ChunkSplitter::new();
/// split.push(Bytes::from_static(&[0, 0, 0, 0, 2, b'{', b'}', 0, 0]));
/// assert_eq!(split.next_cut().unwrap(), Some(Cut::Chunk(0..7)));
/// assert_eq!(split.next_cut().unwrap(), None); // two bytes of a header wait for more
/// split.push(Bytes::from_static(&[0, 0, 0]));
/// assert_eq!(split.next_cut().unwrap(), Some(Cut::Assembled(Bytes::from_static(&[0, 0, 0, 0, 0]))));
/// assert!(split.finish().is_ok());
/// ```
#[derive(Debug)]
pub struct ChunkSplitter {
    max_message: usize,
    /// The chunk being cut; `pos` is where its next frame starts.
    chunk: Bytes,
    pos: usize,
    /// The start of a frame that did not fit in its chunk.
    tail: Vec<u8>,
    /// Frames handed out so far: the index of the next one.
    frames: u64,
    /// Stream bytes handed out as frames so far: the offset of the next one.
    consumed: u64,
    /// Compressed frames (flag 1) are handed out, not refused: the caller
    /// can inflate them.
    compressed_ok: bool,
}

impl Default for ChunkSplitter {
    /// Same as [`ChunkSplitter::new`].
    fn default() -> ChunkSplitter {
        ChunkSplitter::new()
    }
}

impl ChunkSplitter {
    /// A splitter with gRPC's default limit of 4 MiB a message. O(1),
    /// allocates nothing.
    pub fn new() -> ChunkSplitter {
        ChunkSplitter::with_max_message(DEFAULT_MAX_MESSAGE)
    }

    /// A splitter that rejects messages over `max_message` bytes. O(1),
    /// allocates nothing.
    pub fn with_max_message(max_message: usize) -> ChunkSplitter {
        ChunkSplitter {
            max_message,
            chunk: Bytes::new(),
            pos: 0,
            tail: Vec::new(),
            frames: 0,
            consumed: 0,
            compressed_ok: false,
        }
    }

    /// Takes the next chunk. The previous one must be used up (`next_cut`
    /// returned `Ok(None)`); its bytes are released. O(1).
    pub fn push(&mut self, chunk: Bytes) {
        debug_assert_eq!(
            self.pos,
            self.chunk.len(),
            "the previous chunk is not used up"
        );
        self.chunk = chunk;
        self.pos = 0;
    }

    /// The current chunk, for the ranges of [`Cut::Chunk`]. O(1).
    pub fn chunk(&self) -> &Bytes {
        &self.chunk
    }

    /// Bytes this splitter holds: the unread rest of the current chunk and
    /// the start of a straddling frame. O(1).
    pub fn buffered(&self) -> usize {
        self.chunk.len() - self.pos + self.tail.len()
    }

    /// How many frames were handed out so far. O(1).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The next frame, `Ok(None)` when the current chunk is used up (any
    /// start of a frame it ended with is kept for the next chunk), or the
    /// error that stops the stream: a compressed frame, a flag other than 0
    /// or 1, or a message over the limit, as [`FrameError`] with the frame's
    /// index and stream offset. After an error the splitter must not be
    /// used again.
    pub fn next_cut(&mut self) -> Result<Option<Cut>, FrameError> {
        if !self.tail.is_empty() {
            return self.complete_tail();
        }
        let rest = &self.chunk[self.pos..];
        if rest.is_empty() {
            return Ok(None);
        }
        // A bad flag is reported as soon as its byte is seen, as the
        // decoder does.
        self.check_flag(rest[0])?;
        if rest.len() < HEADER_LEN {
            self.tail.extend_from_slice(rest);
            self.pos = self.chunk.len();
            return Ok(None);
        }
        let frame_len = self.frame_len(rest)?;
        if rest.len() < frame_len {
            // Straddles: keep what arrived, and only that.
            grow_within(&mut self.tail, rest, frame_len);
            self.pos = self.chunk.len();
            return Ok(None);
        }
        let start = self.pos;
        self.pos += frame_len;
        self.handed_out(frame_len);
        Ok(Some(Cut::Chunk(start..self.pos)))
    }

    /// Feeds the straddling frame in `tail` from the current chunk.
    fn complete_tail(&mut self) -> Result<Option<Cut>, FrameError> {
        if self.tail.len() < HEADER_LEN {
            let want = (HEADER_LEN - self.tail.len()).min(self.chunk.len() - self.pos);
            self.tail
                .extend_from_slice(&self.chunk[self.pos..self.pos + want]);
            self.pos += want;
            if self.tail.len() < HEADER_LEN {
                return Ok(None);
            }
        }
        let frame_len = self.frame_len(&self.tail)?;
        let want = (frame_len - self.tail.len()).min(self.chunk.len() - self.pos);
        grow_within(
            &mut self.tail,
            &self.chunk[self.pos..self.pos + want],
            frame_len,
        );
        self.pos += want;
        if self.tail.len() < frame_len {
            return Ok(None);
        }
        self.handed_out(frame_len);
        // Taken whole: `tail` is left empty with no capacity, so a long
        // straddling frame does not pin its buffer in this splitter; its
        // buffer, of its size, becomes the frame's without a copy.
        Ok(Some(Cut::Assembled(Bytes::from(std::mem::take(
            &mut self.tail,
        )))))
    }

    /// The splitter, handing out compressed frames (flag 1) too where
    /// `accept` (the caller inflates them), instead of refusing them with
    /// [`FrameError::Compressed`]. O(1).
    pub fn accepting_compressed(mut self, accept: bool) -> ChunkSplitter {
        self.compressed_ok = accept;
        self
    }

    /// Checks a frame's flag byte.
    fn check_flag(&self, flag: u8) -> Result<(), FrameError> {
        match flag {
            0 => Ok(()),
            1 if self.compressed_ok => Ok(()),
            1 => Err(FrameError::Compressed {
                index: self.frames,
                offset: self.consumed,
            }),
            flag => Err(FrameError::BadFlag {
                flag,
                index: self.frames,
                offset: self.consumed,
            }),
        }
    }

    /// The length of the frame whose (at least five) header bytes start
    /// `head`, checked against the limit before it is trusted. The flag was
    /// checked when its byte arrived.
    fn frame_len(&self, head: &[u8]) -> Result<usize, FrameError> {
        let declared = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
        match usize::try_from(declared) {
            Ok(len) if len <= self.max_message => len
                .checked_add(HEADER_LEN)
                .ok_or_else(|| self.too_large(declared)),
            _ => Err(self.too_large(declared)),
        }
    }

    fn too_large(&self, declared: u32) -> FrameError {
        FrameError::TooLarge {
            len: u64::from(declared),
            max: self.max_message,
            index: self.frames,
            offset: self.consumed,
        }
    }

    fn handed_out(&mut self, frame_len: usize) {
        self.frames += 1;
        self.consumed += frame_len as u64;
    }

    /// At the end of the stream: `Ok(())` when it ended between frames,
    /// [`FrameError::Truncated`] when it ended inside one. O(1).
    pub fn finish(&self) -> Result<(), FrameError> {
        debug_assert_eq!(self.pos, self.chunk.len(), "the last chunk is not used up");
        if self.tail.is_empty() {
            return Ok(());
        }
        let (part, received, expected) = if self.tail.len() < HEADER_LEN {
            (FramePart::Header, self.tail.len(), HEADER_LEN)
        } else {
            let head = &self.tail;
            let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
            (FramePart::Message, self.tail.len() - HEADER_LEN, len)
        };
        Err(FrameError::Truncated {
            part,
            received,
            expected,
            index: self.frames,
            offset: self.consumed,
        })
    }
}
