//! Whether a field's type is one whose `Default` holds nothing a path could
//! go on to: a standard collection, an `Option`, a `String`. Named only by
//! the derive's output (through `optics_core::__private`).
//!
//! The derive sees a field's type as spelled, not what it names: `Vec<T>`
//! may be the standard one or a type of the user's called `Vec`, whose
//! default may hold foci, and `List<T>` may be an alias of `Vec<T>`. So it
//! asks the type itself, at compile time:
//!
//! ```text
//! EmptyDefault::<std::vec::Vec<T>>::IS_EMPTY   the inherent const: true
//! EmptyDefault::<my::Vec>::IS_EMPTY            no inherent const; the trait's: false
//! ```
//!
//! An inherent associated item is found before a trait's, and an inherent
//! impl applies only where its type matches, so the answer comes without
//! specialization and also where the field's type holds the model's type
//! parameters (`Vec<T>` matches for any `T`). A bare type parameter, or an
//! associated type, matches none of them: taken to fill in foci, which only
//! costs an answer. Nothing of this exists at run time: the answer is a
//! `const`.

use core::marker::PhantomData;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};

/// `EmptyDefault::<T>::IS_EMPTY`: whether `T` is a type whose `Default` is
/// empty. Never built; only its consts are named.
pub struct EmptyDefault<T: ?Sized>(PhantomData<fn() -> PhantomData<T>>);

/// The answer for every type not listed below: its default may hold foci.
/// The derive's output brings it into scope (`use ... as _`) to name
/// `EmptyDefault::<T>::IS_EMPTY` of any `T`.
pub trait NotKnownEmpty {
    /// `false`: nothing says the default is empty.
    const IS_EMPTY: bool = false;
}

impl<T: ?Sized> NotKnownEmpty for EmptyDefault<T> {}

/// An inherent `IS_EMPTY = true` for each type whose `Default` is empty.
macro_rules! empty_default {
    ($(impl[$($param:ident),*] $ty:ty;)*) => {$(
        impl<$($param),*> EmptyDefault<$ty> {
            /// `true`: the type's `Default` is empty.
            pub const IS_EMPTY: bool = true;
        }
    )*};
}

empty_default! {
    impl[T] Vec<T>;
    impl[T] VecDeque<T>;
    impl[T] LinkedList<T>;
    impl[K, V, S] HashMap<K, V, S>;
    impl[K, V] BTreeMap<K, V>;
    impl[T, S] HashSet<T, S>;
    impl[T] BTreeSet<T>;
    impl[T] BinaryHeap<T>;
    impl[T] Option<T>;
    impl[] String;
    // A box's default is its content's (`Box<str>`'s and `Box<[T]>`'s are
    // empty): each boxed type above, named again, since an impl for any
    // `Box<T>` could not ask `T` (a bare parameter matches none of these).
    impl[T] Box<Vec<T>>;
    impl[T] Box<VecDeque<T>>;
    impl[T] Box<LinkedList<T>>;
    impl[K, V, S] Box<HashMap<K, V, S>>;
    impl[K, V] Box<BTreeMap<K, V>>;
    impl[T, S] Box<HashSet<T, S>>;
    impl[T] Box<BTreeSet<T>>;
    impl[T] Box<BinaryHeap<T>>;
    impl[T] Box<Option<T>>;
    impl[] Box<String>;
    impl[] Box<str>;
    impl[T] Box<[T]>;
}

#[cfg(test)]
mod tests {
    use super::{EmptyDefault, NotKnownEmpty as _};
    use std::collections::{HashMap, VecDeque};

    /// A type of the user's named like a standard collection.
    #[allow(dead_code)]
    struct Vec(std::vec::Vec<u32>);

    type List<T> = std::vec::Vec<T>;

    #[test]
    fn the_standard_types_are_empty_by_default() {
        const { assert!(EmptyDefault::<std::vec::Vec<u8>>::IS_EMPTY) };
        const { assert!(EmptyDefault::<VecDeque<String>>::IS_EMPTY) };
        const { assert!(EmptyDefault::<HashMap<String, u8>>::IS_EMPTY) };
        const { assert!(EmptyDefault::<Option<Vec>>::IS_EMPTY) };
        const { assert!(EmptyDefault::<String>::IS_EMPTY) };
        // Under another name, the same type.
        const { assert!(EmptyDefault::<List<u8>>::IS_EMPTY) };
        // Boxed, the same.
        const { assert!(EmptyDefault::<Box<List<u8>>>::IS_EMPTY) };
        const { assert!(EmptyDefault::<Box<Option<Vec>>>::IS_EMPTY) };
        const { assert!(EmptyDefault::<Box<str>>::IS_EMPTY) };
        const { assert!(EmptyDefault::<Box<[u8]>>::IS_EMPTY) };
    }

    #[test]
    fn a_type_named_like_one_is_not() {
        const { assert!(!EmptyDefault::<Vec>::IS_EMPTY) };
        const { assert!(!EmptyDefault::<u8>::IS_EMPTY) };
        // A box of a type not known to be empty, or of a box, is not.
        const { assert!(!EmptyDefault::<Box<Vec>>::IS_EMPTY) };
        const { assert!(!EmptyDefault::<Box<Box<String>>>::IS_EMPTY) };
    }

    #[test]
    fn a_type_parameter_inside_a_standard_type_still_matches() {
        fn is_empty<T>() -> bool {
            EmptyDefault::<std::vec::Vec<T>>::IS_EMPTY
        }
        fn bare<T>() -> bool {
            EmptyDefault::<T>::IS_EMPTY
        }
        assert!(is_empty::<Vec>());
        // A bare parameter is not known to be empty, whatever it stands for.
        assert!(!bare::<std::vec::Vec<u8>>());
    }
}
