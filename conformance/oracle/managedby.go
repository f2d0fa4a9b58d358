package main

import "strings"

// managedByValue: a Job's spec.managedBy as validateJobSpec checks it (IsDomainPrefixedPath and
// at most 63 bytes): the controllers' own names, the shapes that miss a part, hosts that are no
// DNS-1123 subdomain, paths outside httpPathFmt, and lengths about the limit.
func (g gen) managedByValue() string {
	hosts := []string{"kueue.x-k8s.io", "kubernetes.io", "example.com", "a", "Example.com", "ex..com", "-x.io", "x_y.io", "1.2.3.4", "xn--bcher-kva.example", strings.Repeat("h", 64) + ".io"}
	paths := []string{"multikueue", "job-controller", "a/b", "a b", "x?y", "~._%!$&'()*+,;=:", "ü", "p", strings.Repeat("p", 40)}
	switch g.r.IntN(6) {
	case 0:
		return g.pick("kueue", "", "/", "x/", "/x", "kueue.x-k8s.io/", "kubernetes.io/job-controller", "kueue.x-k8s.io/multikueue", "a//b").(string)
	case 1:
		// About the 63-byte limit: 12 bytes of host and slash, then the rest.
		n := g.pick(50, 51, 52, 53, 80).(int)
		return "example.com/" + strings.Repeat("a", n)
	default:
		return hosts[g.r.IntN(len(hosts))] + "/" + paths[g.r.IntN(len(paths))]
	}
}
