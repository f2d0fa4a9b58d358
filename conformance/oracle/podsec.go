package main

// The validate(Pod security) leg: Pods (and now and then a Job) with the security contexts,
// host namespaces, operating system and seccomp / AppArmor annotations people write, mostly
// valid, with the usual mistakes: `runAsUser: -1`, a Localhost seccomp profile without its
// localhostProfile or a RuntimeDefault one with it, an annotation that says another profile than
// the field, a windows Pod with linux fields, privileged with allowPrivilegeEscalation false,
// bad sysctl names, procMount Unmasked in the host's user namespace. Through the minor's real
// create path (admitPod / admitJob, then the strategy's Validate); every message is compared.

import (
	"strings"

	"k8s.io/kubernetes/pkg/capabilities"
)

// kube-apiserver's --allow-privileged, as kubeadm, kind and the managed offerings set it (and as
// restartkit models the API server): privileged and hostProcess containers are not "disallowed
// by cluster policy". Set before any validation asks.
func init() { capabilities.Setup(true, 0) }

var podSecGates = []string{
	"ProcMountType", "UserNamespacesSupport", "SupplementalGroupsPolicy", "SELinuxChangePolicy",
	"SELinuxMount",
}

func (g gen) id(bad bool) any {
	if bad && g.chance(0.5) {
		return g.pick(-1, -1000, 2147483648, 4294967295)
	}
	return g.pick(0, 1000, 1001, 65534, 2000)
}

func (g gen) seccompProfile(bad bool) map[string]any {
	p := map[string]any{"type": g.oneOf("RuntimeDefault", "RuntimeDefault", "Localhost", "Unconfined")}
	if p["type"] == "Localhost" {
		p["localhostProfile"] = g.oneOf("profiles/audit.json", "my-profile.json", "operator/default/nginx.json")
	}
	if bad && g.chance(0.6) {
		switch g.r.IntN(6) {
		case 0:
			p = map[string]any{"type": "Localhost"}
		case 1:
			p = map[string]any{"type": "RuntimeDefault", "localhostProfile": "profiles/audit.json"}
		case 2:
			p = map[string]any{"type": "Localhost", "localhostProfile": g.oneOf("/var/lib/kubelet/seccomp/a.json", "../escape.json", "a/../../b.json", "..")}
		case 3:
			p["type"] = g.oneOf("", "runtime/default", "Default", "localhost")
		case 4:
			p = map[string]any{"localhostProfile": "x.json"}
		default:
			p = map[string]any{"type": "Unconfined", "localhostProfile": ""}
		}
	}
	return p
}

func (g gen) appArmorProfile(bad bool) map[string]any {
	p := map[string]any{"type": g.oneOf("RuntimeDefault", "RuntimeDefault", "Localhost", "Unconfined")}
	if p["type"] == "Localhost" {
		p["localhostProfile"] = g.oneOf("k8s-apparmor-example-deny-write", "nginx", "custom/profile")
	}
	if bad && g.chance(0.6) {
		switch g.r.IntN(7) {
		case 0:
			p = map[string]any{"type": "Localhost"}
		case 1:
			p = map[string]any{"type": "Localhost", "localhostProfile": g.oneOf(" nginx", "nginx\n", "", "  ")}
		case 2:
			p = map[string]any{"type": "RuntimeDefault", "localhostProfile": "nginx"}
		case 3:
			p["type"] = g.oneOf("", "unconfined", "runtime/default")
		case 4:
			p = map[string]any{"localhostProfile": "nginx"}
		case 5:
			p = map[string]any{"type": "Localhost", "localhostProfile": strings.Repeat("p", g.pick(4095, 4096).(int))}
		default:
			p = map[string]any{"type": "Unconfined", "localhostProfile": ""}
		}
	}
	return p
}

func (g gen) windowsOptions(bad bool) map[string]any {
	w := map[string]any{}
	switch g.r.IntN(4) {
	case 0:
		w["runAsUserName"] = g.oneOf("ContainerUser", "ContainerAdministrator", "NT AUTHORITY\\NETWORK SERVICE", "CONTOSO\\svc-web")
	case 1:
		w["gmsaCredentialSpecName"] = g.oneOf("webapp1", "gmsa-web")
	case 2:
		w["hostProcess"] = g.chance(0.5)
	default:
		w["runAsUserName"] = "ContainerUser"
		w["hostProcess"] = g.chance(0.15)
	}
	if bad && g.chance(0.5) {
		switch g.r.IntN(4) {
		case 0:
			w["runAsUserName"] = g.oneOf("", "a\\b\\c", "DOMAIN\\", "user@corp", "...", " . ", strings.Repeat("u", 105), "bad:domain\\user", "ctrl\x01user", ".dom\\user", strings.Repeat("d", 256)+"\\user", "my-very-long-netbios-name.example.com\\user")
		case 1:
			w["gmsaCredentialSpecName"] = g.oneOf("Bad_Name", "", "-gmsa")
		case 2:
			w["gmsaCredentialSpec"] = g.oneOf("", `{"CmsPlugins":["ActiveDirectory"]}`)
		default:
			w["hostProcess"] = true
		}
	}
	return w
}

func (g gen) sysctls(bad bool) []any {
	var out []any
	for i := 1 + g.r.IntN(2); i > 0; i-- {
		name := g.oneOf("net.core.somaxconn", "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net/ipv4/tcp_syncookies", "kernel.msgmax", "fs.mqueue.msg_max", "kernel.sem", "vm.swappiness", "net.ipv4.conf.eth0/100.rp_filter")
		if bad && g.chance(0.4) {
			name = g.oneOf("", "Net.Core.Somaxconn", "net..core", "-net.core", "net.core.", "kernel.shm*", "net.core_", strings.Repeat("a.", 127)+"b")
		}
		out = append(out, map[string]any{"name": name, "value": "1"})
	}
	if bad && g.chance(0.2) && len(out) > 0 {
		out = append(out, out[0])
	}
	return out
}

func (g gen) podSecurityContext(bad bool) map[string]any {
	sc := map[string]any{}
	if g.chance(0.5) {
		sc["runAsUser"] = g.id(bad)
	}
	if g.chance(0.4) {
		sc["runAsGroup"] = g.id(bad)
	}
	if g.chance(0.4) {
		sc["fsGroup"] = g.id(bad)
	}
	if g.chance(0.4) {
		sc["runAsNonRoot"] = g.chance(0.8)
	}
	if g.chance(0.2) {
		sc["supplementalGroups"] = []any{g.id(false), g.id(bad)}
	}
	if g.chance(0.2) {
		sc["fsGroupChangePolicy"] = g.oneOf("OnRootMismatch", "Always")
		if bad && g.chance(0.4) {
			sc["fsGroupChangePolicy"] = g.oneOf("onRootMismatch", "Never", "")
		}
	}
	if g.chance(0.2) {
		sc["sysctls"] = g.sysctls(bad)
	}
	if g.chance(0.4) {
		sc["seccompProfile"] = g.seccompProfile(bad)
	}
	if g.chance(0.2) {
		sc["appArmorProfile"] = g.appArmorProfile(bad)
	}
	if g.chance(0.1) {
		sc["seLinuxOptions"] = map[string]any{"level": g.oneOf("s0:c123,c456", "s0"), "type": g.oneOf("spc_t", "container_t")}
	}
	if g.chance(0.15) {
		sc["seLinuxChangePolicy"] = g.oneOf("Recursive", "MountOption")
		if bad && g.chance(0.4) {
			sc["seLinuxChangePolicy"] = g.oneOf("recursive", "Auto", "")
		}
	}
	if g.chance(0.15) {
		sc["supplementalGroupsPolicy"] = g.oneOf("Merge", "Strict")
		if bad && g.chance(0.4) {
			sc["supplementalGroupsPolicy"] = g.oneOf("merge", "Union", "")
		}
	}
	if bad && g.chance(0.1) {
		sc["windowsOptions"] = g.windowsOptions(bad)
	}
	return sc
}

func (g gen) containerSecurityContext(bad bool) map[string]any {
	sc := map[string]any{}
	if g.chance(0.6) {
		sc["allowPrivilegeEscalation"] = !g.chance(0.8)
	}
	if g.chance(0.5) {
		caps := map[string]any{}
		if g.chance(0.7) {
			caps["drop"] = []any{"ALL"}
		}
		if g.chance(0.4) {
			caps["add"] = []any{g.oneOf("NET_BIND_SERVICE", "NET_ADMIN", "CAP_SYS_ADMIN", "SYS_ADMIN")}
		}
		sc["capabilities"] = caps
	}
	if g.chance(0.15) {
		sc["privileged"] = g.chance(0.5)
	}
	if g.chance(0.4) {
		sc["readOnlyRootFilesystem"] = true
	}
	if g.chance(0.4) {
		sc["runAsNonRoot"] = true
	}
	if g.chance(0.4) {
		sc["runAsUser"] = g.id(bad)
	}
	if g.chance(0.2) {
		sc["runAsGroup"] = g.id(bad)
	}
	if g.chance(0.15) {
		sc["procMount"] = g.oneOf("Default", "Unmasked")
		if bad && g.chance(0.4) {
			sc["procMount"] = g.oneOf("unmasked", "Masked", "")
		}
	}
	if g.chance(0.3) {
		sc["seccompProfile"] = g.seccompProfile(bad)
	}
	if g.chance(0.15) {
		sc["appArmorProfile"] = g.appArmorProfile(bad)
	}
	if g.chance(0.08) {
		sc["seLinuxOptions"] = map[string]any{"level": "s0:c1,c2"}
	}
	if bad && g.chance(0.08) {
		sc["windowsOptions"] = g.windowsOptions(bad)
	}
	return sc
}

// secAnnotation: the value of a seccomp or AppArmor annotation, mostly one of the field's.
func (g gen) seccompAnnotation(bad bool) string {
	v := g.oneOf("runtime/default", "unconfined", "localhost/profiles/audit.json", "docker/default", "localhost/my-profile.json")
	if bad && g.chance(0.3) {
		v = g.oneOf("localhost/../x.json", "localhost//abs.json", "RuntimeDefault", "", "localhost/")
	}
	return v
}

func (g gen) appArmorAnnotation(bad bool) string {
	v := g.oneOf("runtime/default", "unconfined", "localhost/nginx", "localhost/k8s-apparmor-example-deny-write")
	if bad && g.chance(0.3) {
		v = g.oneOf("localhost/", "foo", "", "localhost/ nginx", "RuntimeDefault")
	}
	return v
}

// windowsSecurityContext: what a Windows Pod or container sets (windowsOptions), now and then
// with a linux field (a mistake).
func (g gen) windowsSecurityContext(bad bool, pod bool) map[string]any {
	sc := map[string]any{"windowsOptions": g.windowsOptions(bad)}
	if bad && g.chance(0.5) {
		var linux map[string]any
		if pod {
			linux = g.podSecurityContext(false)
		} else {
			linux = g.containerSecurityContext(false)
		}
		for k, v := range linux {
			if g.chance(0.3) {
				sc[k] = v
			}
		}
	}
	return sc
}

func (g gen) validatePodSecurity() map[string]any {
	bad := g.chance(0.4)
	spec, _ := g.restartSpec(true)
	// The restart fields are the other legs'.
	for _, l := range []string{"containers", "initContainers"} {
		cs, _ := spec[l].([]any)
		for _, c := range cs {
			delete(c.(map[string]any), "restartPolicyRules")
			if l == "containers" {
				delete(c.(map[string]any), "restartPolicy")
			}
		}
	}
	windows := false
	switch {
	case g.chance(0.2):
		spec["os"] = map[string]any{"name": "linux"}
	case g.chance(0.15):
		spec["os"] = map[string]any{"name": "windows"}
		windows = true
	case g.chance(0.03):
		spec["os"] = map[string]any{"name": g.oneOf("", "Linux", "darwin")}
	}
	if g.chance(0.75) {
		if windows {
			spec["securityContext"] = g.windowsSecurityContext(bad, true)
		} else {
			spec["securityContext"] = g.podSecurityContext(bad)
		}
	}
	if g.chance(0.12) || windows && g.chance(0.5) {
		spec["hostNetwork"] = true
	}
	if g.chance(0.08) {
		spec["hostIPC"] = true
	}
	if g.chance(0.06) {
		spec["hostPID"] = true
	}
	if g.chance(0.08) {
		spec["shareProcessNamespace"] = g.chance(0.6)
	}
	if g.chance(0.25) {
		spec["hostUsers"] = !g.chance(0.85)
	}
	var names []string
	for _, l := range []string{"containers", "initContainers"} {
		cs, _ := spec[l].([]any)
		for _, c := range cs {
			c := c.(map[string]any)
			names = append(names, c["name"].(string))
			if g.chance(0.65) {
				if windows {
					c["securityContext"] = g.windowsSecurityContext(bad, false)
				} else {
					c["securityContext"] = g.containerSecurityContext(bad)
				}
			}
		}
	}
	ann := map[string]any{}
	if g.chance(0.3) {
		for i := 1 + g.r.IntN(2); i > 0; i-- {
			name := names[g.r.IntN(len(names))]
			if bad && g.chance(0.15) {
				name = "ghost"
			}
			switch g.r.IntN(3) {
			case 0:
				ann["seccomp.security.alpha.kubernetes.io/pod"] = g.seccompAnnotation(bad)
			case 1:
				ann["container.seccomp.security.alpha.kubernetes.io/"+name] = g.seccompAnnotation(bad)
			default:
				ann["container.apparmor.security.beta.kubernetes.io/"+name] = g.appArmorAnnotation(bad)
			}
		}
	}
	gates := g.gateSet(podSecGates)
	gates["ContainerRestartRules"] = true
	if g.chance(0.15) {
		// A Job: the annotations are its template's.
		if rp, _ := spec["restartPolicy"].(string); rp != "OnFailure" && rp != "Never" {
			spec["restartPolicy"] = "Never"
		}
		cs, _ := spec["containers"].([]any)
		for _, c := range cs {
			delete(c.(map[string]any), "restartPolicy")
			delete(c.(map[string]any), "restartPolicyRules")
		}
		tmpl := map[string]any{"spec": spec}
		if len(ann) > 0 {
			tmpl["metadata"] = map[string]any{"annotations": ann}
		}
		job := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "job", "namespace": "default", "uid": "1a2b3c"},
			"spec": map[string]any{"template": tmpl}}
		return map[string]any{"object": job, "featureGates": gatesOf(gates)}
	}
	p := pod(spec)
	if len(ann) > 0 {
		p["metadata"].(map[string]any)["annotations"] = ann
	}
	return map[string]any{"object": p, "featureGates": gatesOf(gates)}
}

// preparePodSecurity: a Pod as generated (restartkit does its defaulting and create-path
// changes itself, which the leg checks too); a Job as admitted (the Job's own defaulting is the
// validate(Job) leg's).
func preparePodSecurity(raw []byte) ([]byte, error) {
	if strings.Contains(string(raw), `"kind":"Job"`) {
		return prepareValidate(raw)
	}
	return raw, nil
}
