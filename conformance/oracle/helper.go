package main

// Upstream code that cannot share this module's build (OpenKruise, sigs.k8s.io/jobset: each a
// release with Kubernetes client libraries and controller-runtime pins of its own) runs as a
// helper process built from its own module, kept running and asked in JSON lines.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

type helper struct {
	in      io.WriteCloser
	out     *bufio.Scanner
	version string
}

func startHelper(path string) (*helper, error) {
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	return &helper{in: in, out: sc}, nil
}

// send writes one request line.
func (h *helper) send(req any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	_, err = h.in.Write(append(b, '\n'))
	return err
}

// receive reads one answer line into ans.
func (h *helper) receive(ans any) error {
	if !h.out.Scan() {
		if err := h.out.Err(); err != nil {
			return err
		}
		return errors.New("the helper stopped")
	}
	if err := json.Unmarshal(h.out.Bytes(), ans); err != nil {
		return fmt.Errorf("the helper answered %q: %v", h.out.Text(), err)
	}
	return nil
}

// call sends one request and reads its answer.
func (h *helper) call(req, ans any) error {
	if err := h.send(req); err != nil {
		return err
	}
	return h.receive(ans)
}
