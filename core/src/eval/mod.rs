//! What the kubelet and the controllers decide when something fails.

pub mod job;
pub mod job_compiled;
pub mod jobset;
pub mod kubelet;
pub mod object_warnings;
pub mod whatif;

/// Go regexps moved to the vocabulary layer ([`crate::go_regexp`]); the old path stays.
pub use crate::go_regexp as jobset_re2;
