package a

import (
	"context"
	"log/slog"
	"os/exec"
)

// proc is built with or without a context: newProc leaves ctx nil, so
// its methods cannot use it in place of context.Background().
type proc struct {
	ctx    context.Context
	logger *slog.Logger
	cmd    *exec.Cmd
}

func newProc(logger *slog.Logger, bin string) *proc {
	return &proc{ctx: nil, logger: logger, cmd: exec.Command(bin)}
}

func newProcContext(ctx context.Context, logger *slog.Logger, bin string) *proc {
	return &proc{ctx: ctx, logger: logger, cmd: exec.CommandContext(ctx, bin)}
}

func (p *proc) start() error {
	p.logger.DebugContext(context.Background(), "start")
	return p.cmd.Start()
}

// job is tested against nil before its context is used.
type job struct {
	ctx    context.Context
	logger *slog.Logger
}

func (j *job) finish() {
	if j.ctx == nil {
		j.logger.InfoContext(context.Background(), "finished without a context")
		return
	}
	j.logger.InfoContext(j.ctx, "finished")
}

// Near-miss: task always holds a context, so Background drops its values.
type task struct {
	ctx    context.Context
	logger *slog.Logger
}

func newTask(ctx context.Context, logger *slog.Logger) *task {
	return &task{ctx: ctx, logger: logger}
}

func (t *task) run() {
	t.logger.InfoContext(context.Background(), "run") // want `context.Background\(\) passed to t.logger.InfoContext in run drops the values of t.ctx`
}
