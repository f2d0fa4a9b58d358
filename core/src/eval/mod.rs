//! What the kubelet and the controllers decide when something fails.

pub mod job;
pub mod job_compiled;
pub mod jobset;
pub mod jobset_re2;
pub mod kubelet;
pub mod object_warnings;
pub mod whatif;
