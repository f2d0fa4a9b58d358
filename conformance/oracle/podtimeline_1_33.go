//go:build k8s_before_1_34 && !k8s_before_1_33

package main

// The Pod timeline leg's shims for 1.33 (podtimeline_1_37.go has the notes): as 1.34, and newFakeKubeRuntimeManager without a context, SetPodStatus without a logger, the back-off key GetStableKey (helpers.go:181).

import (
	"context"
	"unsafe"

	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	internalapi "k8s.io/cri-api/pkg/apis"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	kubepod "k8s.io/kubernetes/pkg/kubelet/pod"
	"k8s.io/kubernetes/pkg/kubelet/status"
	kubeletutil "k8s.io/kubernetes/pkg/kubelet/util"
)

// newFakeKubeRuntimeManager: pkg/kubelet/kuberuntime/fake_kuberuntime_manager.go:99 (a non-test
// file: in the package archive).
//
//go:linkname newFakeRM k8s.io/kubernetes/pkg/kubelet/kuberuntime.newFakeKubeRuntimeManager
func newFakeRM(rs internalapi.RuntimeService, is internalapi.ImageManagerService, mi unsafe.Pointer, osi kubecontainer.OSInterface, rh kubecontainer.RuntimeHelper, tr trace.Tracer) (*kgrm, error)

// SyncPod: kuberuntime_manager.go:1583.
//
//go:linkname rmSyncPod k8s.io/kubernetes/pkg/kubelet/kuberuntime.(*kubeGenericRuntimeManager).SyncPod
func rmSyncPod(m *kgrm, ctx context.Context, pod *corev1.Pod, st *kubecontainer.PodStatus, secrets []corev1.Secret, bo *flowcontrol.Backoff) kubecontainer.PodSyncResult

// GetPodStatus: kuberuntime_manager.go:2167 (from 1.36 it takes the runtime Pod).
//
//go:linkname rmGetPodStatus k8s.io/kubernetes/pkg/kubelet/kuberuntime.(*kubeGenericRuntimeManager).GetPodStatus
func rmGetPodStatus(m *kgrm, ctx context.Context, uid types.UID, name, ns string) (*kubecontainer.PodStatus, error)

// GetPods: kuberuntime_manager.go:463.
//
//go:linkname rmGetPods k8s.io/kubernetes/pkg/kubelet/kuberuntime.(*kubeGenericRuntimeManager).GetPods
func rmGetPods(m *kgrm, ctx context.Context, all bool) ([]*kubecontainer.Pod, error)

// KillPod: kuberuntime_manager.go:2115.
//
//go:linkname rmKillPod k8s.io/kubernetes/pkg/kubelet/kuberuntime.(*kubeGenericRuntimeManager).KillPod
func rmKillPod(m *kgrm, ctx context.Context, pod *corev1.Pod, rp kubecontainer.Pod, grace *int64) error

// generateAPIPodStatus: pkg/kubelet/kubelet_pods.go:1910 (with a context from 1.36).
//
//go:linkname klGenStatus k8s.io/kubernetes/pkg/kubelet.(*Kubelet).generateAPIPodStatus
func klGenStatus(kl *kubelet.Kubelet, pod *corev1.Pod, st *kubecontainer.PodStatus, terminal bool) corev1.PodStatus

func newRuntimeManager(_ context.Context, rs internalapi.RuntimeService, is internalapi.ImageManagerService, osi kubecontainer.OSInterface, rh kubecontainer.RuntimeHelper, tr trace.Tracer, _ *record.FakeRecorder) (*kgrm, error) {
	// createTestRuntimeManager (kuberuntime_manager_test.go:94): 32 GiB of memory.
	return newFakeRM(rs, is, machineInfo(), osi, rh, tr)
}

func rmSync(m *kgrm, ctx context.Context, pod *corev1.Pod, st *kubecontainer.PodStatus, bo *flowcontrol.Backoff, restartAll bool) kubecontainer.PodSyncResult {
	return rmSyncPod(m, ctx, pod, st, nil, bo)
}

// rmPodStatus: the runtime's status of the Pod, as the kubelet's pod cache reads it (the
// runtime Pod from GetPods, or an empty one before the sandbox exists).
func rmPodStatus(m *kgrm, ctx context.Context, uid types.UID, name, ns string) (*kubecontainer.PodStatus, error) {
	return rmGetPodStatus(m, ctx, uid, name, ns)
}

func genStatus(kl *kubelet.Kubelet, ctx context.Context, pod *corev1.Pod, st *kubecontainer.PodStatus, terminal bool) corev1.PodStatus {
	return klGenStatus(kl, pod, st, terminal)
}

// newStatusManager: status.NewManager (status_manager.go:218) with no API client (the harness
// reads the cache; nothing is sent).
func newStatusManager() status.Manager {
	return status.NewManager(nil, kubepod.NewBasicPodManager(), noDeletionSafety{}, kubeletutil.NewPodStartupLatencyTracker())
}

func setPodStatus(sm status.Manager, pod *corev1.Pod, s corev1.PodStatus) {
	sm.SetPodStatus(pod, s)
}

func newFakeContainerManager() cm.ContainerManager {
	return cm.NewFakeContainerManager()
}

// backoffKey: the CrashLoopBackOff key doBackOff uses (kuberuntime_manager.go:2096; helpers.go:193).
func backoffKey(pod *corev1.Pod, c *corev1.Container) string {
	return kuberuntime.GetStableKey(pod, c)
}
