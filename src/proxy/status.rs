//! What the proxy says in gRPC's own terms: status codes, `grpc-message`,
//! trailers and trailers-only responses, `grpc-timeout`, and which calls are
//! gRPC at all.

use std::time::Duration;

use http::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use http::StatusCode;

use crate::frames::FrameError;
use crate::tally::CallEnd;

/// `grpc-status`: the call's status code, in the trailers.
pub const GRPC_STATUS: HeaderName = HeaderName::from_static("grpc-status");
/// `grpc-message`: the status's text, percent-encoded.
pub const GRPC_MESSAGE: HeaderName = HeaderName::from_static("grpc-message");
/// `grpc-timeout`: the call's deadline, relative to when it was sent.
pub const GRPC_TIMEOUT: HeaderName = HeaderName::from_static("grpc-timeout");
/// `grpc-encoding`: the message compression the sender uses.
pub const GRPC_ENCODING: HeaderName = HeaderName::from_static("grpc-encoding");
/// `grpc-accept-encoding`: the compressions the sender can read.
pub const GRPC_ACCEPT_ENCODING: HeaderName = HeaderName::from_static("grpc-accept-encoding");

/// A gRPC status code the proxy itself produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// 2: an HTTP status gRPC maps to no other code.
    Unknown = 2,
    /// 4: the call's deadline passed.
    DeadlineExceeded = 4,
    /// 7: HTTP 403.
    PermissionDenied = 7,
    /// 8: a message over the size limit, or a compressed one that inflates
    /// past it.
    ResourceExhausted = 8,
    /// 12: the upstream answered grpc-web, which the proxy does not judge;
    /// or HTTP 404.
    Unimplemented = 12,
    /// 13: the upstream's response broke the protocol (a compressed frame
    /// without a negotiated encoding or under one the proxy does not read,
    /// one that does not inflate, a bad flag, a stream that ends inside a
    /// frame, `grpc-status: 0` in the headers and then a body); or HTTP 400.
    Internal = 13,
    /// 14: the upstream cannot be reached, or its connection was lost under
    /// the call (a keepalive PING left unanswered included); or HTTP 429,
    /// 502, 503, 504.
    Unavailable = 14,
    /// 16: HTTP 401.
    Unauthenticated = 16,
}

impl Code {
    /// The code as `grpc-status` writes it. O(1).
    pub fn header_value(self) -> HeaderValue {
        match self {
            Code::Unknown => HeaderValue::from_static("2"),
            Code::DeadlineExceeded => HeaderValue::from_static("4"),
            Code::PermissionDenied => HeaderValue::from_static("7"),
            Code::ResourceExhausted => HeaderValue::from_static("8"),
            Code::Unimplemented => HeaderValue::from_static("12"),
            Code::Internal => HeaderValue::from_static("13"),
            Code::Unavailable => HeaderValue::from_static("14"),
            Code::Unauthenticated => HeaderValue::from_static("16"),
        }
    }

    /// The code a gRPC client gives a call whose response has the HTTP
    /// `status` and no gRPC status of its own, by gRPC's mapping (grpc's
    /// `doc/http-grpc-status-mapping.md`, as grpc-go's client applies it):
    /// 400 INTERNAL, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404
    /// UNIMPLEMENTED, 429, 502, 503 and 504 UNAVAILABLE, any other UNKNOWN.
    /// O(1).
    ///
    /// ```
    /// use http::StatusCode;
    /// use triage::proxy::status::Code;
    ///
    /// assert_eq!(Code::of_http(StatusCode::SERVICE_UNAVAILABLE), Code::Unavailable);
    /// assert_eq!(Code::of_http(StatusCode::NOT_FOUND), Code::Unimplemented);
    /// assert_eq!(Code::of_http(StatusCode::ACCEPTED), Code::Unknown);
    /// ```
    pub fn of_http(status: StatusCode) -> Code {
        match status.as_u16() {
            400 => Code::Internal,
            401 => Code::Unauthenticated,
            403 => Code::PermissionDenied,
            404 => Code::Unimplemented,
            429 | 502 | 503 | 504 => Code::Unavailable,
            _ => Code::Unknown,
        }
    }
}

/// The status a framing error of the upstream's response ends the call with:
/// RESOURCE_EXHAUSTED for a message over the limit, INTERNAL for the rest;
/// the row of the proxy's tally the call is counted in; and a message that
/// says what the proxy saw, and where.
///
/// ```
/// use triage::frames::FrameError;
/// use triage::proxy::status::{status_of, Code};
/// use triage::tally::CallEnd;
///
/// let (code, end, text) = status_of(&FrameError::Compressed { index: 2, offset: 99 }, None);
/// assert_eq!((code, end), (Code::Internal, CallEnd::Compressed));
/// assert!(text.starts_with("proxy: upstream sent a compressed frame"));
/// ```
pub fn status_of(err: &FrameError, encoding: Option<&str>) -> (Code, CallEnd, String) {
    match (err, encoding) {
        (FrameError::TooLarge { .. }, _) => (
            Code::ResourceExhausted,
            CallEnd::TooLarge,
            format!("proxy: upstream response: {err}"),
        ),
        (FrameError::Compressed { index, offset }, Some(encoding)) => (
            Code::Internal,
            CallEnd::Compressed,
            format!(
                "proxy: upstream sent a compressed frame (grpc-encoding {encoding}), \
                 which cannot be judged (frame {index} at byte {offset})"
            ),
        ),
        (FrameError::Compressed { index, offset }, None) => (
            Code::Internal,
            CallEnd::Compressed,
            format!(
                "proxy: upstream sent a compressed frame but no grpc-encoding was \
                 negotiated (frame {index} at byte {offset})"
            ),
        ),
        (FrameError::BadFlag { .. }, _) => (
            Code::Internal,
            CallEnd::BadFlag,
            format!("proxy: upstream response: {err}"),
        ),
        _ => (
            Code::Internal,
            CallEnd::EndedInsideFrame,
            format!("proxy: upstream response: {err}"),
        ),
    }
}

/// How a call the upstream ended counts: OK for `grpc-status: 0` in
/// `trailers`, an upstream error for any other status or none. O(1).
pub(crate) fn upstream_end(trailers: Option<&HeaderMap>) -> CallEnd {
    match trailers.and_then(|trailers| trailers.get(GRPC_STATUS)) {
        Some(status) if status.as_bytes() == b"0" => CallEnd::UpstreamOk,
        _ => CallEnd::UpstreamError,
    }
}

/// Trailers that end a call with `code` and `message`. Allocates the map and
/// the encoded message.
///
/// ```
/// use triage::proxy::status::{status_trailers, Code};
///
/// let trailers = status_trailers(Code::Internal, "bad 100%");
/// assert_eq!(trailers["grpc-status"], "13");
/// assert_eq!(trailers["grpc-message"], "bad 100%25");
/// ```
pub fn status_trailers(code: Code, message: &str) -> HeaderMap {
    let mut trailers = HeaderMap::with_capacity(2);
    trailers.insert(GRPC_STATUS, code.header_value());
    if let Ok(value) = HeaderValue::from_str(&percent_encode(message)) {
        trailers.insert(GRPC_MESSAGE, value);
    }
    trailers
}

/// `grpc-message`'s encoding: bytes outside printable ASCII, and `%`
/// itself, as `%XX`. O(len).
///
/// ```
/// use triage::proxy::status::percent_encode;
/// assert_eq!(percent_encode("ok é 50%"), "ok %C3%A9 50%25");
/// ```
pub fn percent_encode(message: &str) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(message.len());
    for &byte in message.as_bytes() {
        if (0x20..=0x7e).contains(&byte) && byte != b'%' {
            out.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// The deadline a `grpc-timeout` value gives: up to eight digits and a unit
/// (`H`, `M`, `S`, `m`, `u`, `n`). `None` for anything else, as gRPC treats a
/// malformed timeout: no deadline. O(1).
///
/// ```
/// use std::time::Duration;
/// use triage::proxy::status::parse_timeout;
///
/// assert_eq!(parse_timeout(b"200m"), Some(Duration::from_millis(200)));
/// assert_eq!(parse_timeout(b"1H"), Some(Duration::from_secs(3600)));
/// assert_eq!(parse_timeout(b"123456789S"), None); // nine digits
/// ```
pub fn parse_timeout(value: &[u8]) -> Option<Duration> {
    let (&unit, digits) = value.split_last()?;
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits
        .iter()
        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    Some(match unit {
        b'H' => Duration::from_secs(n * 3600),
        b'M' => Duration::from_secs(n * 60),
        b'S' => Duration::from_secs(n),
        b'm' => Duration::from_millis(n),
        b'u' => Duration::from_micros(n),
        b'n' => Duration::from_nanos(n),
        _ => return None,
    })
}

/// Whether a `content-type` is grpc-web's: `application/grpc-web`, with a
/// `+<format>` or as `-text` (base64), parameters after `;` allowed. Its
/// messages are framed as gRPC's, but its trailers come as a frame of the
/// body, and `-text` is base64: the proxy does not judge it. O(len).
///
/// ```
/// use http::{HeaderMap, HeaderValue};
/// use triage::proxy::status::is_grpc_web;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("content-type", HeaderValue::from_static("application/grpc-web+json"));
/// assert!(is_grpc_web(&headers));
/// headers.insert("content-type", HeaderValue::from_static("application/grpc-web-text"));
/// assert!(is_grpc_web(&headers));
/// headers.insert("content-type", HeaderValue::from_static("application/grpc"));
/// assert!(!is_grpc_web(&headers));
/// ```
pub fn is_grpc_web(headers: &HeaderMap) -> bool {
    let Some(media) = media_type(headers) else {
        return false;
    };
    const WEB: &[u8] = b"application/grpc-web";
    media.len() >= WEB.len()
        && media[..WEB.len()].eq_ignore_ascii_case(WEB)
        && matches!(media.get(WEB.len()), None | Some(b'+' | b'-'))
}

/// The media type of a `content-type` header: its value before any `;`,
/// trimmed.
fn media_type(headers: &HeaderMap) -> Option<&[u8]> {
    let media = headers.get(CONTENT_TYPE)?.as_bytes();
    let media = media
        .iter()
        .position(|&b| b == b';')
        .map_or(media, |end| &media[..end]);
    Some(media.trim_ascii())
}

/// Whether a request's `content-type` makes it a gRPC call the proxy
/// judges: `application/grpc`, or `application/grpc+<format>` (any format,
/// `+json` included; parameters after `;` are allowed). O(len).
///
/// ```
/// use http::{HeaderMap, HeaderValue};
/// use triage::proxy::status::is_grpc;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("content-type", HeaderValue::from_static("application/grpc+json"));
/// assert!(is_grpc(&headers));
/// headers.insert("content-type", HeaderValue::from_static("application/json"));
/// assert!(!is_grpc(&headers));
/// ```
pub fn is_grpc(headers: &HeaderMap) -> bool {
    let Some(media) = media_type(headers) else {
        return false;
    };
    const GRPC: &[u8] = b"application/grpc";
    media.len() >= GRPC.len()
        && media[..GRPC.len()].eq_ignore_ascii_case(GRPC)
        && (media.len() == GRPC.len() || media[GRPC.len()] == b'+')
}
