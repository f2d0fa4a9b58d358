#!/bin/sh
# A stand-in for kubectl in cli/tests/kubectl_plugin.rs: logs each command line to $FAKE_KUBECTL_LOG
# and prints what a cluster holding examples/explain/job-sweep-drained.yaml would.
echo "$*" >> "$FAKE_KUBECTL_LOG"
here=$(dirname "$0")
case "$*" in
  "get job/sweep-lr -o json --namespace ml --context lab") cat "$here/job.json" ;;
  "get pods -l batch.kubernetes.io/job-name=sweep-lr -o json --namespace ml --context lab") cat "$here/pods.json" ;;
  *) echo 'Error from server (NotFound): jobs.batch "missing" not found' >&2; exit 1 ;;
esac
