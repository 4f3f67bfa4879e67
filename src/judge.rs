//! The two readers the filter can judge a message with, behind one signature.

use optics_core::Json;

use crate::model::Issue;
use crate::policy::{Policy, Verdict};

/// How the filter reads a message to judge it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judge {
    /// Views the detail in place and reads the policy's leaves from its bytes:
    /// nothing decoded but the leaves, nothing copied, nothing allocated.
    Optics,
    /// Decodes the whole issue with serde_json, then judges its detail: the
    /// baseline.
    Decode,
    /// Keeps everything without reading it: what the sockets alone cost.
    ForwardAll,
}

impl Judge {
    /// The reader's name as the command line spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Judge::Optics => "optics",
            Judge::Decode => "decode",
            Judge::ForwardAll => "forward-all",
        }
    }

    /// Judges one message (an `Issue`'s JSON) with this reader.
    #[inline]
    pub fn judge(self, policy: &Policy, message: &[u8]) -> Verdict {
        match self {
            Judge::Optics => by_optics(policy, message),
            Judge::Decode => by_decoding(policy, message),
            Judge::ForwardAll => Verdict {
                kind: None,
                keep: true,
            },
        }
    }
}

impl std::str::FromStr for Judge {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "optics" => Ok(Judge::Optics),
            "decode" => Ok(Judge::Decode),
            "forward-all" => Ok(Judge::ForwardAll),
            other => Err(format!(
                "unknown reader `{other}`: expected optics, decode or forward-all"
            )),
        }
    }
}

/// Judges a message through optics: one scan to the detail, then the policy on
/// the detail's bytes. A message without a readable detail is dropped with no
/// kind.
#[inline]
pub fn by_optics(policy: &Policy, message: &[u8]) -> Verdict {
    match Json::<Issue>::new(message).view(Issue::detail) {
        Some(detail) => policy.judge(detail),
        None => Verdict {
            kind: None,
            keep: false,
        },
    }
}

/// Judges a message by decoding the whole issue first. A message that does not
/// decode as an `Issue` (a kind the model does not know, say) is dropped with
/// no kind.
pub fn by_decoding(policy: &Policy, message: &[u8]) -> Verdict {
    match serde_json::from_slice::<Issue>(message) {
        Ok(issue) => policy.judge(&issue.detail),
        Err(_) => Verdict {
            kind: None,
            keep: false,
        },
    }
}
