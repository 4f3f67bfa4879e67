//! The frame decoder on any bytes in any pieces: no panic, and the frames it
//! hands out are the stream's own bytes, in order.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::Decoder;
use triage::frames::FrameDecoder;

fuzz_target!(|data: &[u8]| {
    let Some((&piece, stream)) = data.split_first() else {
        return;
    };
    let piece = usize::from(piece).max(1);
    let mut decoder = FrameDecoder::with_max_message(1 << 16);
    let mut buffer = BytesMut::new();
    let mut out = Vec::new();
    'read: for chunk in stream.chunks(piece) {
        buffer.extend_from_slice(chunk);
        loop {
            match decoder.decode(&mut buffer) {
                Ok(Some(frame)) => out.extend_from_slice(frame.frame()),
                Ok(None) => break,
                Err(_) => break 'read,
            }
        }
    }
    assert_eq!(&stream[..out.len()], &out[..]);
});
