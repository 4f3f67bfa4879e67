//! The proxy's chunk splitter against the frame decoder, the oracle: the same
//! bytes, cut into chunks anywhere, give the same frames and the same error.

#[path = "../optics-core/tests/support/scale.rs"]
mod scale;

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use tokio_util::codec::Decoder;
use triage::frames::FrameDecoder;
use triage::proxy::split::{ChunkSplitter, Cut};

// Counts what each thread allocates: the splitter's buffer for a
// straddling frame is held to the frame.
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

/// Frames (whole, header included) and the final error's text, by the oracle.
fn by_decoder(stream: &[u8], max: usize) -> (Vec<Bytes>, Option<String>) {
    let mut decoder = FrameDecoder::with_max_message(max);
    let mut buf = BytesMut::from(stream);
    let mut frames = Vec::new();
    loop {
        match decoder.decode_eof(&mut buf) {
            Ok(Some(frame)) => frames.push(frame.into_frame()),
            Ok(None) => return (frames, None),
            Err(err) => return (frames, Some(err.to_string())),
        }
    }
}

/// The same through the splitter, `stream` cut at `cuts`.
fn by_splitter(stream: &[u8], cuts: &[usize], max: usize) -> (Vec<Bytes>, Option<String>) {
    cut_by(ChunkSplitter::with_max_message(max), stream, cuts)
}

/// The same through `split`.
fn cut_by(mut split: ChunkSplitter, stream: &[u8], cuts: &[usize]) -> (Vec<Bytes>, Option<String>) {
    let stream = Bytes::copy_from_slice(stream);
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    bounds.push(0);
    bounds.push(stream.len());
    bounds.sort_unstable();
    bounds.dedup();
    let mut frames = Vec::new();
    for pair in bounds.windows(2) {
        split.push(stream.slice(pair[0]..pair[1]));
        loop {
            match split.next_cut() {
                Ok(Some(Cut::Chunk(range))) => frames.push(split.chunk().slice(range)),
                Ok(Some(Cut::Assembled(frame))) => frames.push(frame),
                Ok(None) => break,
                Err(err) => return (frames, Some(err.to_string())),
            }
        }
    }
    match split.finish() {
        Ok(()) => (frames, None),
        Err(err) => (frames, Some(err.to_string())),
    }
}

/// A stream of frames with plausible headers, sometimes a bad one.
fn streams() -> impl Strategy<Value = Vec<u8>> {
    let frame = (
        prop_oneof![8 => Just(0u8), 1 => Just(1u8), 1 => any::<u8>()],
        prop::collection::vec(any::<u8>(), 0..40),
        prop_oneof![9 => Just(None), 1 => any::<u32>().prop_map(Some)],
    )
        .prop_map(|(flag, message, declared)| {
            let len = declared.unwrap_or(message.len() as u32);
            let mut frame = vec![flag];
            frame.extend_from_slice(&len.to_be_bytes());
            frame.extend_from_slice(&message);
            frame
        });
    (prop::collection::vec(frame, 0..8), 0usize..6).prop_map(|(frames, cut_end)| {
        let mut stream: Vec<u8> = frames.concat();
        // Sometimes end inside the last frame.
        stream.truncate(stream.len().saturating_sub(cut_end % 3 * cut_end));
        stream
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(2000)))]

    #[test]
    fn the_splitter_cuts_what_the_decoder_cuts(
        stream in streams(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        max in prop_oneof![Just(4 * 1024 * 1024), 0usize..48],
    ) {
        prop_assert_eq!(by_splitter(&stream, &cuts, max), by_decoder(&stream, max));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(2000)))]

    /// A splitter that accepts compressed frames (the proxy's, where it can
    /// inflate them) cuts them as the decoder cuts the same stream with
    /// each header's flag 1 written 0: the same frames, flags aside, and
    /// the same error for anything else.
    #[test]
    fn accepting_compressed_frames_cuts_them_as_the_others(
        stream in streams(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        max in prop_oneof![Just(4 * 1024 * 1024), 0usize..48],
    ) {
        let mut plain = stream.clone();
        let mut at = 0;
        // The flag is read as soon as its byte arrives, a header cut short
        // included.
        while at < plain.len() && plain[at] <= 1 {
            plain[at] = 0;
            if at + 5 > plain.len() {
                break;
            }
            let len = u32::from_be_bytes([plain[at + 1], plain[at + 2], plain[at + 3], plain[at + 4]]);
            at = at.saturating_add(5).saturating_add(len as usize);
        }
        let split = ChunkSplitter::with_max_message(max).accepting_compressed(true);
        let (frames, error) = cut_by(split, &stream, &cuts);
        let flagless: Vec<Bytes> = frames
            .iter()
            .map(|frame| {
                let mut frame = frame.to_vec();
                prop_assert!(frame[0] <= 1);
                frame[0] = 0;
                Ok(Bytes::from(frame))
            })
            .collect::<Result<_, TestCaseError>>()?;
        prop_assert_eq!((flagless, error), by_decoder(&plain, max));
    }
}

#[test]
fn every_cut_of_a_real_stream_gives_the_same_frames() {
    let pool = triage::pool::Pool::generate(7, 3, 4).unwrap();
    let mut stream = Vec::new();
    for i in 0..4 {
        stream.extend_from_slice(&pool.frame(i));
    }
    let want = by_decoder(&stream, 4 * 1024 * 1024);
    assert_eq!(want.0.len(), 4);
    for a in 0..=stream.len() {
        for b in [a, a + 1, a + 5, a + 6, a + 700] {
            assert_eq!(
                by_splitter(&stream, &[a, b], 4 * 1024 * 1024),
                want,
                "cut at {a}, {b}"
            );
        }
    }
}

#[test]
fn frames_inside_a_chunk_are_views_of_it() {
    let chunk = Bytes::from_static(&[0, 0, 0, 0, 1, b'a', 0, 0, 0, 0, 1, b'b']);
    let mut split = ChunkSplitter::new();
    split.push(chunk.clone());
    assert_eq!(split.next_cut().unwrap(), Some(Cut::Chunk(0..6)));
    assert_eq!(split.next_cut().unwrap(), Some(Cut::Chunk(6..12)));
    assert_eq!(split.next_cut().unwrap(), None);
    assert_eq!(split.buffered(), 0);
}

/// Frames around the sizes where the splitter's buffer changes how it
/// grows (64 KiB, whole at once; past it, doubling, then the whole frame),
/// sometimes a bad flag or a length that promises more than arrives.
fn large_streams() -> impl Strategy<Value = Vec<u8>> {
    let len = prop_oneof![
        0usize..40,
        65_520usize..65_545,
        131_060usize..131_085,
        0usize..300_000,
    ];
    let frame = (
        prop_oneof![20 => Just(0u8), 1 => any::<u8>()],
        len,
        any::<u8>(),
        prop_oneof![19 => Just(0u32), 1 => 1u32..100_000],
    )
        .prop_map(|(flag, len, seed, more)| {
            let mut frame = vec![flag];
            frame.extend_from_slice(&(len as u32 + more).to_be_bytes());
            frame.extend((0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)));
            frame
        });
    (prop::collection::vec(frame, 1..6), 0usize..7).prop_map(|(frames, cut_end)| {
        let mut stream: Vec<u8> = frames.concat();
        stream.truncate(stream.len().saturating_sub(cut_end % 4 * cut_end));
        stream
    })
}

/// Cuts of `stream`: `picked` (any places), and places inside and around
/// each frame's header, as the decoder finds the frames.
fn cuts_of(stream: &[u8], picked: &[usize], inside: &[u8]) -> Vec<usize> {
    let mut cuts = picked.to_vec();
    let mut at = 0usize;
    let mut i = 0;
    while at + HEADER <= stream.len() {
        let len = u32::from_be_bytes([
            stream[at + 1],
            stream[at + 2],
            stream[at + 3],
            stream[at + 4],
        ]);
        cuts.push(at + usize::from(inside.get(i).copied().unwrap_or(0) % 7));
        at = at.saturating_add(HEADER).saturating_add(len as usize);
        i += 1;
    }
    cuts
}

const HEADER: usize = 5;

/// Through the splitter as `cut_by` does, and for each assembled frame,
/// what this thread allocated in the calls that assembled it.
fn assembled_costs(max: usize, stream: &[u8], cuts: &[usize]) -> Vec<(usize, u64)> {
    let stream = Bytes::copy_from_slice(stream);
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    bounds.push(0);
    bounds.push(stream.len());
    bounds.sort_unstable();
    bounds.dedup();
    let mut split = ChunkSplitter::with_max_message(max);
    let mut costs = Vec::new();
    let mut allocated = 0;
    for pair in bounds.windows(2) {
        split.push(stream.slice(pair[0]..pair[1]));
        loop {
            let (cut, counts) = alloc_counter::measure_thread(|| split.next_cut());
            allocated += counts.bytes;
            match cut {
                Ok(Some(Cut::Assembled(frame))) => {
                    costs.push((frame.len(), allocated));
                    allocated = 0;
                }
                Ok(Some(Cut::Chunk(_))) => {}
                Ok(None) => break,
                Err(_) => return costs,
            }
        }
    }
    costs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(150)))]

    /// Frames of 64 KiB and around it, and up to 300 KB, cut anywhere and
    /// inside their headers: the frames and the error the decoder gives,
    /// and each assembled frame's buffer no larger than the frame (a short
    /// header's first bytes take 8).
    #[test]
    fn large_frames_cut_anywhere_are_the_decoders_and_cost_no_more_than_themselves(
        stream in large_streams(),
        picked in prop::collection::vec(any::<usize>(), 0..12),
        inside in prop::collection::vec(any::<u8>(), 0..6),
        max in prop_oneof![Just(4 * 1024 * 1024), Just(65_531usize), Just(131_071usize)],
    ) {
        let cuts = cuts_of(&stream, &picked, &inside);
        prop_assert_eq!(by_splitter(&stream, &cuts, max), by_decoder(&stream, max));
        for (len, allocated) in assembled_costs(max, &stream, &cuts) {
            prop_assert!(
                allocated <= len.max(8) as u64 + 64,
                "{} bytes allocated to assemble a {} byte frame", allocated, len
            );
        }
    }
}

/// What the first bytes of a straddling frame cost: a frame of at most
/// 64 KiB gets its whole buffer at once; a longer one only what arrived,
/// whatever its header promises.
#[test]
fn a_header_alone_reserves_its_frame_only_up_to_64_kib() {
    for (declared, want) in [(65_531u32, 65_536u64), (65_532, 16), (4 << 20, 16)] {
        let mut head = vec![0u8];
        head.extend_from_slice(&declared.to_be_bytes());
        head.extend_from_slice(&[1; 11]);
        let mut split = ChunkSplitter::new();
        split.push(Bytes::from(head));
        let (cut, counts) = alloc_counter::measure_thread(|| split.next_cut());
        assert_eq!(cut.unwrap(), None);
        assert_eq!(counts.bytes, want, "a header declaring {declared} bytes");
    }
}

/// After a large frame that straddled chunks, the splitter keeps none of
/// its buffer: the frame handed out owns it (the same bytes, freed when
/// the frame is dropped), and the small frames that straddle after it get
/// buffers of their own size.
#[test]
fn a_large_straddling_frame_leaves_no_buffer_behind() {
    let mut stream = Vec::new();
    let large: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let mut frame = BytesMut::new();
    triage::frames::encode(&large, &mut frame).unwrap();
    stream.extend_from_slice(&frame);
    for i in 0..20u8 {
        let mut small = BytesMut::new();
        triage::frames::encode(&[i; 10], &mut small).unwrap();
        stream.extend_from_slice(&small);
    }
    let stream = Bytes::from(stream);
    let mut split = ChunkSplitter::new();
    // The large frame in 64 KiB chunks, then the small ones cut in two.
    let mut at = 0;
    let mut costs = Vec::new();
    let mut frames = Vec::new();
    let mut allocated = 0;
    while at < stream.len() {
        let step = if at < frame.len() { 64 * 1024 } else { 7 };
        let end = (at + step).min(stream.len());
        split.push(stream.slice(at..end));
        at = end;
        loop {
            let (cut, counts) = alloc_counter::measure_thread(|| split.next_cut());
            allocated += counts.bytes;
            match cut.unwrap() {
                Some(Cut::Assembled(frame)) => {
                    costs.push(std::mem::take(&mut allocated));
                    frames.push(frame);
                }
                Some(Cut::Chunk(range)) => frames.push(split.chunk().slice(range)),
                None => break,
            }
        }
    }
    assert_eq!(split.buffered(), 0);
    assert!(split.finish().is_ok());
    assert_eq!(frames.len(), 21);
    assert_eq!(frames[0], frame);
    // The large frame's buffer grew to its size, no more.
    assert_eq!(costs[0], frame.len() as u64);
    assert_eq!(frames.concat(), stream);
    // Each small frame straddles two 7 byte chunks: its own 15 bytes,
    // in an 8 byte buffer grown to 15 (the growth counted), not a
    // reused large one.
    assert!(
        costs.iter().skip(1).all(|&bytes| bytes > 0 && bytes <= 16),
        "{costs:?}"
    );
}
