// A variant spelled in snake_case gets a prism of its own name, and
// `Token::r#match` names the variant, never the prism: the prism could not be
// reached.
use optics_core::Optics;

#[derive(Optics)]
#[allow(non_camel_case_types)]
enum Token {
    r#match(String),
    Other(u8),
}

fn main() {}
