package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"
)

// DeploymentStatus is the state of a deployment.
type DeploymentStatus string

// StatusCancelled marks a cancelled deployment.
const StatusCancelled DeploymentStatus = "CANCELLED"

// Deployment is one rollout of an application.
type Deployment struct {
	ID     string
	AppID  string
	Status DeploymentStatus
}

// ControlPlane receives deployment reports.
type ControlPlane interface {
	ReportDeploymentCompleted(ctx context.Context, id string, status DeploymentStatus, reason string, at time.Time) error
}

// Controller drives deployments on a piped agent.
type Controller struct {
	api    ControlPlane
	active map[string]*Deployment
}

// cancelDeployment marks d cancelled and reports it to the control plane.
// From: pipe-cd/pipecd#6936
// bug: foldedtimeout
func (c *Controller) cancelDeployment(ctx context.Context, d *Deployment, reason string) error {
	d.Status = StatusCancelled
	if err := c.api.ReportDeploymentCompleted(ctx, d.ID, d.Status, reason, time.Now()); err != nil {
		return fmt.Errorf("failed to report deployment %s completed: %v", d.ID, err)
	}
	delete(c.active, d.ID)
	return nil
}

// cancelDeploymentNearMiss wraps the reporting error with %w.
// ok: foldedtimeout
func (c *Controller) cancelDeploymentNearMiss(ctx context.Context, d *Deployment, reason string) error {
	d.Status = StatusCancelled
	if err := c.api.ReportDeploymentCompleted(ctx, d.ID, d.Status, reason, time.Now()); err != nil {
		return fmt.Errorf("failed to report deployment %s completed: %w", d.ID, err)
	}
	delete(c.active, d.ID)
	return nil
}

// ReceiveInput is a queue receive request.
type ReceiveInput struct {
	QueueURL    string
	MaxMessages int
	WaitSeconds int
}

// QueueMessage is a received message.
type QueueMessage struct {
	ID            string
	Body          string
	ReceiptHandle string
}

// QueueAPI is the subset of the queue service used by the consumer.
type QueueAPI interface {
	ReceiveMessage(ctx context.Context, in *ReceiveInput) ([]QueueMessage, error)
}

// Queue consumes messages from one queue.
type Queue struct {
	api  QueueAPI
	name string
	url  string
}

// Receive long-polls for up to max messages.
// From: justtrackio/gosoline#232
// bug: foldedtimeout
func (q *Queue) Receive(ctx context.Context, max int) ([]QueueMessage, error) {
	msgs, err := q.api.ReceiveMessage(ctx, &ReceiveInput{QueueURL: q.url, MaxMessages: max, WaitSeconds: 20})
	if err != nil {
		return nil, errors.New("receive from queue " + q.name + ": " + err.Error())
	}
	return msgs, nil
}

// ReceiveNearMiss wraps the service error so cancellation stays detectable.
// ok: foldedtimeout
func (q *Queue) ReceiveNearMiss(ctx context.Context, max int) ([]QueueMessage, error) {
	msgs, err := q.api.ReceiveMessage(ctx, &ReceiveInput{QueueURL: q.url, MaxMessages: max, WaitSeconds: 20})
	if err != nil {
		return nil, fmt.Errorf("receive from queue %s: %w", q.name, err)
	}
	return msgs, nil
}

// Command is one step of a task's command set.
type Command interface {
	Name() string
	Execute(ctx context.Context) error
}

// Agent runs task commands.
type Agent struct {
	logger *log.Logger
}

// runCommandSet runs cmds in order, stopping when ctx is done.
// From: evergreen-ci/evergreen#1986
// bug: foldedtimeout
func (a *Agent) runCommandSet(ctx context.Context, cmds []Command) error {
	var err error
	for _, cmd := range cmds {
		select {
		case <-ctx.Done():
			a.logger.Printf("command set canceled before %s", cmd.Name())
			return fmt.Errorf("command canceled: %w", err)
		default:
		}
		if err = cmd.Execute(ctx); err != nil {
			return fmt.Errorf("command %s failed: %w", cmd.Name(), err)
		}
	}
	return nil
}

// runCommandSetNearMiss wraps the context's own error when it stops.
// ok: foldedtimeout
func (a *Agent) runCommandSetNearMiss(ctx context.Context, cmds []Command) error {
	var err error
	for _, cmd := range cmds {
		select {
		case <-ctx.Done():
			a.logger.Printf("command set canceled before %s", cmd.Name())
			return fmt.Errorf("command canceled: %w", ctx.Err())
		default:
		}
		if err = cmd.Execute(ctx); err != nil {
			return fmt.Errorf("command %s failed: %w", cmd.Name(), err)
		}
	}
	return nil
}
