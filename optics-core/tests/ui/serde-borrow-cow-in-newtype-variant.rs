// A borrowed `Cow` as the payload of a newtype variant: serde decodes it with
// its borrowing function (a string's bytes for `Cow<[u8]>`, never an array),
// which the prism does not call.
use std::borrow::Cow;

use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
enum Blob<'a> {
    #[serde(borrow)]
    Raw(Cow<'a, [u8]>),
    Text(#[serde(borrow)] Cow<'a, str>),
}

fn main() {}
