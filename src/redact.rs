//! Redaction through a byte lens: a kept message has its reporter's email
//! replaced before it is forwarded, without being decoded. Every other byte
//! of the message stays as it was; the frame gets a new header for the new
//! length.

use optics_core::prelude::*;

use crate::frames::header;
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
    /// O(message): one scan to the email and one copy. Returns `false`, and
    /// appends nothing, when the message has no reporter's email to redact
    /// (bytes that are not an issue).
    pub fn redact_into(&mut self, message: &[u8], out: &mut Vec<u8>) -> bool {
        let email = Issue::reporter.then(Person::email);
        if !Json::<Issue>::new(message).set_into(email, &self.email, &mut self.scratch) {
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
}
