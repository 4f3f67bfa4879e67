//! The proxy's chunk splitter on any bytes cut into any chunks: no panic,
//! and the same frames and the same error as the frame decoder (the oracle)
//! on the whole stream.
#![no_main]

use bytes::{Bytes, BytesMut};
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::Decoder;
use triage::frames::FrameDecoder;
use triage::proxy::split::{ChunkSplitter, Cut};

const MAX: usize = 1 << 12;

fuzz_target!(|data: &[u8]| {
    let Some((&piece, stream)) = data.split_first() else {
        return;
    };
    let piece = usize::from(piece).max(1);

    let mut want = Vec::new();
    let mut decoder = FrameDecoder::with_max_message(MAX);
    let mut buffer = BytesMut::from(stream);
    let want_err = loop {
        match decoder.decode_eof(&mut buffer) {
            Ok(Some(frame)) => want.push(frame.into_frame()),
            Ok(None) => break None,
            Err(err) => break Some(err.to_string()),
        }
    };

    let mut got: Vec<Bytes> = Vec::new();
    let mut split = ChunkSplitter::with_max_message(MAX);
    let whole = Bytes::copy_from_slice(stream);
    let mut got_err = None;
    'chunks: for start in (0..whole.len()).step_by(piece) {
        split.push(whole.slice(start..(start + piece).min(whole.len())));
        loop {
            match split.next_cut() {
                Ok(Some(Cut::Chunk(range))) => got.push(split.chunk().slice(range)),
                Ok(Some(Cut::Assembled(frame))) => got.push(frame),
                Ok(None) => break,
                Err(err) => {
                    got_err = Some(err.to_string());
                    break 'chunks;
                }
            }
        }
    }
    if got_err.is_none() {
        got_err = split.finish().err().map(|err| err.to_string());
    }
    assert_eq!(got, want);
    assert_eq!(got_err, want_err);
});
