// The oracle is built once per supported Kubernetes minor, each time against that release's own
// module graph: versions/go.1.<minor>.mod (written by versions/pin.sh), passed with -modfile by
// mk/oracle.mk. This file only marks the module root.
module restartkit.dev/conformance/oracle

go 1.26.0
