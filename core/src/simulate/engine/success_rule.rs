//! A Job's successPolicy rules as the engine holds them: the indexes each requires, parsed as
//! upstream's parseIndexesFromString parses them. The Job controller (job_controller.rs) checks
//! them; the engine builds them with a Job's state, so they sit below both.

/// A successPolicy rule: the indexes it requires (None: any) and how many of them must succeed.
#[derive(Debug, Clone, Default)]
pub(in crate::simulate) struct SuccessRule {
    pub indexes: Option<Vec<(u32, u32)>>,
    pub count: Option<u32>,
}

/// Parses a successPolicy's `succeededIndexes` (`"0,2-4"`) into sorted, merged intervals below
/// `completions`, as upstream's parseIndexesFromString does; None when it does not parse (the
/// rule is then skipped, as upstream skips it).
pub(in crate::simulate) fn parse_indexes(s: &str, completions: u32) -> Option<Vec<(u32, u32)>> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for part in s.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
            None => {
                let v = part.parse::<u32>().ok()?;
                (v, v)
            }
        };
        if a >= completions {
            continue;
        }
        out.push((a, b.min(completions.saturating_sub(1))));
    }
    out.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (a, b) in out {
        match merged.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    (!merged.is_empty()).then_some(merged)
}
