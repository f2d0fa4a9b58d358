//! What each supported Kubernetes minor knows, generated from that minor's own release by
//! tools/gen_k8s_versions.py (never edited by hand): its feature gates (`k8s_gates`) and the
//! fields of the API types restartkit reads (`k8s_schema`). The pinned releases are the ones the
//! differential oracle links (conformance/oracle/versions/go.1.<minor>.mod).

#[rustfmt::skip]
#[allow(clippy::all)]
pub mod k8s_gates;
#[rustfmt::skip]
#[allow(clippy::all)]
pub mod k8s_schema;
/// The Kubeflow Trainer CRDs' defaults and list types (tools/gen_trainer_crd.py).
#[rustfmt::skip]
pub(crate) mod trainer_crd;
/// The Unicode data of Go's `regexp` (tools/gen_re2_unicode).
#[rustfmt::skip]
pub(crate) mod re2_tables;
/// Go's embedded tz database's names (tools/gen_tz_names.py).
#[rustfmt::skip]
pub mod tz_names;
/// The methods of the schema shapes that read `k8s_schema`'s tables (written by hand).
mod schema_lookup;

/// The shapes of `k8s_gates`.
pub mod gate_types {
    /// A gate's pre-release stage in one minor (component-base's `prerelease`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Stage {
        Alpha,
        Beta,
        Ga,
        Deprecated,
    }

    /// One gate as a minor's components register it.
    #[derive(Debug)]
    pub struct Gate {
        /// Index in `k8s_gates::NAMES`.
        pub name: u16,
        pub default: bool,
        /// LockToDefault: the components refuse any other value.
        pub locked: bool,
        pub stage: Stage,
    }

    /// One supported minor: the release its tables come from and its gates, by name.
    #[derive(Debug)]
    pub struct Minor {
        pub minor: u32,
        /// The k8s.io/kubernetes release, e.g. `v1.37.2`.
        pub release: &'static str,
        /// Sorted by name.
        pub gates: &'static [Gate],
        /// (gate, the gates that must be on for it to be on), indexes in `NAMES`: the
        /// dependencies a minor declares (from 1.35); sorted by gate.
        pub depends: &'static [(u16, &'static [u16])],
    }
}

/// The shapes of `k8s_schema`.
pub mod schema_types {
    /// A scalar as the API server's decoder reads it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Scalar {
        String,
        /// base64 text (`format: byte`).
        Bytes,
        Int32,
        Int64,
        Number,
        Boolean,
        IntOrString,
        Quantity,
        /// metav1.Time: RFC 3339 text.
        Time,
        /// metav1.MicroTime: RFC 3339 text with exactly six fractional digits.
        MicroTime,
        /// Anything (RawExtension, FieldsV1, an object without a schema).
        Any,
    }

    /// A field's value.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Value {
        Scalar(Scalar),
        /// An object of the type at this index of `k8s_schema::TYPES`.
        Object(u16),
        List(&'static Value),
        Map(&'static Value),
    }

    /// One field, with the minors (inclusive) it exists in.
    #[derive(Debug)]
    pub struct Field {
        pub name: &'static str,
        pub since: u32,
        pub until: u32,
        pub value: Value,
        /// Index in `k8s_schema::GO` of [`Field::go`].
        pub go: u16,
        /// Index in `k8s_schema::VIA` of [`Field::via`].
        pub via: u8,
    }

    /// One API type; its fields sorted by (length, name).
    #[derive(Debug)]
    pub struct Type {
        pub name: &'static str,
        pub since: u32,
        pub until: u32,
        pub fields: &'static [Field],
    }

    /// A kind whose objects are checked, at one API version.
    #[derive(Debug)]
    pub struct Kind {
        pub group: &'static str,
        pub version: &'static str,
        pub kind: &'static str,
        pub type_: u16,
        /// The minors (inclusive) whose API server creates it.
        pub since: u32,
        pub until: u32,
    }
}

/// The shapes of `trainer_crd`.
pub mod trainer_crd_types {
    /// A scalar default of the CRD schema.
    #[derive(Debug, Clone, Copy)]
    pub enum DefaultValue {
        Str(&'static str),
        Bool(bool),
        Int(i64),
    }

    /// One `default:` of a CRD: the schema path, its segments joined by dots (`*` every array
    /// item, `{}` every map value), and the value.
    #[derive(Debug, Clone, Copy)]
    pub struct CrdDefault {
        pub path: &'static str,
        pub value: DefaultValue,
    }

    /// An `x-kubernetes-list-type` of a CRD at a dotted path: `map` with its keys, or `set`
    /// (`map_keys` None).
    #[derive(Debug, Clone, Copy)]
    pub struct CrdList {
        pub path: &'static str,
        pub map_keys: Option<&'static [&'static str]>,
    }
}
