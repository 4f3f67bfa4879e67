//! Redaction through a byte lens: a kept message has its reporter's email
//! replaced before it is forwarded, without being decoded. Every other byte
//! of the message stays as it was; the frame gets a new header for the new
//! length.

use optics_core::json::Duplicates;
use optics_core::prelude::*;

use crate::frames::{header, DEFAULT_MAX_MESSAGE};
use crate::model::{Issue, Person};

/// What a redacted email becomes.
pub const REDACTED_EMAIL: &str = "redacted@example.invalid";

/// Replaces the reporter's email of each message it is given, reusing its
/// buffers: once they have grown to the largest message, redacting
/// allocates nothing.
#[derive(Debug)]
pub struct Redactor {
    email: String,
    scratch: Vec<u8>,
}

impl Default for Redactor {
    fn default() -> Redactor {
        Redactor {
            email: REDACTED_EMAIL.to_owned(),
            scratch: Vec::new(),
        }
    }
}

impl Redactor {
    /// Appends to `out` the frame of `message` with its reporter's email
    /// redacted (a new header, then the message as a byte lens writes it).
    /// Returns `false`, and appends nothing, when the message has no
    /// reporter's email to redact (bytes that are not an issue), or when
    /// `reporter` or its `email` stands twice in its object: the byte lens
    /// writes the first, and a parser that takes the last (many do) would
    /// read the email left in the other, so such a message is never
    /// forwarded half redacted, whatever the judge checked; or when the
    /// redacted message would be longer than [`DEFAULT_MAX_MESSAGE`] (a
    /// message of the largest size whose email is shorter than
    /// [`REDACTED_EMAIL`]): gRPC's receivers, the filter's own frame reader
    /// among them, refuse such a frame, and the rest of their stream with it.
    ///
    /// O(message): the root and reporter objects walked to their ends for
    /// repeated keys (a strict view), one scan to the email and one copy.
    pub fn redact_into(&mut self, message: &[u8], out: &mut Vec<u8>) -> bool {
        let email = Issue::reporter.then(Person::email);
        let duplicates = Duplicates::new();
        let json = Json::<Issue>::new(message);
        if json.strict(&duplicates).view(email).is_none() {
            return false;
        }
        if !json.set_into(email, &self.email, &mut self.scratch)
            || self.scratch.len() > DEFAULT_MAX_MESSAGE
        {
            return false;
        }
        let Ok(head) = header(self.scratch.len()) else {
            return false;
        };
        out.extend_from_slice(&head);
        out.extend_from_slice(&self.scratch);
        true
    }
}

/// The oracle for [`Redactor`], on values: `redacted` decodes as an issue
/// equal to `original` decoded with the reporter's email set to
/// [`REDACTED_EMAIL`] (values, not bytes: serde_json does not always write a
/// float back as the text it read, where the byte lens leaves every byte but
/// the email's as it was). Two full decodes.
pub fn verify(original: &[u8], redacted: &[u8]) -> bool {
    let (Ok(mut want), Ok(got)) = (
        serde_json::from_slice::<Issue>(original),
        serde_json::from_slice::<Issue>(redacted),
    ) else {
        return false;
    };
    want.reporter.email = REDACTED_EMAIL.to_owned();
    got == want
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Gen, Generate};

    #[test]
    fn the_byte_lens_changes_the_email_and_nothing_else() {
        let mut g = Gen::new(12, 7);
        let mut redactor = Redactor::default();
        for _ in 0..200 {
            let message = Issue::generate(&mut g).to_json();
            let mut frame = Vec::new();
            assert!(redactor.redact_into(&message, &mut frame));
            let redacted = &frame[5..];
            assert!(
                verify(&message, redacted),
                "a redaction that is not the value's"
            );
            assert_eq!(&frame[..5], &header(redacted.len()).unwrap());
            // Every byte in front of the reporter's email is as it was.
            let at = message
                .windows(9)
                .position(|w| w == b"\"email\":\"")
                .unwrap();
            assert_eq!(&redacted[..at + 9], &message[..at + 9]);
        }
        let mut out = Vec::new();
        assert!(!redactor.redact_into(b"[1,2]", &mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn a_message_redacted_up_to_the_limit_is_redacted_and_one_past_it_is_not() {
        let mut issue = Issue::generate(&mut Gen::new(3, 7));
        issue.reporter.email = "a@b".to_owned();
        let grows = REDACTED_EMAIL.len() - issue.reporter.email.len();
        // Padded with whitespace before its closing brace to `len` bytes.
        let padded = |len: usize| {
            let mut message = issue.to_json();
            assert_eq!(message.pop(), Some(b'}'));
            message.resize(len - 1, b' ');
            message.push(b'}');
            message
        };
        let mut redactor = Redactor::default();
        let mut out = Vec::new();
        let fits = padded(DEFAULT_MAX_MESSAGE - grows);
        assert!(redactor.redact_into(&fits, &mut out));
        assert_eq!(out.len(), 5 + DEFAULT_MAX_MESSAGE);
        assert!(verify(&fits, &out[5..]));
        out.clear();
        assert!(!redactor.redact_into(&padded(DEFAULT_MAX_MESSAGE - grows + 1), &mut out));
        assert!(out.is_empty(), "nothing appended");
    }

    #[test]
    fn a_reporter_or_email_given_twice_is_never_half_redacted() {
        let mut g = Gen::new(13, 7);
        let mut redactor = Redactor::default();
        let message = Issue::generate(&mut g).to_json();
        let text = String::from_utf8(message).unwrap();
        let reporter = text.find("\"reporter\":{").unwrap();
        let email = reporter + text[reporter..].find("\"email\":").unwrap();
        let twice = [
            // The email twice, plainly or with its key escaped: the lens
            // would write the first, and a last-wins parser read the second.
            format!("{}\"email\":\"first@x\",{}", &text[..email], &text[email..]),
            format!(
                "{}\"\\u0065mail\":\"first@x\",{}",
                &text[..email],
                &text[email..]
            ),
            // The reporter twice.
            format!(
                "{}\"reporter\":{{\"name\":\"a\",\"email\":\"a@x\"}},{}",
                &text[..reporter],
                &text[reporter..]
            ),
        ];
        for message in twice {
            assert!(serde_json::from_str::<serde_json::Value>(&message).is_ok());
            let mut out = Vec::new();
            assert!(
                !redactor.redact_into(message.as_bytes(), &mut out),
                "{message}"
            );
            assert!(out.is_empty());
        }
        // Keys repeated elsewhere are none of its business.
        let elsewhere = format!("{{\"x\":1,\"x\":2,{}", &text[1..]);
        let mut out = Vec::new();
        assert!(redactor.redact_into(elsewhere.as_bytes(), &mut out));
    }
}
