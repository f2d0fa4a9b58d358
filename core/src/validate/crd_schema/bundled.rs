//! The CRDs restartkit bundles, so that the kinds it models are checked against their own
//! schemas without the user giving them: JobSet (sigs.k8s.io/jobset v0.12.0). They are generated
//! by tools/gen_crd_schemas.py from the release's CRD (core/src/generated/crds/), cut at the
//! Kubernetes built-in types they embed (a JobSet's Job templates), which restartkit's built-in
//! type tables check already, and without their CEL rules (the create-time ones are modelled by
//! hand in jobset.rs) and descriptions: about 5 KB.
//!
//! A CRD given with the request for the same kind wins over the bundled one.

#[cfg(feature = "bundled-crds")]
use super::CrdSet;
use super::{Crd, CrdVersion};
#[cfg(feature = "bundled-crds")]
use std::sync::OnceLock;

#[cfg(feature = "bundled-crds")]
const JOBSET: &str = include_str!("../../generated/crds/jobset.json");

/// One set per minor the formats are read for (1.31 and later; the API server's format list
/// changed in 1.34 and 1.36).
#[cfg(feature = "bundled-crds")]
static CACHE: [OnceLock<CrdSet>; 16] = [const { OnceLock::new() }; 16];

#[cfg(feature = "bundled-crds")]
fn set(minor: u32) -> &'static CrdSet {
    let slot = usize::try_from(minor.saturating_sub(31))
        .unwrap_or(0)
        .min(15);
    let Some(cell) = CACHE.get(slot) else {
        static EMPTY: CrdSet = CrdSet { crds: Vec::new() };
        return &EMPTY;
    };
    cell.get_or_init(|| {
        let mut set = CrdSet::default();
        for text in [JOBSET] {
            // Generated and tested (tests: every_bundled_crd_reads): a failure leaves the kind
            // without a schema rather than failing validation.
            if let Ok(v) = serde_json::from_str(text) {
                let _ = set.add_value(&v, minor);
            }
        }
        set
    })
}

/// The bundled schema for objects of `apiVersion` and `kind`, as Kubernetes 1.`minor` reads it
/// (none without the `bundled-crds` feature).
#[cfg(not(feature = "bundled-crds"))]
pub fn find(_: &str, _: &str, _: u32) -> Option<(&'static Crd, &'static CrdVersion)> {
    None
}

/// The bundled schema for objects of `apiVersion` and `kind`, as Kubernetes 1.`minor` reads it.
#[cfg(feature = "bundled-crds")]
pub fn find(
    api_version: &str,
    kind: &str,
    minor: u32,
) -> Option<(&'static Crd, &'static CrdVersion)> {
    set(minor).find(api_version, kind)
}

#[cfg(all(test, feature = "bundled-crds"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_bundled_crd_reads() {
        for text in [JOBSET] {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            for minor in 31..=37 {
                let mut set = CrdSet::default();
                set.add_value(&v, minor).unwrap();
                assert_eq!(set.crds.len(), 1);
            }
        }
        assert!(find("jobset.x-k8s.io/v1alpha2", "JobSet", 37).is_some());
        assert!(find("jobset.x-k8s.io/v1", "JobSet", 37).is_none());
    }
}
