package main

// The ObjectMeta leg: the metadata of objects of many built-in kinds (the workloads restartkit
// models and kinds it does not: Service, ConfigMap, RBAC, Namespace, ...), cluster-scoped and
// namespaced, as the API server checks it on create. Each generated object has a body valid for
// its kind and metadata drawn around the edges of every rule (name and generateName lengths and
// characters, namespace, label keys and values, annotation keys and total size, finalizers,
// ownerReferences, generation). Upstream's answer is the create path: decode with defaulting,
// convert, what rest.BeforeCreate does first (a name generated from generateName by the
// strategy's generator, the namespace filled by kubectl or cleared for a cluster-scoped kind, a
// UID), PrepareForCreate, then the kind's registry strategy's Validate. The errors under
// `metadata` (and a Job's template labels, which carry its name) are compared by field and type,
// and each one's full text must be in restartkit's messages; a generated name's random
// characters are no fact restartkit can know, so for an error whose value is the generated name
// only its detail is compared. An error anywhere else means the body was not valid: the case is
// skipped and counted.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	"k8s.io/kubernetes/pkg/apis/batch"
	"k8s.io/kubernetes/pkg/apis/coordination"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/networking"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	nodeapi "k8s.io/kubernetes/pkg/apis/node"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	"k8s.io/kubernetes/pkg/apis/rbac"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	"k8s.io/kubernetes/pkg/apis/storage"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	validatingwebhookregistry "k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	controllerrevisionregistry "k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	daemonsetregistry "k8s.io/kubernetes/pkg/registry/apps/daemonset"
	deploymentregistry "k8s.io/kubernetes/pkg/registry/apps/deployment"
	replicasetregistry "k8s.io/kubernetes/pkg/registry/apps/replicaset"
	statefulsetregistry "k8s.io/kubernetes/pkg/registry/apps/statefulset"
	hparegistry "k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	cronjobregistry "k8s.io/kubernetes/pkg/registry/batch/cronjob"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	leaseregistry "k8s.io/kubernetes/pkg/registry/coordination/lease"
	configmapregistry "k8s.io/kubernetes/pkg/registry/core/configmap"
	limitrangeregistry "k8s.io/kubernetes/pkg/registry/core/limitrange"
	namespaceregistry "k8s.io/kubernetes/pkg/registry/core/namespace"
	noderegistry "k8s.io/kubernetes/pkg/registry/core/node"
	pvregistry "k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	pvcregistry "k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
	podtemplateregistry "k8s.io/kubernetes/pkg/registry/core/podtemplate"
	rcregistry "k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	resourcequotaregistry "k8s.io/kubernetes/pkg/registry/core/resourcequota"
	secretregistry "k8s.io/kubernetes/pkg/registry/core/secret"
	serviceregistry "k8s.io/kubernetes/pkg/registry/core/service"
	ingressregistry "k8s.io/kubernetes/pkg/registry/networking/ingress"
	ingressclassregistry "k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	networkpolicyregistry "k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	runtimeclassregistry "k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	clusterroleregistry "k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	clusterrolebindingregistry "k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	roleregistry "k8s.io/kubernetes/pkg/registry/rbac/role"
	rolebindingregistry "k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	priorityclassregistry "k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	storageclassregistry "k8s.io/kubernetes/pkg/registry/storage/storageclass"
)

// metaKind: the v1 type the object decodes into, the internal type, the registry strategy and a
// body valid for the kind.
type metaKind struct {
	apiVersion string
	external   func() runtime.Object
	internal   func() runtime.Object
	strategy   rest.RESTCreateStrategy
	body       func() map[string]any
}

func metaPodSpec(restart string) map[string]any {
	return map[string]any{"restartPolicy": restart, "containers": []any{map[string]any{"name": "c", "image": "busybox:1.36"}}}
}

func metaTemplate(restart string) map[string]any {
	return map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "m"}}, "spec": metaPodSpec(restart)}
}

func metaController() map[string]any {
	return map[string]any{"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "m"}}, "template": metaTemplate("Always")}}
}

var metaKinds = map[string]metaKind{
	"Pod": {"v1", func() runtime.Object { return &corev1.Pod{} }, func() runtime.Object { return &api.Pod{} }, podregistry.Strategy,
		func() map[string]any { return map[string]any{"spec": metaPodSpec("Never")} }},
	"PodTemplate": {"v1", func() runtime.Object { return &corev1.PodTemplate{} }, func() runtime.Object { return &api.PodTemplate{} }, podtemplateregistry.Strategy,
		func() map[string]any { return map[string]any{"template": metaTemplate("Never")} }},
	"ReplicationController": {"v1", func() runtime.Object { return &corev1.ReplicationController{} }, func() runtime.Object { return &api.ReplicationController{} }, rcregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"selector": map[string]any{"app": "m"}, "template": metaTemplate("Always")}}
		}},
	"Service": {"v1", func() runtime.Object { return &corev1.Service{} }, func() runtime.Object { return &api.Service{} }, serviceregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"selector": map[string]any{"app": "m"}, "ports": []any{map[string]any{"port": 80}}}}
		}},
	"ConfigMap": {"v1", func() runtime.Object { return &corev1.ConfigMap{} }, func() runtime.Object { return &api.ConfigMap{} }, configmapregistry.Strategy,
		func() map[string]any { return map[string]any{"data": map[string]any{"k": "v"}} }},
	"Secret": {"v1", func() runtime.Object { return &corev1.Secret{} }, func() runtime.Object { return &api.Secret{} }, secretregistry.Strategy,
		func() map[string]any { return map[string]any{"stringData": map[string]any{"k": "v"}} }},
	"ServiceAccount": {"v1", func() runtime.Object { return &corev1.ServiceAccount{} }, func() runtime.Object { return &api.ServiceAccount{} }, serviceAccountStrategy{},
		func() map[string]any { return map[string]any{} }},
	"Namespace": {"v1", func() runtime.Object { return &corev1.Namespace{} }, func() runtime.Object { return &api.Namespace{} }, namespaceregistry.Strategy,
		func() map[string]any { return map[string]any{} }},
	"PersistentVolumeClaim": {"v1", func() runtime.Object { return &corev1.PersistentVolumeClaim{} }, func() runtime.Object { return &api.PersistentVolumeClaim{} }, pvcregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}
		}},
	"Deployment": {"apps/v1", func() runtime.Object { return &appsv1.Deployment{} }, func() runtime.Object { return &apps.Deployment{} }, deploymentregistry.Strategy, metaController},
	"ReplicaSet": {"apps/v1", func() runtime.Object { return &appsv1.ReplicaSet{} }, func() runtime.Object { return &apps.ReplicaSet{} }, replicasetregistry.Strategy, metaController},
	"DaemonSet":  {"apps/v1", func() runtime.Object { return &appsv1.DaemonSet{} }, func() runtime.Object { return &apps.DaemonSet{} }, daemonsetregistry.Strategy, metaController},
	"StatefulSet": {"apps/v1", func() runtime.Object { return &appsv1.StatefulSet{} }, func() runtime.Object { return &apps.StatefulSet{} }, statefulsetregistry.Strategy,
		func() map[string]any {
			b := metaController()
			b["spec"].(map[string]any)["serviceName"] = "m"
			return b
		}},
	"Job": {"batch/v1", func() runtime.Object { return &batchv1.Job{} }, func() runtime.Object { return &batch.Job{} }, jobregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"template": metaTemplate("Never")}}
		}},
	"CronJob": {"batch/v1", func() runtime.Object { return &batchv1.CronJob{} }, func() runtime.Object { return &batch.CronJob{} }, cronjobregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"schedule": "*/5 * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": metaTemplate("OnFailure")}}}}
		}},
	"Role": {"rbac.authorization.k8s.io/v1", func() runtime.Object { return &rbacv1.Role{} }, func() runtime.Object { return &rbac.Role{} }, roleregistry.Strategy,
		func() map[string]any {
			return map[string]any{"rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}}
		}},
	"ClusterRole": {"rbac.authorization.k8s.io/v1", func() runtime.Object { return &rbacv1.ClusterRole{} }, func() runtime.Object { return &rbac.ClusterRole{} }, clusterroleregistry.Strategy,
		func() map[string]any {
			return map[string]any{"rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}}
		}},
	"RoleBinding": {"rbac.authorization.k8s.io/v1", func() runtime.Object { return &rbacv1.RoleBinding{} }, func() runtime.Object { return &rbac.RoleBinding{} }, rolebindingregistry.Strategy,
		func() map[string]any {
			return map[string]any{"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "s", "namespace": "default"}}}
		}},
	"ClusterRoleBinding": {"rbac.authorization.k8s.io/v1", func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }, func() runtime.Object { return &rbac.ClusterRoleBinding{} }, clusterrolebindingregistry.Strategy,
		func() map[string]any {
			return map[string]any{"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "s", "namespace": "default"}}}
		}},
	"Ingress": {"networking.k8s.io/v1", func() runtime.Object { return &networkingv1.Ingress{} }, func() runtime.Object { return &networking.Ingress{} }, ingressregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"defaultBackend": map[string]any{"service": map[string]any{"name": "s", "port": map[string]any{"number": 80}}}}}
		}},
	"NetworkPolicy": {"networking.k8s.io/v1", func() runtime.Object { return &networkingv1.NetworkPolicy{} }, func() runtime.Object { return &networking.NetworkPolicy{} }, networkpolicyregistry.Strategy,
		func() map[string]any { return map[string]any{"spec": map[string]any{"podSelector": map[string]any{}}} }},
	"PriorityClass": {"scheduling.k8s.io/v1", func() runtime.Object { return &schedulingv1.PriorityClass{} }, func() runtime.Object { return &scheduling.PriorityClass{} }, priorityclassregistry.Strategy,
		func() map[string]any { return map[string]any{"value": 1000} }},
	"Lease": {"coordination.k8s.io/v1", func() runtime.Object { return &coordinationv1.Lease{} }, func() runtime.Object { return &coordination.Lease{} }, leaseregistry.Strategy,
		func() map[string]any { return map[string]any{"spec": map[string]any{}} }},
	"LimitRange": {"v1", func() runtime.Object { return &corev1.LimitRange{} }, func() runtime.Object { return &api.LimitRange{} }, limitrangeregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"limits": []any{map[string]any{"type": "Container", "max": map[string]any{"cpu": "1"}}}}}
		}},
	"ResourceQuota": {"v1", func() runtime.Object { return &corev1.ResourceQuota{} }, func() runtime.Object { return &api.ResourceQuota{} }, resourcequotaregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"hard": map[string]any{"pods": "10"}}}
		}},
	"PersistentVolume": {"v1", func() runtime.Object { return &corev1.PersistentVolume{} }, func() runtime.Object { return &api.PersistentVolume{} }, pvregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"capacity": map[string]any{"storage": "1Gi"}, "accessModes": []any{"ReadWriteOnce"},
				"hostPath": map[string]any{"path": "/tmp/pv"}}}
		}},
	"Node": {"v1", func() runtime.Object { return &corev1.Node{} }, func() runtime.Object { return &api.Node{} }, noderegistry.Strategy,
		func() map[string]any { return map[string]any{} }},
	"ControllerRevision": {"apps/v1", func() runtime.Object { return &appsv1.ControllerRevision{} }, func() runtime.Object { return &apps.ControllerRevision{} }, controllerrevisionregistry.Strategy,
		func() map[string]any { return map[string]any{"revision": 1, "data": map[string]any{"a": 1}} }},
	"IngressClass": {"networking.k8s.io/v1", func() runtime.Object { return &networkingv1.IngressClass{} }, func() runtime.Object { return &networking.IngressClass{} }, ingressclassregistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"controller": "example.com/ingress"}}
		}},
	"HorizontalPodAutoscaler": {"autoscaling/v2", func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }, func() runtime.Object { return &autoscaling.HorizontalPodAutoscaler{} }, hparegistry.Strategy,
		func() map[string]any {
			return map[string]any{"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
				"minReplicas": 1, "maxReplicas": 3}}
		}},
	"StorageClass": {"storage.k8s.io/v1", func() runtime.Object { return &storagev1.StorageClass{} }, func() runtime.Object { return &storage.StorageClass{} }, storageclassregistry.Strategy,
		func() map[string]any { return map[string]any{"provisioner": "example.com/p"} }},
	"RuntimeClass": {"node.k8s.io/v1", func() runtime.Object { return &nodev1.RuntimeClass{} }, func() runtime.Object { return &nodeapi.RuntimeClass{} }, runtimeclassregistry.Strategy,
		func() map[string]any { return map[string]any{"handler": "runc"} }},
	"ValidatingWebhookConfiguration": {"admissionregistration.k8s.io/v1", func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfiguration{} },
		func() runtime.Object { return &admissionregistration.ValidatingWebhookConfiguration{} }, validatingwebhookregistry.Strategy,
		func() map[string]any { return map[string]any{} }},
}

var metaKindNames = []string{"Pod", "PodTemplate", "ReplicationController", "Service", "ConfigMap", "Secret", "ServiceAccount", "Namespace",
	"PersistentVolumeClaim", "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job", "CronJob", "Role", "ClusterRole",
	"RoleBinding", "ClusterRoleBinding", "Ingress", "NetworkPolicy", "PriorityClass", "Lease",
	"LimitRange", "ResourceQuota", "PersistentVolume", "Node", "ControllerRevision", "IngressClass",
	"HorizontalPodAutoscaler", "StorageClass", "RuntimeClass", "ValidatingWebhookConfiguration"}

// serviceAccountStrategy: the ServiceAccount strategy's create path (its registry package pulls
// in the token signer, whose modules the oracle does not pin): namespaced, nothing to prepare,
// ValidateServiceAccount.
type serviceAccountStrategy struct{ rest.RESTCreateStrategy }

func (serviceAccountStrategy) NamespaceScoped() bool { return true }
func (serviceAccountStrategy) GenerateName(base string) string {
	return names.SimpleNameGenerator.GenerateName(base)
}
func (serviceAccountStrategy) PrepareForCreate(context.Context, runtime.Object) {}
func (serviceAccountStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return corevalidation.ValidateServiceAccount(obj.(*api.ServiceAccount))
}

// crKinds: custom resources restartkit reads, their CRD's scope and a body restartkit accepts.
// The API server checks their metadata in the customresource validator (apiextensions-apiserver
// pkg/registry/customresource): NameIsDNSSubdomain and the scope, after a PrepareForCreate that
// sets generation to 1.
var crKinds = map[string]struct {
	apiVersion string
	namespaced bool
	body       func() map[string]any
}{
	"LeaderWorkerSet": {"leaderworkerset.x-k8s.io/v1", true, func() map[string]any {
		return map[string]any{"spec": map[string]any{"leaderWorkerTemplate": map[string]any{"size": 1,
			"workerTemplate": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}}}}
	}},
	"ContainerRecreateRequest": {"apps.kruise.io/v1alpha1", true, func() map[string]any {
		return map[string]any{"spec": map[string]any{"podName": "p", "containers": []any{map[string]any{"name": "c"}}}}
	}},
	"ClusterTrainingRuntime": {"trainer.kubeflow.org/v1alpha1", false, func() map[string]any {
		job := map[string]any{"metadata": map[string]any{"labels": map[string]any{"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "node", "image": "i"}}}}}}
		return map[string]any{"spec": map[string]any{"mlPolicy": map[string]any{"numNodes": 1},
			"template": map[string]any{"spec": map[string]any{"replicatedJobs": []any{map[string]any{"name": "node", "template": job}}}}}}
	}},
}

var crKindNames = []string{"LeaderWorkerSet", "ContainerRecreateRequest", "ClusterTrainingRuntime"}

// upstreamCustomResourceMeta: the customresource create path for metadata: the name generated
// from generateName, the namespace filled or cleared, generation 1, then the validator's check
// (customResourceMetaErrors, per minor).
func upstreamCustomResourceMeta(kind string, obj []byte) (field.ErrorList, string, error) {
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &o); err != nil {
		return nil, "", err
	}
	m := &o.Metadata
	generated := ""
	if m.GenerateName != "" && m.Name == "" {
		generated = names.SimpleNameGenerator.GenerateName(m.GenerateName)
		m.Name = generated
	}
	if crKinds[kind].namespaced {
		if m.Namespace == "" {
			m.Namespace = "default"
		}
	} else {
		m.Namespace = ""
	}
	m.UID = types.UID("1a2b3c")
	m.Generation = 1
	return customResourceMetaErrors(m, crKinds[kind].namespaced), generated, nil
}

// relaxedServiceNames: the gate that turns a Service's name rule from DNS-1035 to DNS-1123 label.
const relaxedServiceNames = "RelaxedServiceNameValidation"

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

// metaName: a name at or around a rule's edges.
func (g gen) metaName() string {
	run := func(n int) string { return strings.Repeat(g.pick("a", "b", "z", "0", "9").(string), n) }
	switch g.r.IntN(8) {
	case 0, 1, 2:
		return g.pick("m", "my-app", "app.v1", "a-1", "1abc", "x").(string)
	case 3:
		return "a" + run(g.pick(51, 52, 53, 57, 58, 62, 63, 64, 252, 253, 254).(int)-1)
	case 4:
		return g.pick("My-App", "a_b", "-a", "a-", "a.", ".a", "a..b", "a.-b", ".", "..", "a/b", "a%b", "a b", "A", "a:b").(string)
	case 5:
		// dotted, some parts long
		return run(1+g.r.IntN(63)) + "." + run(1+g.r.IntN(64))
	case 6:
		return "a" + run(g.pick(49, 50, 51, 52, 60, 61).(int)) + g.pick("", "-", "x", ".", "-1").(string)
	default:
		return "app-" + run(g.r.IntN(70))
	}
}

// metaKey: a label or annotation key: prefixed or not, at the length limits, malformed.
func (g gen) metaKey() string {
	switch g.r.IntN(9) {
	case 0, 1, 2:
		return g.pick("app", "tier", "example.com/team", "app.kubernetes.io/name", "Team", "a_b", "a.b").(string)
	case 3:
		return g.pick("", "/a", "a/", "a/b/c", "-a", "a-", "Example.com/x", "ex_ample.com/x", "a b", ".a", "a.").(string)
	case 4:
		return strings.Repeat("k", g.pick(62, 63, 64).(int))
	case 5:
		return strings.Repeat("p", g.pick(1, 63, 64).(int)) + "." + strings.Repeat("q", g.pick(180, 189, 190, 200).(int)) + "/k"
	case 6:
		return "example.com/" + strings.Repeat("n", g.pick(63, 64).(int))
	case 7:
		return "x.io/" + g.pick("", "-", "A", "a..b", "a.b").(string)
	default:
		return "example.com/" + g.pick("Key", "k-1", "k_1", "k.1").(string)
	}
}

func (g gen) labelValue() string {
	switch g.r.IntN(6) {
	case 0, 1:
		return g.pick("v", "v1.2", "My_Value", "", "0").(string)
	case 2:
		return strings.Repeat("v", g.pick(62, 63, 64, 100).(int))
	case 3:
		return g.pick("-v", "v-", "v/1", "v 1", ".v", "v:1", "_v").(string)
	default:
		return "value-" + fmt.Sprint(g.r.IntN(100))
	}
}

func (g gen) ownerReference() map[string]any {
	r := map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "0a1b"}
	for _, k := range []string{"apiVersion", "kind", "name", "uid"} {
		if g.chance(0.12) {
			delete(r, k)
		}
	}
	if g.chance(0.15) {
		r["apiVersion"] = g.pick("", "/", "apps/", "a/b/c", "v1", "batch/v1").(string)
	}
	if g.chance(0.2) {
		r["controller"] = g.chance(0.7)
	}
	return r
}

// objectMeta: metadata around every rule's edges; now and then nothing wrong.
func (g gen) objectMeta() map[string]any {
	m := map[string]any{}
	switch g.r.IntN(10) {
	case 0:
		m["generateName"] = g.metaName()
	case 1:
		m["generateName"] = g.metaName()
		m["name"] = g.metaName()
	case 2:
		// neither: Required
	default:
		m["name"] = g.metaName()
	}
	switch g.r.IntN(5) {
	case 0:
		// kubectl fills the context namespace
	case 1:
		m["namespace"] = g.pick("Bad", "a.b", "kube-system", "-a", strings.Repeat("n", 63), strings.Repeat("n", 64)).(string)
	default:
		m["namespace"] = "default"
	}
	if g.chance(0.5) {
		labels := map[string]any{}
		for range 1 + g.r.IntN(3) {
			labels[g.metaKey()] = g.labelValue()
		}
		m["labels"] = labels
	}
	if g.chance(0.35) {
		ann := map[string]any{}
		for range 1 + g.r.IntN(3) {
			ann[g.metaKey()] = g.labelValue()
		}
		if g.chance(0.06) {
			// around the 256 KiB total
			ann["big"] = strings.Repeat("x", 256*1024-g.pick(3, 20, 40).(int))
		}
		m["annotations"] = ann
	}
	if g.chance(0.25) {
		var fs []any
		for range 1 + g.r.IntN(3) {
			fs = append(fs, g.pick("kubernetes", "orphan", "foregroundDeletion", "example.com/cleanup", "cleanup", "a/b/c", "Example.com/x", "x.io/-a", "kubernetes.io/pv-protection", "").(string))
		}
		m["finalizers"] = fs
	}
	if g.chance(0.2) {
		var rs []any
		for range 1 + g.r.IntN(3) {
			rs = append(rs, g.ownerReference())
		}
		m["ownerReferences"] = rs
	}
	if g.chance(0.05) {
		m["generation"] = g.pick(-1, 0, 3).(int)
	}
	if g.chance(0.1) {
		return map[string]any{"name": "ok", "labels": map[string]any{"app": "m"}}
	}
	return m
}

func (g gen) validateObjectMeta() map[string]any {
	var obj map[string]any
	if i := g.r.IntN(len(metaKindNames) + len(crKindNames)); i < len(metaKindNames) {
		kind := metaKindNames[i]
		obj = metaKinds[kind].body()
		obj["apiVersion"], obj["kind"] = metaKinds[kind].apiVersion, kind
	} else {
		kind := crKindNames[i-len(metaKindNames)]
		obj = crKinds[kind].body()
		obj["apiVersion"], obj["kind"] = crKinds[kind].apiVersion, kind
	}
	obj["metadata"] = g.objectMeta()
	in := map[string]any{"object": obj}
	if g.chance(0.5) {
		in["featureGates"] = map[string]bool{relaxedServiceNames: g.chance(0.5)}
	}
	return in
}

// ---------------------------------------------------------------------------------------------
// Upstream.
// ---------------------------------------------------------------------------------------------

// prepareObjectMeta keeps the case's gate only where the linked release lets it be set.
func prepareObjectMeta(raw []byte) ([]byte, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	var gates map[string]bool
	if b, ok := in["featureGates"]; ok {
		_ = json.Unmarshal(b, &gates)
	}
	for k := range gates {
		if !settableGate(k) {
			delete(gates, k)
		}
	}
	if len(gates) == 0 {
		delete(in, "featureGates")
	} else {
		in["featureGates"] = mustJSON(gates)
	}
	return json.Marshal(in)
}

// admitForMeta: what the API server holds right before the strategy's Validate, and the name it
// generated (empty when none was).
func admitForMeta(k metaKind, obj []byte) (runtime.Object, string, error) {
	ext := k.external()
	if err := json.Unmarshal(obj, ext); err != nil {
		return nil, "", err
	}
	legacyscheme.Scheme.Default(ext)
	in := k.internal()
	if err := legacyscheme.Scheme.Convert(ext, in, nil); err != nil {
		return nil, "", err
	}
	m, err := meta.Accessor(in)
	if err != nil {
		return nil, "", err
	}
	generated := ""
	if m.GetGenerateName() != "" && m.GetName() == "" {
		generated = k.strategy.GenerateName(m.GetGenerateName())
		m.SetName(generated)
	}
	if k.strategy.NamespaceScoped() {
		if m.GetNamespace() == "" {
			m.SetNamespace("default")
		}
	} else {
		m.SetNamespace("")
	}
	m.SetUID(types.UID("1a2b3c"))
	k.strategy.PrepareForCreate(ctxNSOf(m.GetNamespace()), in)
	return in, generated, nil
}

// metaField: the errors this leg compares.
func metaField(f string) bool {
	return strings.HasPrefix(f, "metadata") || f == "spec.template.labels"
}

func upstreamObjectMeta(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	if settableGate(relaxedServiceNames) {
		v, ok := in.FeatureGates[relaxedServiceNames]
		if !ok {
			v = releaseDefaults[relaxedServiceNames]
		}
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{relaxedServiceNames: v}); err != nil {
			return nil, err
		}
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	var errs field.ErrorList
	var generated string
	if _, ok := crKinds[kind.Kind]; ok {
		errs, generated, err = upstreamCustomResourceMeta(kind.Kind, in.Object)
		if err != nil {
			return nil, err
		}
	} else {
		k, ok := metaKinds[kind.Kind]
		if !ok {
			return nil, fmt.Errorf("kind %q", kind.Kind)
		}
		var obj runtime.Object
		obj, generated, err = admitForMeta(k, in.Object)
		if err != nil {
			return nil, err
		}
		m, _ := meta.Accessor(obj)
		errs = k.strategy.Validate(ctxNSOf(m.GetNamespace()), obj)
	}
	var kept field.ErrorList
	for _, e := range errs {
		if !metaField(e.Field) {
			return nil, fmt.Errorf("objectmeta: body not valid for %s: %s", kind.Kind, e.Error())
		}
		kept = append(kept, e)
	}
	exp := errorsExpect(kept)
	msgs := []any{}
	for _, e := range kept {
		switch v := e.BadValue.(type) {
		case string:
			if generated != "" && strings.Contains(v, generated) {
				msgs = append(msgs, e.Detail)
			} else {
				msgs = append(msgs, e.Error())
			}
		case int64, int, int32, nil:
			msgs = append(msgs, e.Error())
		default:
			// A struct or a list, printed with Go's %#v (owner references, finalizer lists):
			// compared by field and type only.
		}
	}
	if len(msgs) > 0 {
		exp["errorMessages"] = msgs
	}
	return exp, nil
}

// ctxNSOf: a request in namespace ns ("" for a cluster-scoped kind).
func ctxNSOf(ns string) context.Context {
	return genericapirequest.WithNamespace(context.Background(), ns)
}
