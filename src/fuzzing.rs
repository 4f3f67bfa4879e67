//! The fuzz targets' bodies, here so that a stable test can replay every
//! committed corpus file through exactly what the fuzzer runs
//! (`tests/fuzz_corpus.rs`), and the targets in `fuzz/` stay one line each.
//! Each function takes any bytes, must not panic on them, and asserts its
//! oracle.

use bytes::{Bytes, BytesMut};
use optics_core::json::scan::{self, Lookup};
use serde_json::{Map, Value};
use tokio_util::codec::Decoder;

use crate::frames::FrameDecoder;
use crate::judge;
use crate::model::Issue;
use crate::policy::Policy;
use crate::proxy::split::{ChunkSplitter, Cut};

/// The scanner on any bytes: no panic, and wherever serde_json reads the
/// bytes as an object, every key is found with the value serde_json keeps.
pub fn scan(data: &[u8]) {
    let strict = scan::validate(data).is_ok();
    let _ = scan::skip_value(data, 0);
    let _ = scan::array_element(data, 1);
    let _ = scan::first_member(data);
    let _ = scan::object_field(data, &["a"]);
    if let Ok(map) = serde_json::from_slice::<Map<String, Value>>(data) {
        assert!(strict, "serde_json accepts what strict mode rejects");
        for (key, value) in &map {
            match scan::object_last(data, key) {
                Lookup::Found(bytes) => {
                    let found: Value = serde_json::from_slice(bytes).expect("a found value parses");
                    assert_eq!(&found, value);
                }
                other => panic!("{key:?}: {other:?}"),
            }
            // The first match may differ from serde_json's last for duplicate
            // keys; it must still be a value of that key.
            assert!(matches!(scan::object_field(data, &[key]), Lookup::Found(_)));
        }
    }
}

/// The frame decoder on any bytes in any pieces (the first byte sets the
/// piece size): no panic, and the frames it hands out are the stream's own
/// bytes, in order.
pub fn frames(data: &[u8]) {
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
}

/// Judging any bytes as an issue, trusting: no panic, and wherever the full
/// decode reads the bytes as an `Issue` (serde_json, every value checked as
/// JSON: [`crate::checked`]), the optics judge it exactly as the decoded
/// issue. (A trusting read does not check what it skips, so bytes that are
/// not JSON only where serde_json's typed decode skips them unchecked are
/// outside its promise.)
pub fn judge(data: &[u8]) {
    let policy = Policy::default();
    let by_optics = judge::by_optics_trusting(&policy, data);
    if crate::checked::from_slice::<Issue>(data).is_ok() {
        assert_eq!(by_optics, judge::by_decoding(&policy, data));
    }
}

/// Judging any bytes in strict mode: no panic; a message serde_json rejects
/// as JSON is never kept, nor one whose `detail` key is given twice; and
/// wherever serde_json's typed decode reads the bytes as an `Issue` (even
/// with values it skips unchecked), strict optics judge it exactly as the
/// full decode does.
pub fn strict(data: &[u8]) {
    let policy = Policy::default();
    let verdict = judge::by_optics(&policy, data);
    if verdict.keep {
        assert!(
            serde_json::from_slice::<Value>(data).is_ok(),
            "strict optics kept what is not JSON"
        );
        if let Ok(Value::Object(_)) = serde_json::from_slice::<Value>(data) {
            let details = serde_json::Deserializer::from_slice(data)
                .into_iter::<DetailCount>()
                .next();
            if let Some(Ok(DetailCount(n))) = details {
                assert!(n <= 1, "strict optics kept a message with `detail` twice");
            }
        }
    }
    if serde_json::from_slice::<Issue>(data).is_ok() {
        assert_eq!(verdict, judge::by_decoding(&policy, data));
    }
}

/// The proxy's chunk splitter on any bytes cut into any chunks (the first
/// byte sets the chunk size): no panic, and the same frames and the same
/// error as the frame decoder (the oracle) on the whole stream.
pub fn proxy_frames(data: &[u8]) {
    const MAX: usize = 1 << 12;

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
}

/// How many times the top-level object gives the key `detail`.
struct DetailCount(usize);

impl<'de> serde::Deserialize<'de> for DetailCount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Count;
        impl<'de> serde::de::Visitor<'de> for Count {
            type Value = DetailCount;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<DetailCount, A::Error> {
                let mut n = 0;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    n += usize::from(key == "detail");
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                Ok(DetailCount(n))
            }
        }
        d.deserialize_map(Count)
    }
}
