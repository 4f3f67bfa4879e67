//! `optic!`: a composed optic under a name, with its type written as
//! `Source => Focus`.

/// Declares a composed optic as a named, zero-sized type and value, so that a
/// path can be stored in a `const` or a field and named in a signature without
/// spelling the types of its steps.
///
/// The kind (`lens`, `prism`, `optional` or `getter`) says which operations the
/// name offers; rustc checks it against the path, and the path against
/// `Source => Focus`. Every operation is the path's own, inlined: naming costs
/// nothing. A named optic reads bytes into leaves that own their data (a
/// borrowed `&'a str` leaf is read through the path itself). It is a
/// traversal of at most one focus too, so it composes with `each()`
/// (`NAME.then(each())`) and serves [`Json::iter`](crate::Json::iter). Such
/// a traversal answers as the path written out would where the name's one
/// lookup misses because the path goes on past a step the byte reader does
/// not follow: past a field serde fills in with a default that may hold
/// foci, or more flatten and internal-tag levels on one object than a read
/// follows, a fold cannot answer (`None`); past those levels, a write of
/// every focus refuses too. To tell, a miss walks the path once more, step
/// by step (nothing allocated); a lookup that finds its focus costs nothing
/// more. A lens, prism or optional writes bytes as the first step of a
/// path (`NAME.then(Field::x)`); a getter has no write, and no path past
/// it has. To write its own focus, write through the path it names, which
/// rustc can check is writable.
///
/// `Source` and `Focus` are types, so a name is for one type. For a model
/// with a lifetime parameter (`Order<'a>`), name the path at
/// `Order<'static>`: it reads values of that type, and bytes through a
/// `Json<Order<'static>>` (a view's type does not hold its bytes' lifetime,
/// so any bytes will do), into leaves that own their data. Code generic over
/// `'a` writes the path itself.
///
/// ```
/// use optics_core::prelude::*;
/// use serde::Deserialize;
///
/// #[derive(Optics, Deserialize)]
/// #[serde(tag = "type")]
/// enum Detail { Incident(Incident), Other(Other) }
/// #[derive(Optics, Deserialize)]
/// struct Incident { impact: Impact }
/// #[derive(Optics, Deserialize)]
/// struct Impact { users: u64 }
/// #[derive(Optics, Deserialize)]
/// struct Other {}
///
/// optic! {
///     /// How many users an incident hits.
///     optional USERS: Detail => u64 = Detail::incident.then(Incident::impact).then(Impact::users);
/// }
///
/// let detail = Detail::Incident(Incident { impact: Impact { users: 7 } });
/// assert_eq!(USERS.preview(&detail), Some(&7));
/// let bytes = br#"{"type":"Incident","impact":{"users":7}}"#;
/// assert_eq!(Json::<Detail>::new(bytes).read(USERS), Some(7));
/// ```
#[macro_export]
macro_rules! optic {
    ($(#[$meta:meta])* $vis:vis lens $name:ident : $source:ty => $focus:ty = $path:expr;) => {
        $crate::optic!(@common $(#[$meta])* $vis $name : $source => $focus = $path);
        $crate::optic!(@preview_mut $name : $source => $focus = $path);
        $crate::optic!(@get $name : $source => $focus = $path);
        impl $crate::optic::GetMut for $name {
            #[inline]
            fn get_mut<'s>(&self, s: &'s mut $source) -> &'s mut $focus
            where
                Self: 's,
            {
                $crate::optic::GetMut::get_mut(&$path, s)
            }
        }
    };
    ($(#[$meta:meta])* $vis:vis prism $name:ident : $source:ty => $focus:ty = $path:expr;) => {
        $crate::optic!(@common $(#[$meta])* $vis $name : $source => $focus = $path);
        $crate::optic!(@preview_mut $name : $source => $focus = $path);
        impl $crate::optic::Review for $name {
            #[inline]
            fn review(&self, a: $focus) -> $source {
                $crate::optic::Review::review(&$path, a)
            }
        }
    };
    ($(#[$meta:meta])* $vis:vis optional $name:ident : $source:ty => $focus:ty = $path:expr;) => {
        $crate::optic!(@common $(#[$meta])* $vis $name : $source => $focus = $path);
        $crate::optic!(@preview_mut $name : $source => $focus = $path);
    };
    ($(#[$meta:meta])* $vis:vis getter $name:ident : $source:ty => $focus:ty = $path:expr;) => {
        $crate::optic!(@common $(#[$meta])* $vis $name : $source => $focus = $path);
        $crate::optic!(@get $name : $source => $focus = $path);
    };
    (@common $(#[$meta:meta])* $vis:vis $name:ident : $source:ty => $focus:ty = $path:expr) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)]
        $vis struct $name;

        impl $name {
            /// Composes this optic with `next`, which must start where this one
            /// ends; costs nothing at run time.
            #[allow(dead_code)]
            $vis const fn then<Next>(self, next: Next) -> $crate::optic::Then<Self, Next>
            where
                Next: $crate::optic::StartsAt<$focus>,
            {
                $crate::optic::Then::new(self, next)
            }
        }

        impl $crate::optic::Optic for $name {
            type Source = $source;
            type Focus = $focus;
        }

        impl $crate::optic::Preview for $name {
            #[inline]
            fn preview<'s>(&self, s: &'s $source) -> ::core::option::Option<&'s $focus>
            where
                Self: 's,
            {
                $crate::optic::Preview::preview(&$path, s)
            }

            #[inline]
            fn preview_then<'s, R, K>(&self, s: &'s $source, k: K) -> ::core::option::Option<R>
            where
                Self: 's,
                K: ::core::ops::FnOnce(&'s $focus) -> ::core::option::Option<R>,
            {
                $crate::optic::Preview::preview_then(&$path, s, k)
            }
        }

        impl $crate::json::JsonOptic for $name {
            #[inline]
            fn locate<'a>(&self, bytes: &'a [u8]) -> $crate::json::Found<'a> {
                $crate::json::JsonOptic::locate(&$path, bytes)
            }

            #[inline]
            fn member_names(&self) -> ::core::option::Option<&'static [&'static str]> {
                $crate::json::JsonOptic::member_names(&$path)
            }

            #[inline]
            fn locate_at<'a>(&self, at: $crate::json::Spot<'a>) -> $crate::json::Located<'a> {
                $crate::json::JsonOptic::locate_at(&$path, at)
            }

            // Every method the path has, so that the name reads as the path
            // does: entered where a path goes on past it, not walked to its
            // end.
            #[inline]
            fn locate_entered_at<'a>(
                &self,
                at: $crate::json::Spot<'a>,
            ) -> $crate::json::Located<'a> {
                $crate::json::JsonOptic::locate_entered_at(&$path, at)
            }

            #[inline]
            fn unfollowed<'a>(
                &self,
                at: $crate::json::Spot<'a>,
            ) -> ::core::option::Option<$crate::json::ReadError> {
                $crate::json::JsonOptic::unfollowed(&$path, at)
            }
        }

        // A named path is one a byte read may go on past: if it ends at a
        // field read `with` a function, the bytes it finds are opaque and
        // every step after it misses.
        impl $crate::json::JsonThrough for $name {}

        impl<'de> $crate::json::JsonDecode<'de> for $name {
            #[inline]
            fn decode(&self, found: $crate::json::Found<'de>) -> ::core::option::Option<$focus> {
                $crate::json::JsonDecode::decode(&$path, found)
            }

            #[inline]
            fn decode_at(&self, found: $crate::json::Located<'de>) -> ::core::option::Option<$focus> {
                $crate::json::JsonDecode::decode_at(&$path, found)
            }

            #[inline]
            fn read_at(&self, at: $crate::json::Spot<'de>) -> ::core::option::Option<$focus> {
                $crate::json::JsonDecode::read_at(&$path, at)
            }
        }

        $crate::__traverse_at_most_one!($name : $source => $focus);
        $crate::__json_traverse_at_most_one!($name : $source => $focus = $path);
    };
    (@preview_mut $name:ident : $source:ty => $focus:ty = $path:expr) => {
        impl $crate::optic::PreviewMut for $name {
            #[inline]
            fn preview_mut<'s>(&self, s: &'s mut $source) -> ::core::option::Option<&'s mut $focus>
            where
                Self: 's,
            {
                $crate::optic::PreviewMut::preview_mut(&$path, s)
            }
        }

        $crate::__traverse_at_most_one!(mut $name : $source => $focus);
    };
    (@get $name:ident : $source:ty => $focus:ty = $path:expr) => {
        impl $crate::optic::Get for $name {
            #[inline]
            fn get<'s>(&self, s: &'s $source) -> &'s $focus
            where
                Self: 's,
            {
                $crate::optic::Get::get(&$path, s)
            }
        }
    };
}
