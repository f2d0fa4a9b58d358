//! Strategic merge patch (k8s.io/apimachinery pkg/util/strategicpatch, `StrategicMergePatch`
//! with the merge options it uses: parallel lists merged, unmatched nulls ignored), for the two
//! patches the trainer applies: a TrainJob's `runtimePatches` over the runtime's JobSet spec
//! (the patch strategies of `jobsetv1alpha2.JobSetSpec`) and `resourcesPerNode` over the node
//! container's resources (`MergeResourceRequirements`).
//!
//! Only the struct fields a patch can reach are described (the patch types of
//! pkg/apis/trainer/v1alpha1 allow no others); every other list is replaced, as a list without a
//! `patchStrategy` tag is. The element order follows upstream exactly: elements of the patch in
//! the patch's order, interleaved with the original's other elements by their original order
//! (`normalizeElementOrder`), so an element the original lacks goes as far forward as it can.

use serde_json::{Map, Value};

/// Where a patch is in the Go types, as far as their patch strategies differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Node {
    JobSetSpec,
    ReplicatedJob,
    JobTemplateSpec,
    ObjectMeta,
    JobSpec,
    PodTemplateSpec,
    PodSpec,
    Container,
    ResourceRequirements,
    /// Any other struct or map: its lists are replaced.
    Plain,
}

/// How a list field is merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListStrategy {
    Replace,
    /// `patchStrategy:"merge"` on a list of scalars: both lists, without repeats.
    Scalars,
    /// `patchStrategy:"merge" patchMergeKey:"…"`.
    Keyed(&'static str),
}

/// The type below `node` at `key`, and how a list there is merged.
fn field(node: Node, key: &str) -> (Node, ListStrategy) {
    use ListStrategy::{Keyed, Replace, Scalars};
    match (node, key) {
        (Node::JobSetSpec, "replicatedJobs") => (Node::ReplicatedJob, Keyed("name")),
        (Node::ReplicatedJob, "template") => (Node::JobTemplateSpec, Replace),
        (Node::JobTemplateSpec | Node::PodTemplateSpec, "metadata") => (Node::ObjectMeta, Replace),
        (Node::JobTemplateSpec, "spec") => (Node::JobSpec, Replace),
        (Node::JobSpec, "template") => (Node::PodTemplateSpec, Replace),
        (Node::PodTemplateSpec, "spec") => (Node::PodSpec, Replace),
        (Node::ObjectMeta, "finalizers") => (Node::Plain, Scalars),
        (Node::ObjectMeta, "ownerReferences") => (Node::Plain, Keyed("uid")),
        (Node::PodSpec, "containers" | "initContainers" | "ephemeralContainers") => {
            (Node::Container, Keyed("name"))
        }
        (Node::PodSpec, "volumes" | "imagePullSecrets" | "schedulingGates" | "resourceClaims") => {
            (Node::Plain, Keyed("name"))
        }
        (Node::PodSpec, "hostAliases") => (Node::Plain, Keyed("ip")),
        (Node::PodSpec, "topologySpreadConstraints") => (Node::Plain, Keyed("topologyKey")),
        (Node::Container, "env") => (Node::Plain, Keyed("name")),
        (Node::Container, "volumeMounts") => (Node::Plain, Keyed("mountPath")),
        (Node::Container, "volumeDevices") => (Node::Plain, Keyed("devicePath")),
        (Node::Container, "ports") => (Node::Plain, Keyed("containerPort")),
        (Node::Container, "resources") => (Node::ResourceRequirements, Replace),
        (Node::ResourceRequirements, "claims") => (Node::Plain, Keyed("name")),
        _ => (Node::Plain, Replace),
    }
}

/// Why a patch cannot be applied (strategicpatch's own error text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PatchError(pub String);

/// `mergeMap`: the patch's fields into `original`.
pub(super) fn merge_map(
    original: &mut Map<String, Value>,
    patch: Map<String, Value>,
    node: Node,
) -> Result<(), PatchError> {
    for (k, pv) in patch {
        if pv.is_null() {
            // IgnoreUnmatchedNulls: a null deletes the field, and is not kept when absent.
            original.remove(&k);
            continue;
        }
        let Some(ov) = original.get_mut(&k) else {
            original.insert(k, pv);
            continue;
        };
        let (child, strategy) = field(node, &k);
        match (ov, pv) {
            (Value::Object(o), Value::Object(p)) => merge_map(o, p, child)?,
            (Value::Array(o), Value::Array(p)) => {
                let merged = match strategy {
                    ListStrategy::Replace => p,
                    ListStrategy::Scalars => merge_slice(std::mem::take(o), p, None, child)?,
                    ListStrategy::Keyed(key) => {
                        merge_slice(std::mem::take(o), p, Some(key), child)?
                    }
                };
                *o = merged;
            }
            (ov, pv) => *ov = pv,
        }
    }
    Ok(())
}

fn key_of<'a>(v: &'a Value, key: Option<&str>) -> Option<&'a Value> {
    match key {
        Some(k) => v.as_object().and_then(|m| m.get(k)),
        None => Some(v),
    }
}

/// `index`: the first position in `l` whose merge key (or value) equals `v`'s; a missing key
/// compares equal to another missing key, as Go's nil interfaces do.
fn index(l: &[Value], v: &Value, key: Option<&str>) -> Option<usize> {
    let want = key_of(v, key);
    l.iter().position(|x| key_of(x, key) == want)
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "nil",
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// `mergeSlice` with the merge options StrategicMergePatch uses.
fn merge_slice(
    original: Vec<Value>,
    patch: Vec<Value>,
    key: Option<&'static str>,
    node: Node,
) -> Result<Vec<Value>, PatchError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    // sliceElementType: every element of both lists has one type, and it is not a list.
    let mut kinds = original.iter().chain(&patch).map(kind_name);
    let first = kinds.next().unwrap_or("nil");
    if first == "[]interface {}" {
        return Err(PatchError("lists of lists are not supported".into()));
    }
    if kinds.any(|k| k != first) {
        return Err(PatchError("list element types are not identical".into()));
    }
    let maps = first == "map[string]interface {}";
    let key = if maps {
        match key {
            Some(k) => Some(k),
            None => {
                return Err(PatchError("cannot merge lists without merge key".into()));
            }
        }
    } else {
        None
    };
    let merged = if maps {
        let mut merged = original.clone();
        for pv in &patch {
            if key_of(pv, key).is_none() {
                return Err(PatchError(format!(
                    "map: {pv} does not contain declared merge key: {}",
                    key.unwrap_or("")
                )));
            }
            // The search includes elements appended for earlier patch elements.
            match index(&merged, pv, key) {
                Some(i) => {
                    if let (Some(Value::Object(o)), Value::Object(p)) = (merged.get_mut(i), pv) {
                        merge_map(o, p.clone(), node)?;
                    }
                }
                None => merged.push(pv.clone()),
            }
        }
        merged
    } else {
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        deduplicate_scalars(both)
    };
    // Enforce the order: the elements present in the patch, the others, then both interleaved.
    let (in_patch, server_only): (Vec<Value>, Vec<Value>) = merged
        .into_iter()
        .partition(|m| index(&patch, m, key).is_some());
    if maps {
        for v in server_only.iter().chain(&original) {
            if key_of(v, key).is_none() {
                return Err(PatchError(format!(
                    "map: {v} does not contain declared merge key: {}",
                    key.unwrap_or("")
                )));
            }
        }
    }
    let in_patch = sort_by(in_patch, &patch, key);
    let server_only = sort_by(server_only, &original, key);
    Ok(merge_sorted(server_only, in_patch, &original, key))
}

/// `deduplicateScalars`: the later repeat is overwritten with the last element (so the order
/// changes), as upstream's in-place algorithm does.
fn deduplicate_scalars(mut s: Vec<Value>) -> Vec<Value> {
    let mut length = s.len().saturating_sub(1);
    let mut i = 0;
    while i < length {
        let mut j = i + 1;
        while j <= length {
            if s.get(i) == s.get(j) {
                if let Some(last) = s.get(length).cloned()
                    && let Some(slot) = s.get_mut(j)
                {
                    *slot = last;
                }
                s.truncate(length);
                length -= 1;
            } else {
                j += 1;
            }
        }
        i += 1;
    }
    s
}

/// `normalizeSliceOrder` (stable, by the position in `order`; every element is in it).
fn sort_by(mut items: Vec<Value>, order: &[Value], key: Option<&str>) -> Vec<Value> {
    items.sort_by_key(|v| index(order, v, key).unwrap_or(usize::MAX));
    items
}

/// `mergeSortedSlice`: each server-only element goes before the next patch element when both
/// are in the original and it came first there; a patch element the original lacks is taken
/// first.
fn merge_sorted(
    left: Vec<Value>,
    right: Vec<Value>,
    server_order: &[Value],
    key: Option<&str>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut l = left.into_iter().peekable();
    let mut r = right.into_iter().peekable();
    loop {
        let take_left = match (l.peek(), r.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => {
                match (index(server_order, a, key), index(server_order, b, key)) {
                    (Some(ai), Some(bi)) => ai < bi,
                    _ => false,
                }
            }
        };
        let next = if take_left { l.next() } else { r.next() };
        if let Some(v) = next {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn merge(original: Value, patch: Value, node: Node) -> Value {
        let mut o = original.as_object().unwrap().clone();
        merge_map(&mut o, patch.as_object().unwrap().clone(), node).unwrap();
        Value::Object(o)
    }

    fn names(v: &Value) -> Vec<&str> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect()
    }

    /// The element order of normalizeElementOrder: a new element is taken before the original's
    /// remaining ones unless an original element must come first.
    #[test]
    fn keyed_lists_merge_and_order_as_upstream() {
        let env = |ns: &[&str]| {
            json!(
                ns.iter()
                    .map(|n| json!({"name": n, "value": n}))
                    .collect::<Vec<_>>()
            )
        };
        let out = merge(
            json!({"env": env(&["A", "B", "C"])}),
            json!({"env": [{"name": "D", "value": "d"}]}),
            Node::Container,
        );
        assert_eq!(names(&out["env"]), vec!["D", "A", "B", "C"]);
        let out = merge(
            json!({"env": env(&["A", "B", "C"])}),
            json!({"env": [{"name": "B", "value": "b2"}, {"name": "D", "value": "d"}]}),
            Node::Container,
        );
        assert_eq!(names(&out["env"]), vec!["A", "B", "D", "C"]);
        assert_eq!(out["env"][1]["value"], "b2");
        // Patch order among the patch's own elements, the original's other elements where they were
        // (checked against k8s.io/apimachinery v0.36.2).
        let out = merge(
            json!({"env": env(&["A", "B", "C"])}),
            json!({"env": [{"name": "C"}, {"name": "A"}]}),
            Node::Container,
        );
        assert_eq!(names(&out["env"]), vec!["B", "C", "A"]);
    }

    #[test]
    fn unkeyed_lists_are_replaced_and_maps_merged() {
        let out = merge(
            json!({"tolerations": [{"key": "a"}], "nodeSelector": {"x": "1"}, "affinity": {"nodeAffinity": {"r": [1]}}}),
            json!({"tolerations": [{"key": "b"}], "nodeSelector": {"y": "2"}, "affinity": {"nodeAffinity": {"r": [2]}}}),
            Node::PodSpec,
        );
        assert_eq!(
            out,
            json!({"tolerations": [{"key": "b"}], "nodeSelector": {"x": "1", "y": "2"}, "affinity": {"nodeAffinity": {"r": [2]}}})
        );
    }

    #[test]
    fn scalar_merge_lists_deduplicate_like_upstream() {
        assert_eq!(
            deduplicate_scalars(vec![json!("a"), json!("b"), json!("a"), json!("c")]),
            vec![json!("a"), json!("b"), json!("c")]
        );
        assert_eq!(
            deduplicate_scalars(vec![json!("a"), json!("a"), json!("b"), json!("c")]),
            vec![json!("a"), json!("c"), json!("b")]
        );
    }

    #[test]
    fn a_patch_element_without_its_key_is_an_error() {
        let mut o = json!({"volumes": [{"name": "a"}]})
            .as_object()
            .unwrap()
            .clone();
        let err = merge_map(
            &mut o,
            json!({"volumes": [{"emptyDir": {}}]})
                .as_object()
                .unwrap()
                .clone(),
            Node::PodSpec,
        );
        assert!(err.is_err());
    }
}
