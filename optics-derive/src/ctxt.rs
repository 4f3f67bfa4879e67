//! Collects every error the derive finds, so all are reported at once.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The errors found so far. Dropping it without calling [`Ctxt::check`] is a
/// bug in the derive, caught in debug builds. Made only by [`Ctxt::new`] (no
/// `Default`: a context made any other way would drop its errors silently).
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned on `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error as it is.
    pub fn syn_error(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = errors.into_iter();
        let Some(mut combined) = iter.next() else {
            return Ok(());
        };
        for error in iter {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            debug_assert!(false, "Ctxt dropped without check()");
        }
    }
}

/// Turns the combined error into `compile_error!` invocations.
pub fn to_compile_errors(error: syn::Error) -> TokenStream {
    error.to_compile_error()
}
