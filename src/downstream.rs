//! The downstream: receives a stream of frames and verifies it as it
//! arrives, in constant memory. Every frame goes into a running [`Digest`]
//! (how many frames, how many bytes, and an XXH3-128 hash of their bytes in
//! order); the standalone role also decodes each message and asks the policy
//! ([`Verify::Decode`]), while the loopback demo compares the digest with the
//! one the upstream's deterministic stream should give ([`expected`]),
//! computed off the timed path.

use std::time::{Duration, Instant};

use tokio::io::AsyncRead;
use tokio_util::sync::CancellationToken;
use xxhash_rust::xxh3::Xxh3;

use crate::frames::{BatchReader, FrameError, HEADER_LEN};
use crate::judge::Judge;
use crate::model::Issue;
use crate::policy::Policy;
use crate::pool::Pool;
use crate::redact::{self, Redactor};

/// A running digest of a stream of frames. Adding a frame costs its hash
/// (XXH3, tens of GB/s); nothing is kept but the state.
#[derive(Clone)]
pub struct Digest {
    frames: u64,
    bytes: u64,
    hash: Xxh3,
}

impl Default for Digest {
    fn default() -> Digest {
        Digest {
            frames: 0,
            bytes: 0,
            hash: Xxh3::new(),
        }
    }
}

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.finish().fmt(f)
    }
}

impl Digest {
    /// Adds one frame (header and message). O(its length).
    #[inline]
    pub fn add(&mut self, frame: &[u8]) {
        self.frames += 1;
        self.bytes += frame.len() as u64;
        self.hash.update(frame);
    }

    /// What the frames added so far come to.
    pub fn finish(&self) -> StreamDigest {
        StreamDigest {
            frames: self.frames,
            bytes: self.bytes,
            hash: self.hash.digest128(),
        }
    }
}

/// The digest of a whole stream: equal digests mean, but for a 2^-128
/// chance, the same frames in the same order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamDigest {
    /// Frames in the stream.
    pub frames: u64,
    /// Bytes of those frames, headers included.
    pub bytes: u64,
    /// XXH3-128 of the frames' bytes, one after another.
    pub hash: u128,
}

/// How the downstream checks each message as it arrives.
#[derive(Clone, Debug)]
pub enum Verify {
    /// Only the digest (the loopback demo, which knows what to expect).
    Digest,
    /// Also decode every message as an [`Issue`] and ask `Policy` whether it
    /// keeps it: a full decode per message, as a real consumer would.
    Decode(Policy),
}

/// The downstream's check of the messages it decoded: how many decode as
/// an [`Issue`], and how many of those the policy keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// Of the messages received, the ones that decode as an `Issue`, as the
    /// filter's full decode does ([`checked::from_slice`](crate::checked::from_slice):
    /// the values the issue ignores checked too, so a message strict mode
    /// calls malformed does not count).
    pub decoded: u64,
    /// Of those, the ones the policy keeps.
    pub kept: u64,
}

/// What the downstream received and what it made of it.
#[derive(Clone, Debug)]
pub struct Received {
    /// The digest of every frame received.
    pub digest: StreamDigest,
    /// With [`Verify::Decode`], the decode check; `None` otherwise.
    pub check: Option<Check>,
    /// When the receiving began.
    pub started: Instant,
    /// When the end of the stream was read (or the receiving stopped).
    pub ended: Instant,
    /// Whether a stop ended the receiving before the end of the stream.
    pub stopped: bool,
}

impl Received {
    /// Messages received.
    pub fn frames(&self) -> u64 {
        self.digest.frames
    }

    /// Bytes received, headers included.
    pub fn bytes(&self) -> u64 {
        self.digest.bytes
    }

    /// From the first read to the end of the stream.
    pub fn took(&self) -> Duration {
        self.ended.saturating_duration_since(self.started)
    }
}

/// Reads every frame from `r` until it ends or `stop` is cancelled, adding
/// each to the digest and verifying it as `verify` says. Memory: one read
/// buffer, whatever the stream's length.
///
/// # Errors
///
/// The [`FrameError`] that stopped the stream.
pub async fn receive<R: AsyncRead + Unpin>(
    r: R,
    verify: &Verify,
    stop: &CancellationToken,
) -> Result<Received, FrameError> {
    let started = Instant::now();
    let mut reader = BatchReader::new(r);
    let mut digest = Digest::default();
    let mut check = Check::default();
    let stopped = loop {
        let batch = tokio::select! {
            biased;
            () = stop.cancelled() => break true,
            batch = reader.next_batch() => batch?,
        };
        let Some(batch) = batch else { break false };
        for frame in &batch {
            digest.add(frame.frame());
            if let Verify::Decode(policy) = verify {
                if let Ok(issue) = crate::checked::from_slice::<Issue>(frame.message()) {
                    check.decoded += 1;
                    check.kept += u64::from(policy.keep(&issue.detail));
                }
            }
        }
    };
    Ok(Received {
        digest: digest.finish(),
        check: matches!(verify, Verify::Decode(_)).then_some(check),
        started,
        ended: Instant::now(),
        stopped,
    })
}

/// The digest a downstream should see behind a filter reading with
/// `reader`, for a stream of `count` frames of `pool`: every frame for
/// forward-all, otherwise the frames a full decode and `policy` keep; with
/// `redact`, each kept frame as the [`Redactor`] rewrites it, after
/// checking that the rewrite decodes as the issue with its email redacted
/// ([`redact::verify`]). Costs one decode per distinct message (three with
/// `redact`) and a hash of the kept frames.
///
/// # Errors
///
/// Which message's redaction does not decode as the redacted issue.
pub fn expected(
    pool: &Pool,
    count: u64,
    reader: Judge,
    policy: &Policy,
    redact: bool,
) -> Result<StreamDigest, String> {
    let mut redactor = Redactor::default();
    let mut frames: Vec<Option<Vec<u8>>> = Vec::with_capacity(pool.distinct());
    for i in 0..pool.distinct() as u64 {
        let message = pool.message(i);
        let keep = match reader {
            Judge::ForwardAll => true,
            Judge::Optics
            | Judge::OpticsTrusting
            | Judge::OpticsValidatingKept
            | Judge::Decode
            | Judge::Oracle => serde_json::from_slice::<Issue>(&message)
                .is_ok_and(|issue| policy.keep(&issue.detail)),
        };
        let frame = match (keep, redact) {
            (false, _) => None,
            (true, false) => Some(pool.frame(i).to_vec()),
            (true, true) => {
                let mut frame = Vec::new();
                if !redactor.redact_into(&message, &mut frame)
                    || !redact::verify(&message, &frame[HEADER_LEN..])
                {
                    return Err(format!(
                        "message {i}: its redaction does not decode as the issue with its \
                         reporter's email redacted"
                    ));
                }
                Some(frame)
            }
        };
        frames.push(frame);
    }
    let mut digest = Digest::default();
    for i in 0..count {
        if let Some(frame) = &frames[(i % frames.len() as u64) as usize] {
            digest.add(frame);
        }
    }
    Ok(digest.finish())
}

#[cfg(test)]
mod tests {
    use bytes::BytesMut;

    use super::*;
    use crate::frames::encode;
    use crate::generate::{Gen, Generate};

    #[tokio::test]
    async fn the_check_counts_only_what_the_full_decode_takes() {
        let issue = Issue::generate(&mut Gen::new(3, 7)).to_json();
        let text = String::from_utf8(issue).unwrap();
        // An unknown field holding what serde_json's typed decode skips
        // unchecked and the filter's full decode refuses.
        let with = |extra: &str| format!("{{\"extra\":{extra},{}", &text[1..]);
        let mut wire = BytesMut::new();
        for message in [
            text.clone(),
            with("1e400"),
            with(r#""\ud800""#),
            with(&format!("{}{}", "[".repeat(200), "]".repeat(200))),
        ] {
            assert!(serde_json::from_str::<Issue>(&message).is_ok());
            encode(message.as_bytes(), &mut wire).unwrap();
        }
        let verify = Verify::Decode(Policy::default());
        let received = receive(&wire[..], &verify, &CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(received.frames(), 4);
        assert_eq!(received.check.unwrap().decoded, 1);
    }
}
