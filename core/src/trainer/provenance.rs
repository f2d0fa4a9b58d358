//! Where a part of the built JobSet came from: the TrainJob's or the runtime's field, recorded
//! while building (build.rs) and resolved against the built JobSet at the end (mod.rs), so a
//! diagnostic about the JobSet points at the line a user wrote.

/// Which of the two objects a value or a diagnostic belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocRole {
    TrainJob,
    Runtime,
}

/// A field of the TrainJob or the runtime.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub doc: DocRole,
    pub path: String,
}

/// One step of a path in the built JobSet, resolved against it at the end (list items the build
/// moves are found by their name).
#[derive(Debug, Clone)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
    /// The item of a list whose `key` is `value` (`env` by `name`).
    Named(&'static str, String),
}

impl Seg {
    pub(crate) fn key(s: &str) -> Seg {
        Seg::Key(s.to_owned())
    }
    pub(crate) fn named(key: &'static str, value: &str) -> Seg {
        Seg::Named(key, value.to_owned())
    }
}

/// A part of the built JobSet that came from `origin` as a whole.
#[derive(Debug, Clone)]
pub(crate) struct Owned {
    pub at: Vec<Seg>,
    pub origin: Origin,
}
