//! The per-Pod, per-Job and JobSet summaries of a finished run.

use super::*;

impl Engine<'_> {
    pub fn results(&self) -> (Vec<PodSummary>, Vec<JobSummary>, Option<JobSetSummary>) {
        // The newest Pod of each Job index (or the bare Pod), with its containers, in creation
        // order. Keyed by the Job's name: a restarted Job (same name) replaces its predecessor's
        // Pods.
        let mut idx: Vec<usize> = self
            .newest_pods
            .values()
            .flatten()
            .copied()
            .filter(|&p| p != usize::MAX)
            .chain(
                self.pods
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.job.is_none())
                    .map(|(i, _)| i),
            )
            .collect();
        idx.sort_unstable_by_key(|&p| self.pods.get(p).map_or(0, |x| x.created));
        let pods = idx
            .into_iter()
            .filter_map(|i| self.pods.get(i))
            .map(|p| PodSummary {
                name: p.name.clone(),
                phase: p.phase.to_owned(),
                reason: p.reason.map(str::to_owned),
                containers: p
                    .containers
                    .iter()
                    .enumerate()
                    .map(|(i, c)| ContainerSummary {
                        name: self
                            .templates
                            .get(p.tmpl)
                            .and_then(|t| t.names.get(i))
                            .cloned()
                            .unwrap_or_default(),
                        restart_count: c.restart_count,
                        last_exit_code: c.last_exit,
                    })
                    .collect(),
            })
            .collect();
        let jobs = self
            .live_jobs
            .iter()
            .filter_map(|&j| self.jobs.get(j))
            .filter(|j| j.phase != "Deleted")
            .map(|j| JobSummary {
                name: j.name.clone(),
                phase: j.phase.to_owned(),
                reason: j.reason.clone(),
                message: j.message.clone(),
                failed: j.failed,
                succeeded: j.succeeded,
            })
            .collect();
        let jobset = self.jobset.as_ref().map(|_| JobSetSummary {
            name: self
                .sc
                .workload
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            phase: self.js_phase.to_owned(),
            reason: self.js_reason.clone(),
            message: self.js_message.clone(),
            restarts: self.js_restarts,
            restarts_count_towards_max: self.js_restarts_towards_max,
        });
        (pods, jobs, jobset)
    }
}
