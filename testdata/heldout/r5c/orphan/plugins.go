package orphan

import (
	"fmt"
	"sync"
	"time"
)

// Plugin is one node plugin.
type Plugin interface {
	Name() string
	Start()
}

// PluginManager tracks which plugins are running.
type PluginManager struct {
	mu      sync.Mutex
	running map[string]bool
}

// markRunning records a started plugin.
// ok: orphansend
func (m *PluginManager) markRunning(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.running[name] = true
}

// StartPlugins starts every plugin and waits up to timeout until all have
// signalled. Plugins signal on an unbuffered channel; when the timer fires
// first the loop returns and every plugin that has not signalled yet blocks on
// `started <- p.Name()` forever.
// From: kubernetes/kubernetes#135751
// bug: orphansend
func (m *PluginManager) StartPlugins(plugins []Plugin, timeout time.Duration) error {
	started := make(chan string)
	for _, p := range plugins {
		go func() {
			p.Start()
			started <- p.Name()
		}()
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for remaining := len(plugins); remaining > 0; remaining-- {
		select {
		case name := <-started:
			m.markRunning(name)
		case <-t.C:
			return fmt.Errorf("%d plugins did not start within %s", remaining, timeout)
		}
	}
	return nil
}

// RestartPlugins is the near-miss of StartPlugins: the channel has one slot
// per plugin, so every signal can be delivered after the loop has given up.
// From: kubernetes/kubernetes#135751
// ok: orphansend
func (m *PluginManager) RestartPlugins(plugins []Plugin, timeout time.Duration) error {
	started := make(chan string, len(plugins))
	for _, p := range plugins {
		go func() {
			p.Start()
			started <- p.Name()
		}()
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for remaining := len(plugins); remaining > 0; remaining-- {
		select {
		case name := <-started:
			m.markRunning(name)
		case <-t.C:
			return fmt.Errorf("%d plugins did not start within %s", remaining, timeout)
		}
	}
	return nil
}
