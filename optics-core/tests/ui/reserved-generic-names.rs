// Generic parameters named like the ones the derive's impls declare: each is
// refused at its name, alone (rustc's "already used" and "shadows" errors
// pointed at the derive).
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Page<'__de, __X> {
    #[serde(borrow)]
    title: &'__de str,
    items: Vec<__X>,
}

#[derive(Optics, Deserialize)]
#[serde(tag = "type")]
enum Detail<'__s, __R: Clone, __K> {
    Failure { title: &'__s str, code: __R, extra: __K },
}

fn main() {}
