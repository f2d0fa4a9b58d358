//! What an editor asks of restartkit besides validation: per-file settings, completion and
//! hover. Pure functions of the text, as the rest of the core: the language server
//! (`restartkit lsp`), the playground and every other front end call these same functions
//! (through the contract's `complete` and `hover` ops), so they offer the same answers.

pub mod complete;
pub mod hover;
pub mod text;

/// The per-file settings comment is read with the source ([`crate::source::settings`]); the old
/// path stays.
pub use crate::source::settings;
