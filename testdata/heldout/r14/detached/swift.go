package detached

import (
	"context"
	"encoding/json"
	"time"
)

// CommandRunner runs a local tool.
type CommandRunner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Metric is one exported sample.
type Metric struct {
	Name  string
	Value float64
}

// dispersionReport is the JSON printed by swift-dispersion-report.
type dispersionReport struct {
	Object struct {
		Copies   float64 `json:"copies_found"`
		Expected float64 `json:"copies_expected"`
	} `json:"object"`
}

// DispersionCollector exports swift dispersion numbers.
type DispersionCollector struct {
	runner  CommandRunner
	timeout time.Duration
}

// collect runs the dispersion report with a per-run timeout and emits its
// numbers.
//
// From: sapcc/swift-health-exporter#159
// bug: detachedctx
func (c *DispersionCollector) collect(ctx context.Context, emit func(Metric)) error {
	out, err := func() ([]byte, error) {
		cctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		defer cancel()
		return c.runner.Run(cctx, "swift-dispersion-report", "-j")
	}()
	if err != nil {
		return err
	}
	var rep dispersionReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return err
	}
	emit(Metric{Name: "swift_dispersion_object_copies_found", Value: rep.Object.Copies})
	emit(Metric{Name: "swift_dispersion_object_copies_expected", Value: rep.Object.Expected})
	return nil
}

// collectNearMiss derives the per-run timeout from ctx.
//
// ok: detachedctx
func (c *DispersionCollector) collectNearMiss(ctx context.Context, emit func(Metric)) error {
	out, err := func() ([]byte, error) {
		cctx, cancel := context.WithTimeout(ctx, c.timeout)
		defer cancel()
		return c.runner.Run(cctx, "swift-dispersion-report", "-j")
	}()
	if err != nil {
		return err
	}
	var rep dispersionReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return err
	}
	emit(Metric{Name: "swift_dispersion_object_copies_found", Value: rep.Object.Copies})
	emit(Metric{Name: "swift_dispersion_object_copies_expected", Value: rep.Object.Expected})
	return nil
}
