//! Kubernetes, JobSet and OpenKruise API types, as far as restart and failure behaviour depends
//! on them. Enumerated fields are strings so that an unsupported value reaches validation (which
//! names it) instead of failing to decode. Their JSON Schemas list the values upstream accepts as
//! `examples`, not `enum`, for the same reason: editors offer them (the playground's completion),
//! while a schema check or a generated type still admits the value validation should report.
//! Every struct keeps the fields restartkit does not
//! model in `other`, so an object round-trips unchanged.

pub mod batch;
pub mod core;
pub mod jobset;
pub mod kruise;
pub mod kubelet;
pub mod meta;
pub mod trainer;

pub use self::batch::*;
pub use self::core::*;
pub use self::jobset::*;
pub use self::kruise::*;
pub use self::kubelet::*;
pub use self::meta::*;
pub use self::trainer::*;
