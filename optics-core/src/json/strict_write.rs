//! Byte writes read strictly: [`Strict::set`] and its siblings write as
//! [`Json::set`] and its siblings do, once the path to every focus is known
//! to hold no key twice. A write through a repeated key would change one of
//! its members and leave the other as it was, and a reader that takes the
//! other (serde_json refuses the document; other parsers take the first or
//! the last) would not see the write: a redaction through it would leave
//! the text it meant to hide.

use super::iter::JsonTraverse;
use super::{scan, JsonDecode, JsonOptic, JsonTraverseDecode, JsonWrite, Strict};
use crate::optic::StartsAt;

impl<'a, T: ?Sized> Strict<'a, '_, T> {
    /// Whether no key on the path to any focus of `optic` stands twice (as
    /// [`Strict::iter`] walks them, but over a map into every member, as
    /// the write writes them: those serde drops too); a duplicate met is
    /// recorded.
    fn path_once<O>(self, optic: O) -> bool
    where
        O: JsonTraverse + StartsAt<T>,
    {
        let walk = |strict: Strict<'a, '_, T>| strict.iter(optic).for_each(drop);
        let ((), met) = self.on_own_flag(|strict| scan::duplicates::every_member(|| walk(strict)));
        met.is_none()
    }

    /// [`Json::set`](super::Json::set), where no key on the path to the
    /// focus stands twice; `None` (and the duplicate recorded) where one
    /// does. Costs a strict walk of the path (each object on it walked to
    /// its end), then the write.
    ///
    /// ```
    /// use optics_core::json::{Duplicates, Strict};
    /// use optics_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Optics, Serialize, Deserialize)]
    /// struct Person { name: String, email: String }
    ///
    /// let redacted = "redacted".to_owned();
    /// let duplicates = Duplicates::new();
    /// let one = br#"{"name":"ann","email":"ann@corp.com"}"#;
    /// let person = Strict::<Person>::validated(one, &duplicates).unwrap();
    /// assert_eq!(person.set(Person::email, &redacted).unwrap(), br#"{"name":"ann","email":"redacted"}"#);
    /// // Written trustingly, the second email would be left as it was.
    /// let two = br#"{"name":"ann","email":"x","email":"ann@corp.com"}"#;
    /// let person = Strict::<Person>::validated(two, &duplicates).unwrap();
    /// assert_eq!(person.set(Person::email, &redacted), None);
    /// assert!(duplicates.met());
    /// ```
    pub fn set<O>(self, optic: O, value: &O::Focus) -> Option<Vec<u8>>
    where
        O: JsonOptic + JsonWrite + JsonTraverse + StartsAt<T> + Clone,
    {
        if !self.path_once(optic.clone()) {
            return None;
        }
        self.json.set(optic, value)
    }

    /// [`Json::set_into`](super::Json::set_into), where no key on the path
    /// to the focus stands twice: `false` with `out` empty (and the
    /// duplicate recorded) where one does. Costs what [`Strict::set`]
    /// costs, with no allocation once `out` has grown.
    pub fn set_into<O>(self, optic: O, value: &O::Focus, out: &mut Vec<u8>) -> bool
    where
        O: JsonOptic + JsonWrite + JsonTraverse + StartsAt<T> + Clone,
    {
        if !self.path_once(optic.clone()) {
            out.clear();
            return false;
        }
        self.json.set_into(optic, value, out)
    }

    /// [`Json::modify`](super::Json::modify), where no key on the path to
    /// the focus stands twice; `None` (`f` not run, the duplicate recorded)
    /// where one does.
    pub fn modify<O, F>(self, optic: O, f: F) -> Option<Vec<u8>>
    where
        O: JsonOptic + JsonDecode<'a> + JsonWrite + JsonTraverse + StartsAt<T> + Clone,
        F: FnOnce(O::Focus) -> O::Focus,
    {
        if !self.path_once(optic.clone()) {
            return None;
        }
        self.json.modify(optic, f)
    }

    /// [`Json::modify_into`](super::Json::modify_into), where no key on the
    /// path to the focus stands twice: `false` with `out` empty (`f` not
    /// run, the duplicate recorded) where one does.
    pub fn modify_into<O, F>(self, optic: O, f: F, out: &mut Vec<u8>) -> bool
    where
        O: JsonOptic + JsonDecode<'a> + JsonWrite + JsonTraverse + StartsAt<T> + Clone,
        F: FnOnce(O::Focus) -> O::Focus,
    {
        if !self.path_once(optic.clone()) {
            out.clear();
            return false;
        }
        self.json.modify_into(optic, f, out)
    }

    /// [`Json::set_all`](super::Json::set_all), where no key on the path to
    /// any focus stands twice; `None` (the duplicate recorded) where one
    /// does. Over a map it writes every member, a repeated key's included,
    /// as the trusting write does, so the path into each is checked (a
    /// member serde drops for a later one included).
    pub fn set_all<O>(self, optic: O, value: &O::Focus) -> Option<Vec<u8>>
    where
        O: JsonWrite + JsonTraverse + StartsAt<T> + Clone,
    {
        if !self.path_once(optic.clone()) {
            return None;
        }
        self.json.set_all(optic, value)
    }

    /// [`Json::set_all_into`](super::Json::set_all_into), where no key on
    /// the path to any focus stands twice: `false` with `out` empty (the
    /// duplicate recorded) where one does.
    pub fn set_all_into<O>(self, optic: O, value: &O::Focus, out: &mut Vec<u8>) -> bool
    where
        O: JsonWrite + JsonTraverse + StartsAt<T> + Clone,
    {
        if !self.path_once(optic.clone()) {
            out.clear();
            return false;
        }
        self.json.set_all_into(optic, value, out)
    }

    /// [`Json::modify_all`](super::Json::modify_all), where no key on the
    /// path to any focus stands twice; `None` (`f` not run, the duplicate
    /// recorded) where one does.
    pub fn modify_all<O, F>(self, optic: O, f: F) -> Option<Vec<u8>>
    where
        O: JsonTraverseDecode<'a> + JsonWrite + StartsAt<T> + Clone,
        F: FnMut(O::Focus) -> O::Focus,
    {
        if !self.path_once(optic.clone()) {
            return None;
        }
        self.json.modify_all(optic, f)
    }

    /// [`Json::modify_all_into`](super::Json::modify_all_into), where no
    /// key on the path to any focus stands twice: `false` with `out` empty
    /// (`f` not run, the duplicate recorded) where one does.
    pub fn modify_all_into<O, F>(self, optic: O, f: F, out: &mut Vec<u8>) -> bool
    where
        O: JsonTraverseDecode<'a> + JsonWrite + StartsAt<T> + Clone,
        F: FnMut(O::Focus) -> O::Focus,
    {
        if !self.path_once(optic.clone()) {
            out.clear();
            return false;
        }
        self.json.modify_all_into(optic, f, out)
    }
}
