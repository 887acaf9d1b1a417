package swallow

import (
	"context"
	"fmt"
	"log"
	"time"
)

// BotTransport performs one Bot API call.
type BotTransport interface {
	Do(ctx context.Context, method string, payload []byte) ([]byte, error)
}

// APIResponse is a decoded Bot API reply.
type APIResponse struct {
	Raw []byte
	OK  bool
}

// BotClient calls the chat Bot API.
type BotClient struct {
	transport BotTransport
	calls     int
}

// decodeResponse wraps the raw reply.
// ok: swallowcancel
func decodeResponse(raw []byte) *APIResponse {
	return &APIResponse{Raw: raw, OK: len(raw) > 0}
}

// Post performs the request on a helper goroutine and waits for it.
// From: yanzay/tbot#78
// bug: swallowcancel
func (c *BotClient) Post(ctx context.Context, method string, payload []byte) (*APIResponse, error) {
	var (
		resp *APIResponse
		err  error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		raw, err := c.transport.Do(ctx, method, payload)
		if err != nil {
			return
		}
		resp = decodeResponse(raw)
	}()
	<-done
	c.calls++
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return resp, nil
}

// PostNearMiss assigns the goroutine's error to the variable checked after it.
// ok: swallowcancel
func (c *BotClient) PostNearMiss(ctx context.Context, method string, payload []byte) (*APIResponse, error) {
	var (
		resp *APIResponse
		err  error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var raw []byte
		raw, err = c.transport.Do(ctx, method, payload)
		if err != nil {
			return
		}
		resp = decodeResponse(raw)
	}()
	<-done
	c.calls++
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return resp, nil
}

// DiskSpec describes a disk to create.
type DiskSpec struct {
	Name   string
	SizeGB int
}

// Disk is a provisioned disk.
type Disk struct {
	Name   string
	SizeGB int
	OpID   string
}

// ComputeAPI is the management API for disks.
type ComputeAPI interface {
	StartCreate(ctx context.Context, spec DiskSpec) (string, error)
	WaitForOperation(ctx context.Context, opID string) error
}

// DiskManager provisions disks.
type DiskManager struct {
	api ComputeAPI
	log *log.Logger
}

// CreateDisk starts the create operation and waits for it to finish.
// From: Azure/azure-sdk-for-go#43
// bug: swallowcancel
func (m *DiskManager) CreateDisk(ctx context.Context, spec DiskSpec) (*Disk, error) {
	opID, err := m.api.StartCreate(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("start create %s: %w", spec.Name, err)
	}
	if err := m.api.WaitForOperation(ctx, opID); err != nil {
		m.log.Printf("create %s: waiting for operation %s: %v", spec.Name, opID, err)
	}
	return &Disk{Name: spec.Name, SizeGB: spec.SizeGB, OpID: opID}, nil
}

// CreateDiskNearMiss fails when the operation wait fails.
// ok: swallowcancel
func (m *DiskManager) CreateDiskNearMiss(ctx context.Context, spec DiskSpec) (*Disk, error) {
	opID, err := m.api.StartCreate(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("start create %s: %w", spec.Name, err)
	}
	if err := m.api.WaitForOperation(ctx, opID); err != nil {
		return nil, fmt.Errorf("create %s: waiting for operation %s: %w", spec.Name, opID, err)
	}
	return &Disk{Name: spec.Name, SizeGB: spec.SizeGB, OpID: opID}, nil
}

// Step is one pipeline step.
type Step struct {
	Name     string
	Image    string
	Finished time.Time
}

// Runtime runs step containers.
type Runtime interface {
	RunContainer(ctx context.Context, s *Step) error
}

// StepReport records local step bookkeeping.
type StepReport interface {
	Record(s *Step) error
}

// Executor runs pipeline steps.
type Executor struct {
	runtime Runtime
	report  StepReport
}

// ExecStep runs the step container and records that it finished.
// From: go-vela/worker#464
// bug: swallowcancel
func (e *Executor) ExecStep(ctx context.Context, step *Step) error {
	err := e.runtime.RunContainer(ctx, step)
	step.Finished = time.Now()
	err = e.report.Record(step)
	if err != nil {
		return fmt.Errorf("record step %s: %w", step.Name, err)
	}
	return nil
}

// ExecStepNearMiss keeps the container error separate from the bookkeeping error.
// ok: swallowcancel
func (e *Executor) ExecStepNearMiss(ctx context.Context, step *Step) error {
	runErr := e.runtime.RunContainer(ctx, step)
	step.Finished = time.Now()
	if err := e.report.Record(step); err != nil {
		return fmt.Errorf("record step %s: %w", step.Name, err)
	}
	if runErr != nil {
		return fmt.Errorf("run step %s: %w", step.Name, runErr)
	}
	return nil
}
