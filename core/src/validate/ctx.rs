//! What every validator shares: the request's context ([`Ctx`]), the decoder that reports a type
//! mismatch as the API server does ([`decode_at`]), and the placing of findings in a document.

use super::unknown_fields;
use crate::diag::{Diagnostic, FieldPath};
use crate::features::FeatureGates;
use crate::source::Document;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What every validator needs to know about the request.
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    pub gates: FeatureGates,
    /// Validate the object exactly as given (upstream's unit tests do); otherwise default first.
    pub skip_defaulting: bool,
    /// Proposal RestartRulesFuture: KEP-5307's future rule shapes are accepted.
    pub future_rules: bool,
    /// Proposal AlwaysPod: Pod restartPolicy `AlwaysPod` is accepted.
    pub always_pod: bool,
    /// What an unknown field costs (the API's `fieldValidation`).
    pub field_validation: unknown_fields::FieldValidation,
}

#[cfg(test)]
impl Ctx {
    /// A request at Kubernetes 1.`minor` with `gates` set over that minor's defaults, the rest
    /// as a plain create: the context the validators' unit tests build.
    pub(crate) fn at(minor: u32, gates: &[(&str, bool)]) -> Ctx {
        let mut g = FeatureGates::for_version(crate::features::KubeVersion { minor });
        for (name, on) in gates {
            g.set(name, *on);
        }
        Ctx {
            gates: g,
            ..Ctx::default()
        }
    }
}

pub fn attach_position(d: &mut Diagnostic, doc: &Document) {
    if d.line.is_some() {
        return;
    }
    let (line, col) = doc.position_of(&d.field);
    d.line = Some(line);
    d.column = Some(col);
}

/// Places each fix of `d` in the document's text, where every edit of the fix can be placed.
pub fn attach_text_edits(d: &mut Diagnostic, doc: &Document) {
    for fix in &mut d.fixes {
        if !fix.text_edits.is_empty() {
            continue;
        }
        let placed: Option<Vec<_>> = fix
            .edits
            .iter()
            .map(|e| doc.text_edit(&e.field, &e.value))
            .collect();
        fix.text_edits = placed.unwrap_or_default();
    }
}

/// Decodes `value` as `T`, reporting a type mismatch the way the API server's decoder does
/// (a field path under `base`).
pub fn decode_at<T: DeserializeOwned>(value: &Value, base: &FieldPath) -> Result<T, Diagnostic> {
    // The fast, small path first; the path-tracking decoder only runs to explain a failure.
    // Off in the wasm package (`fast-decode`): the second decoder is a copy of every type's
    // Deserialize code; the path-tracking one alone gives the same values and errors.
    #[cfg(feature = "fast-decode")]
    if let Ok(t) = T::deserialize(value) {
        return Ok(t);
    }
    crate::decode::from_value_ref::<T>(value).map_err(|(rel, e)| {
        let field = if rel == "." {
            base.as_str().to_owned()
        } else if base.as_str().is_empty() {
            rel
        } else {
            format!("{}.{}", base.as_str(), rel)
        };
        let field = field.replace(".[", "[");
        let msg = e.to_string();
        let mut d = Diagnostic::request("decode", &field, format!("{field}: {msg}"));
        d.error_type = Some(crate::diag::ErrorType::FieldValueTypeInvalid);
        d.origin = crate::diag::Origin::KubeApiserver;
        d
    })
}
