package retry

import (
	"context"
	"log/slog"
	"time"
)

// WatchdogDevice is /dev/watchdog.
type WatchdogDevice interface {
	KeepAlive() error
	MagicClose() error
}

// WatchdogDaemon pets the hardware watchdog.
type WatchdogDaemon struct {
	dev         WatchdogDevice
	petInterval time.Duration
	ops         chan func(WatchdogDevice) error
	log         *slog.Logger
}

// Run pets the watchdog every interval and applies queued operations; when
// ctx ends it disarms the device with the magic close.
//
// From: u-root/u-root#3350
// bug: retrycancel
func (d *WatchdogDaemon) Run(ctx context.Context) {
	t := time.NewTicker(d.petInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := d.dev.MagicClose(); err != nil {
				d.log.Warn("watchdog magic close failed", "err", err)
			}
		case <-t.C:
			if err := d.dev.KeepAlive(); err != nil {
				d.log.Warn("watchdog keepalive failed", "err", err)
			}
		case op := <-d.ops:
			if err := op(d.dev); err != nil {
				d.log.Warn("watchdog op failed", "err", err)
			}
		}
	}
}

// RunNearMiss returns after the cleanup.
//
// ok: retrycancel
func (d *WatchdogDaemon) RunNearMiss(ctx context.Context) {
	t := time.NewTicker(d.petInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := d.dev.MagicClose(); err != nil {
				d.log.Warn("watchdog magic close failed", "err", err)
			}
			return
		case <-t.C:
			if err := d.dev.KeepAlive(); err != nil {
				d.log.Warn("watchdog keepalive failed", "err", err)
			}
		case op := <-d.ops:
			if err := op(d.dev); err != nil {
				d.log.Warn("watchdog op failed", "err", err)
			}
		}
	}
}
