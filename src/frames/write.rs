//! Writing frames: forwarding them as they arrived, or framing new messages,
//! with vectored writes and no copy.

use std::io::{self, IoSlice};

use bytes::{BufMut, BytesMut};
use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::{FrameError, FLAG_PLAIN, HEADER_LEN};

/// The most `IoSlice`s passed to one `write_vectored` call (Linux's `IOV_MAX`
/// is 1024; a small batch keeps the slice array on the stack).
const MAX_SLICES_PER_WRITE: usize = 64;

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
/// [`Frame::frame`](super::Frame::frame), exactly as they are, one after another. Nothing is
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
