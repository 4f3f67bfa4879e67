//! tonic codecs for the demo's JSON messages: serde_json both ways, or the
//! message bytes passed through as they are.
//!
//! tonic frames the messages; a codec only turns one message into bytes and
//! back. [`JsonEncoder`]/[`JsonDecoder`] use serde_json; [`RawEncoder`]/
//! [`RawDecoder`] hand over `Bytes` that already are a message's JSON (the
//! upstream sends the pool's pre-serialized issues this way, and the
//! downstream keeps what it receives byte for byte). [`PairCodec`] puts an
//! encoder and a decoder together as a [`tonic::codec::Codec`].

use std::marker::PhantomData;

use bytes::{Buf, BufMut, Bytes};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::Status;

/// A [`Codec`] made of an encoder for what this side sends and a decoder for
/// what it receives. Zero-sized.
///
/// ```
/// use bytes::Bytes;
/// use triage::grpc::codec::{JsonCodec, JsonEncoder, PairCodec, RawDecoder};
/// use triage::grpc::SubscribeRequest;
///
/// // A client that sends JSON requests and keeps the responses' bytes:
/// let _codec: PairCodec<JsonEncoder<SubscribeRequest>, RawDecoder> = PairCodec::default();
/// // One that decodes the responses as issues:
/// let _codec: JsonCodec<SubscribeRequest, triage::model::Issue> = PairCodec::default();
/// ```
#[derive(Debug)]
pub struct PairCodec<E, D>(PhantomData<fn() -> (E, D)>);

impl<E, D> Default for PairCodec<E, D> {
    fn default() -> Self {
        PairCodec(PhantomData)
    }
}

/// Encodes `E` and decodes `D` with serde_json.
pub type JsonCodec<E, D> = PairCodec<JsonEncoder<E>, JsonDecoder<D>>;

impl<E, D> Codec for PairCodec<E, D>
where
    E: Encoder<Error = Status> + Default + Send + 'static,
    E::Item: Send + 'static,
    D: Decoder<Error = Status> + Default + Send + 'static,
    D::Item: Send + 'static,
{
    type Encode = E::Item;
    type Decode = D::Item;
    type Encoder = E;
    type Decoder = D;

    fn encoder(&mut self) -> E {
        E::default()
    }

    fn decoder(&mut self) -> D {
        D::default()
    }
}

/// Writes a `T` as JSON with serde_json, straight into tonic's buffer.
/// O(size of the JSON); allocates only when the buffer grows.
#[derive(Debug)]
pub struct JsonEncoder<T>(PhantomData<fn(T)>);

impl<T> Default for JsonEncoder<T> {
    fn default() -> Self {
        JsonEncoder(PhantomData)
    }
}

impl<T: Serialize> Encoder for JsonEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        serde_json::to_writer(dst.writer(), &item)
            .map_err(|err| Status::internal(format!("encoding a message as JSON: {err}")))
    }
}

/// Reads a `T` from one message's JSON with serde_json: a full decode.
/// The message is read in place when tonic holds it in one piece (always,
/// in practice), copied once otherwise.
#[derive(Debug)]
pub struct JsonDecoder<T>(PhantomData<fn() -> T>);

impl<T> Default for JsonDecoder<T> {
    fn default() -> Self {
        JsonDecoder(PhantomData)
    }
}

impl<T: DeserializeOwned> Decoder for JsonDecoder<T> {
    type Item = T;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<T>, Status> {
        let len = src.remaining();
        let decoded = if src.chunk().len() == len {
            let decoded = serde_json::from_slice(src.chunk());
            src.advance(len);
            decoded
        } else {
            serde_json::from_slice(&src.copy_to_bytes(len))
        };
        decoded
            .map(Some)
            .map_err(|err| Status::internal(format!("decoding a JSON message: {err}")))
    }
}

/// Sends `Bytes` that already are a message (here, an issue's JSON) as they
/// are: one copy into tonic's buffer, nothing serialized.
#[derive(Debug, Default)]
pub struct RawEncoder;

impl Encoder for RawEncoder {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

/// Keeps a received message's bytes as they are: a view of tonic's buffer,
/// nothing copied or parsed.
#[derive(Debug, Default)]
pub struct RawDecoder;

impl Decoder for RawDecoder {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}
