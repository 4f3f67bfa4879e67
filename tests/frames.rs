//! Integration tests for `triage::frames`: splitting gRPC frames at every
//! possible read boundary, each error with its exact text, bounded memory for
//! untrusted lengths, and vectored writers that survive partial writes.

#[path = "../optics-core/tests/support/scale.rs"]
mod scale;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use tokio::io::AsyncWrite;
use tokio_util::codec::Decoder;
use triage::frames::{
    encode, header, write_frames, write_messages, Frame, FrameDecoder, FrameError, FramePart,
    DEFAULT_MAX_MESSAGE, HEADER_LEN, MAX_RESERVE_AHEAD,
};

// ---------------------------------------------------------------------------
// Oracle and helpers
// ---------------------------------------------------------------------------

/// The naive oracle: one frame, built byte by byte from the specification.
fn naive_frame(message: &[u8]) -> Vec<u8> {
    let mut frame = vec![0u8];
    frame.extend_from_slice(&(message.len() as u32).to_be_bytes());
    frame.extend_from_slice(message);
    frame
}

fn naive_stream<M: AsRef<[u8]>>(messages: &[M]) -> Vec<u8> {
    messages
        .iter()
        .flat_map(|m| naive_frame(m.as_ref()))
        .collect()
}

/// Feeds `stream` to a decoder in pieces that end at each of `cuts` (sorted,
/// inside the stream), decoding every frame available after each piece, then
/// finishes with `decode_eof` as `FramedRead` does.
fn decode_in_pieces(
    mut decoder: FrameDecoder,
    stream: &[u8],
    cuts: &[usize],
) -> Result<Vec<Frame>, FrameError> {
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    let mut start = 0;
    for &end in cuts.iter().chain(std::iter::once(&stream.len())) {
        buf.extend_from_slice(&stream[start..end]);
        start = end;
        while let Some(frame) = decoder.decode(&mut buf)? {
            frames.push(frame);
        }
    }
    while let Some(frame) = decoder.decode_eof(&mut buf)? {
        frames.push(frame);
    }
    Ok(frames)
}

fn assert_frames_match(frames: &[Frame], messages: &[&[u8]]) {
    assert_eq!(frames.len(), messages.len());
    for (frame, message) in frames.iter().zip(messages) {
        assert_eq!(frame.message(), *message);
        assert_eq!(&frame.frame()[..], &naive_frame(message)[..]);
    }
}

/// Five messages of different shapes, one of them empty.
fn small_messages() -> Vec<&'static [u8]> {
    vec![
        br#"{"id":1}"#,
        b"",
        b"x",
        br#"{"kind":"bug","detail":{"severity":"high","votes":12}}"#,
        b"[]",
    ]
}

fn decode_all(decoder: &mut FrameDecoder, buf: &mut BytesMut) -> Result<Vec<Frame>, FrameError> {
    let mut frames = Vec::new();
    while let Some(frame) = decoder.decode(buf)? {
        frames.push(frame);
    }
    Ok(frames)
}

// ---------------------------------------------------------------------------
// Splitting
// ---------------------------------------------------------------------------

#[test]
fn every_pair_of_split_offsets_gives_the_same_frames() {
    let messages = small_messages();
    let stream = naive_stream(&messages);
    for first in 0..=stream.len() {
        for second in first..=stream.len() {
            let frames = decode_in_pieces(FrameDecoder::new(), &stream, &[first, second])
                .unwrap_or_else(|err| panic!("cuts at {first} and {second}: {err}"));
            assert_frames_match(&frames, &messages);
        }
    }
}

#[test]
fn one_byte_at_a_time_gives_the_same_frames() {
    let messages = small_messages();
    let stream = naive_stream(&messages);
    let cuts: Vec<usize> = (1..stream.len()).collect();
    let frames = decode_in_pieces(FrameDecoder::new(), &stream, &cuts).unwrap();
    assert_frames_match(&frames, &messages);
}

#[test]
fn encode_matches_the_naive_oracle() {
    let mut out = BytesMut::new();
    for message in small_messages() {
        encode(message, &mut out).unwrap();
    }
    assert_eq!(&out[..], &naive_stream(&small_messages())[..]);
}

#[test]
fn frames_are_views_of_the_read_buffer() {
    let messages = small_messages();
    let mut buf = BytesMut::from(&naive_stream(&messages)[..]);
    let base = buf.as_ptr() as usize;
    let end = base + buf.len();
    let frames = decode_all(&mut FrameDecoder::new(), &mut buf).unwrap();
    assert_frames_match(&frames, &messages);
    let mut expected_start = base;
    for frame in &frames {
        let start = frame.frame().as_ptr() as usize;
        assert_eq!(
            start, expected_start,
            "frame is not in place in the read buffer"
        );
        assert!(start + frame.frame().len() <= end);
        if !frame.message().is_empty() {
            assert_eq!(frame.message().as_ptr() as usize, start + HEADER_LEN);
        }
        expected_start += frame.frame().len();
    }
}

#[test]
fn zero_length_messages_are_frames() {
    let mut buf = BytesMut::from(&[0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0][..]);
    let mut decoder = FrameDecoder::new();
    let frames = decode_all(&mut decoder, &mut buf).unwrap();
    assert_eq!(frames.len(), 2);
    for frame in &frames {
        assert!(frame.message().is_empty());
        assert_eq!(&frame.frame()[..], &[0, 0, 0, 0, 0]);
    }
    assert_eq!(decoder.frames_decoded(), 2);
    assert_eq!(decoder.bytes_consumed(), 10);
    assert!(buf.is_empty());
    assert!(decoder.decode_eof(&mut buf).unwrap().is_none());
}

#[test]
fn into_frame_gives_the_bytes_as_they_arrived() {
    let mut buf = BytesMut::from(&naive_frame(b"abc")[..]);
    let frame = FrameDecoder::new().decode(&mut buf).unwrap().unwrap();
    assert_eq!(&frame.clone().into_frame()[..], &naive_frame(b"abc")[..]);
    assert_eq!(frame.into_frame(), Bytes::from(naive_frame(b"abc")));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(256)))]

    #[test]
    fn any_split_of_a_large_stream_gives_the_same_frames(
        messages in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..600), 0..60),
        pieces in prop::collection::vec(1usize..400, 1..100),
    ) {
        let stream = naive_stream(&messages);
        let mut cuts = Vec::new();
        let mut at = 0;
        for piece in pieces.iter().cycle() {
            at += piece;
            if at >= stream.len() {
                break;
            }
            cuts.push(at);
        }
        let frames = decode_in_pieces(FrameDecoder::new(), &stream, &cuts).unwrap();
        prop_assert_eq!(frames.len(), messages.len());
        for (frame, message) in frames.iter().zip(&messages) {
            prop_assert_eq!(frame.message(), &message[..]);
            prop_assert_eq!(&frame.frame()[..], &naive_frame(message)[..]);
        }
    }

    #[test]
    fn the_decoder_never_panics_on_arbitrary_bytes(
        stream in prop::collection::vec(any::<u8>(), 0..200),
        piece in 1usize..20,
    ) {
        let cuts: Vec<usize> = (piece..stream.len()).step_by(piece).collect();
        let _ = decode_in_pieces(FrameDecoder::with_max_message(64), &stream, &cuts);
    }
}

// ---------------------------------------------------------------------------
// Errors, each with its exact text
// ---------------------------------------------------------------------------

#[test]
fn a_compressed_frame_is_refused() {
    let mut buf = BytesMut::from(&[1u8, 0, 0, 0, 2, b'{', b'}'][..]);
    let err = FrameDecoder::new().decode(&mut buf).unwrap_err();
    assert!(matches!(
        err,
        FrameError::Compressed {
            index: 0,
            offset: 0
        }
    ));
    assert_eq!(
        err.to_string(),
        "compressed frame: no message encoding was negotiated (frame 0 at byte 0)"
    );
}

#[test]
fn errors_say_which_frame_and_where() {
    let mut stream = naive_stream(&[&b"abc"[..], b""]);
    stream.extend_from_slice(&[1, 0, 0, 0, 0]);
    let mut buf = BytesMut::from(&stream[..]);
    let mut decoder = FrameDecoder::new();
    let err = decode_all(&mut decoder, &mut buf).unwrap_err();
    assert_eq!(
        err.to_string(),
        "compressed frame: no message encoding was negotiated (frame 2 at byte 13)"
    );
    assert_eq!(decoder.frames_decoded(), 2);
    assert_eq!(decoder.bytes_consumed(), 13);
}

#[test]
fn a_bad_flag_is_refused_as_soon_as_it_arrives() {
    let mut buf = BytesMut::from(&[7u8][..]);
    let err = FrameDecoder::new().decode(&mut buf).unwrap_err();
    assert!(matches!(err, FrameError::BadFlag { flag: 7, .. }));
    assert_eq!(
        err.to_string(),
        "frame flag 0x07 is neither 0 nor 1 (frame 0 at byte 0)"
    );
    let mut buf = BytesMut::from(&[0xffu8, 0, 0, 0, 0][..]);
    let err = FrameDecoder::new().decode(&mut buf).unwrap_err();
    assert_eq!(
        err.to_string(),
        "frame flag 0xff is neither 0 nor 1 (frame 0 at byte 0)"
    );
}

#[test]
fn an_error_leaves_the_bad_frame_in_place_and_repeats() {
    let mut buf = BytesMut::from(&[2u8, 0, 0, 0, 0][..]);
    let mut decoder = FrameDecoder::new();
    let first = decoder.decode(&mut buf).unwrap_err().to_string();
    let second = decoder.decode(&mut buf).unwrap_err().to_string();
    assert_eq!(first, second);
    assert_eq!(buf.len(), 5);
}

#[test]
fn a_message_over_the_default_limit_is_refused() {
    let mut buf = BytesMut::new();
    buf.extend_from_slice(&[0]);
    buf.extend_from_slice(&5_000_000u32.to_be_bytes());
    let err = FrameDecoder::new().decode(&mut buf).unwrap_err();
    assert!(matches!(
        err,
        FrameError::TooLarge {
            len: 5_000_000,
            max: DEFAULT_MAX_MESSAGE,
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "message of 5000000 bytes is over the 4194304-byte limit (frame 0 at byte 0)"
    );
}

#[test]
fn a_message_at_the_limit_is_accepted_and_one_byte_over_is_refused() {
    let limit = 1000;
    let at_limit = vec![b'a'; limit];
    let mut buf = BytesMut::from(&naive_frame(&at_limit)[..]);
    let frame = FrameDecoder::with_max_message(limit)
        .decode(&mut buf)
        .unwrap()
        .unwrap();
    assert_eq!(frame.message(), &at_limit[..]);

    let over = vec![b'a'; limit + 1];
    let mut buf = BytesMut::from(&naive_frame(&over)[..]);
    let err = FrameDecoder::with_max_message(limit)
        .decode(&mut buf)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "message of 1001 bytes is over the 1000-byte limit (frame 0 at byte 0)"
    );
}

#[test]
fn the_default_limit_itself_is_accepted() {
    let at_limit = vec![b'x'; DEFAULT_MAX_MESSAGE];
    let mut buf = BytesMut::from(&naive_frame(&at_limit)[..]);
    let frame = FrameDecoder::new().decode(&mut buf).unwrap().unwrap();
    assert_eq!(frame.message().len(), DEFAULT_MAX_MESSAGE);
}

#[test]
fn a_huge_declared_length_commits_only_a_bounded_amount_of_memory() {
    let mut decoder = FrameDecoder::with_max_message(usize::MAX);
    let mut buf = BytesMut::new();
    buf.extend_from_slice(&[0, 0xff, 0xff, 0xff, 0xf0]);
    assert!(decoder.decode(&mut buf).unwrap().is_none());
    // `reserve` may round up (a Vec doubles), so allow a factor of two.
    let bound = |arrived: usize| 2 * (arrived + MAX_RESERVE_AHEAD);
    assert!(
        buf.capacity() <= bound(buf.len()),
        "capacity {} after only the header arrived",
        buf.capacity()
    );
    // Keep trickling in bytes: the buffer grows with what arrived, not with
    // what was announced.
    for _ in 0..200 {
        buf.extend_from_slice(&[b'a'; 1000]);
        assert!(decoder.decode(&mut buf).unwrap().is_none());
        assert!(
            buf.capacity() <= bound(buf.len()),
            "capacity {} with {} bytes arrived",
            buf.capacity(),
            buf.len()
        );
    }
    let err = decoder.decode_eof(&mut buf).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stream ended inside a frame: 200000 of 4294967280 message bytes arrived (frame 0 at byte 0)"
    );
}

#[test]
fn a_huge_declared_length_over_the_limit_is_refused_before_allocating() {
    let mut buf = BytesMut::from(&[0u8, 0xff, 0xff, 0xff, 0xf0][..]);
    let capacity = buf.capacity();
    let err = FrameDecoder::new().decode(&mut buf).unwrap_err();
    assert_eq!(
        err.to_string(),
        "message of 4294967280 bytes is over the 4194304-byte limit (frame 0 at byte 0)"
    );
    assert_eq!(buf.capacity(), capacity);
}

#[test]
fn a_stream_ending_inside_a_header_is_truncated() {
    let mut stream = naive_stream(&[&b"abc"[..]]);
    stream.extend_from_slice(&[0, 0]);
    let err = decode_in_pieces(FrameDecoder::new(), &stream, &[]).unwrap_err();
    assert!(matches!(
        err,
        FrameError::Truncated {
            part: FramePart::Header,
            received: 2,
            expected: 5,
            index: 1,
            offset: 8,
        }
    ));
    assert_eq!(
        err.to_string(),
        "stream ended inside a frame: 2 of 5 header bytes arrived (frame 1 at byte 8)"
    );
}

#[test]
fn a_stream_ending_inside_a_message_is_truncated() {
    let stream = naive_frame(b"0123456789");
    let err = decode_in_pieces(FrameDecoder::new(), &stream[..8], &[4]).unwrap_err();
    assert!(matches!(
        err,
        FrameError::Truncated {
            part: FramePart::Message,
            received: 3,
            expected: 10,
            index: 0,
            offset: 0,
        }
    ));
    assert_eq!(
        err.to_string(),
        "stream ended inside a frame: 3 of 10 message bytes arrived (frame 0 at byte 0)"
    );
}

#[test]
fn a_stream_ending_right_after_a_header_is_truncated() {
    let stream = naive_frame(b"0123456789");
    let err = decode_in_pieces(FrameDecoder::new(), &stream[..HEADER_LEN], &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "stream ended inside a frame: 0 of 10 message bytes arrived (frame 0 at byte 0)"
    );
}

#[test]
fn a_clean_end_is_not_an_error() {
    let mut decoder = FrameDecoder::new();
    let mut buf = BytesMut::new();
    assert!(decoder.decode_eof(&mut buf).unwrap().is_none());
    let mut buf = BytesMut::from(&naive_frame(b"last")[..]);
    let frame = decoder.decode_eof(&mut buf).unwrap().unwrap();
    assert_eq!(frame.message(), b"last");
    assert!(decoder.decode_eof(&mut buf).unwrap().is_none());
}

#[test]
fn io_errors_convert_and_keep_their_text() {
    let err = FrameError::from(io::Error::new(
        io::ErrorKind::ConnectionReset,
        "peer went away",
    ));
    assert!(matches!(err, FrameError::Io(_)));
    assert_eq!(err.to_string(), "i/o error: peer went away");
}

#[test]
fn frame_errors_are_std_errors() {
    fn is_error<E: std::error::Error + Send + Sync + 'static>(_: &E) {}
    is_error(&FrameError::Compressed {
        index: 0,
        offset: 0,
    });
}

#[test]
fn header_encodes_the_length_big_endian() {
    assert_eq!(header(0).unwrap(), [0, 0, 0, 0, 0]);
    assert_eq!(header(0x0102_0304).unwrap(), [0, 1, 2, 3, 4]);
    assert_eq!(
        header(u32::MAX as usize).unwrap(),
        [0, 0xff, 0xff, 0xff, 0xff]
    );
}

#[cfg(target_pointer_width = "64")]
#[test]
fn header_refuses_a_length_the_field_cannot_hold() {
    let err = header(u32::MAX as usize + 1).unwrap_err();
    assert!(matches!(
        err,
        FrameError::Unframeable { len: 4_294_967_296 }
    ));
    assert_eq!(
        err.to_string(),
        "message of 4294967296 bytes cannot be framed: the length field holds at most 4294967295 bytes"
    );
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// A writer that takes at most `per_call` bytes per call, answers `Pending`
/// every other call, and records how it was called.
struct TrickleWriter {
    out: Vec<u8>,
    per_call: usize,
    pending_next: bool,
    vectored_calls: usize,
    plain_calls: usize,
    most_slices: usize,
    multi_slice_calls: usize,
}

impl TrickleWriter {
    fn new(per_call: usize) -> TrickleWriter {
        TrickleWriter {
            out: Vec::new(),
            per_call,
            pending_next: false,
            vectored_calls: 0,
            plain_calls: 0,
            most_slices: 0,
            multi_slice_calls: 0,
        }
    }

    /// Answers `Pending` (and asks to be polled again) every other call.
    fn stall(&mut self, cx: &mut Context<'_>) -> bool {
        self.pending_next = !self.pending_next;
        if self.pending_next {
            cx.waker().wake_by_ref();
        }
        self.pending_next
    }
}

impl AsyncWrite for TrickleWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.stall(cx) {
            return Poll::Pending;
        }
        self.plain_calls += 1;
        let n = buf.len().min(self.per_call);
        self.out.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.stall(cx) {
            return Poll::Pending;
        }
        self.vectored_calls += 1;
        self.most_slices = self.most_slices.max(bufs.len());
        let mut budget = self.per_call;
        let mut taken = 0;
        let mut slices_touched = 0;
        for buf in bufs {
            if budget == 0 {
                break;
            }
            let n = buf.len().min(budget);
            self.out.extend_from_slice(&buf[..n]);
            budget -= n;
            taken += n;
            slices_touched += 1;
        }
        if slices_touched > 1 {
            self.multi_slice_calls += 1;
        }
        Poll::Ready(Ok(taken))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A broken writer: accepts nothing, or claims more than it was given.
struct BrokenWriter {
    claims: fn(usize) -> usize,
}

impl AsyncWrite for BrokenWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok((self.claims)(buf.len())))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let total = bufs.iter().map(|b| b.len()).sum();
        Poll::Ready(Ok((self.claims)(total)))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Many messages, some empty, of varied lengths.
fn many_messages(count: usize) -> Vec<Bytes> {
    (0..count)
        .map(|i| Bytes::from(vec![(i % 251) as u8; (i * 7) % 23]))
        .collect()
}

#[tokio::test]
async fn write_frames_survives_partial_writes_and_batches_vectored() {
    let messages = many_messages(200);
    let frames: Vec<Bytes> = messages
        .iter()
        .map(|m| Bytes::from(naive_frame(m)))
        .collect();
    for per_call in [1, 3, 7, 64, 10_000] {
        let mut w = TrickleWriter::new(per_call);
        write_frames(&mut w, &frames).await.unwrap();
        assert_eq!(w.out, naive_stream(&messages), "{per_call} bytes per call");
        assert_eq!(w.plain_calls, 0, "vectored writes were not used");
        assert!(w.vectored_calls > 0);
        assert!(w.most_slices <= 64, "{} slices in one call", w.most_slices);
        if per_call >= 7 {
            assert!(w.multi_slice_calls > 0, "no call wrote across slices");
        }
    }
}

#[tokio::test]
async fn write_frames_forwards_decoded_frames_byte_for_byte() {
    let messages = many_messages(100);
    let stream = naive_stream(&messages);
    let mut buf = BytesMut::from(&stream[..]);
    let frames = decode_all(&mut FrameDecoder::new(), &mut buf).unwrap();
    let kept: Vec<&Bytes> = frames.iter().map(Frame::frame).collect();
    let mut w = TrickleWriter::new(5);
    write_frames(&mut w, &kept).await.unwrap();
    assert_eq!(w.out, stream);
}

#[tokio::test]
async fn write_messages_frames_without_copying_and_survives_partial_writes() {
    let messages = many_messages(200);
    for per_call in [1, 2, 5, 6, 64, 10_000] {
        let mut w = TrickleWriter::new(per_call);
        write_messages(&mut w, &messages).await.unwrap();
        assert_eq!(w.out, naive_stream(&messages), "{per_call} bytes per call");
        assert_eq!(w.plain_calls, 0, "vectored writes were not used");
        assert!(w.most_slices <= 64, "{} slices in one call", w.most_slices);
        if per_call >= 6 {
            assert!(w.multi_slice_calls > 0, "no call wrote across slices");
        }
    }
}

#[tokio::test]
async fn written_messages_decode_back() {
    let messages = many_messages(77);
    let mut out = Vec::new();
    write_messages(&mut out, &messages).await.unwrap();
    let mut buf = BytesMut::from(&out[..]);
    let frames = decode_all(&mut FrameDecoder::new(), &mut buf).unwrap();
    let decoded: Vec<&[u8]> = frames.iter().map(Frame::message).collect();
    assert_eq!(decoded, messages.iter().map(|m| &m[..]).collect::<Vec<_>>());
}

#[tokio::test]
async fn writing_nothing_writes_nothing() {
    let mut w = TrickleWriter::new(1);
    write_frames::<_, Bytes>(&mut w, &[]).await.unwrap();
    write_messages::<_, Bytes>(&mut w, &[]).await.unwrap();
    write_frames(&mut w, &[Bytes::new()]).await.unwrap();
    assert!(w.out.is_empty());
    assert_eq!(w.vectored_calls + w.plain_calls, 0);
}

#[tokio::test]
async fn a_writer_that_accepts_nothing_is_write_zero() {
    let mut w = BrokenWriter { claims: |_| 0 };
    let err = write_frames(&mut w, &[Bytes::from_static(b"abc")])
        .await
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    let err = write_messages(&mut w, &[Bytes::from_static(b"abc")])
        .await
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::WriteZero);
}

#[tokio::test]
async fn a_writer_that_claims_too_much_is_an_error_not_a_panic() {
    let mut w = BrokenWriter {
        claims: |given| given + 1,
    };
    let err = write_frames(&mut w, &[Bytes::from_static(b"abc")])
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "writer reported 4 bytes written of 3 given"
    );
}
