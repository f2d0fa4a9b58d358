//! The guards' limits: how deep, how large and how often a stream may make the reader work.
//! A leaf of the reader's parts (it imports none of them).

/// Deepest nesting accepted (Kubernetes objects need about 20 levels).
pub const MAX_DEPTH: usize = 256;
/// Most nodes one stream may produce, aliases expanded (a billion-laughs guard).
pub const MAX_NODES: usize = 5_000_000;
/// Most places one stream may hold where go-yaml (libyaml) reads what saphyr-parser refuses (a
/// `\'` escape, a lone `-` in a flow collection): each is one more parse of the text; beyond it
/// the parser's error stands.
pub(super) const MAX_QUOTE_PATCHES: usize = 100;
/// Most nodes aliases may add to one stream. Manifests use anchors for a few shared snippets;
/// a larger expansion is an alias bomb, refused while it is still small in memory.
pub const MAX_ALIAS_NODES: usize = 100_000;
