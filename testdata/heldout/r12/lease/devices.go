package lease

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Mapper maps a physical register range into memory.
type Mapper interface {
	Map(ctx context.Context, base, size int64) ([]byte, error)
}

// Board is a GPIO board whose registers are mapped lazily.
type Board struct {
	mu     sync.Mutex
	mapper Mapper
	base   int64
	size   int64
	mapped []byte
}

// Open maps the GPIO register block once.
// From: stianeikeland/go-rpio#3
// bug: leaseleak
func (b *Board) Open(ctx context.Context) error {
	b.mu.Lock()
	if b.mapped != nil {
		b.mu.Unlock()
		return nil
	}
	regs, err := b.mapper.Map(ctx, b.base, b.size)
	if err != nil {
		return fmt.Errorf("map gpio registers: %w", err)
	}
	b.mapped = regs
	b.mu.Unlock()
	return nil
}

// OpenNearMiss releases the lock on every path.
// ok: leaseleak
func (b *Board) OpenNearMiss(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mapped != nil {
		return nil
	}
	regs, err := b.mapper.Map(ctx, b.base, b.size)
	if err != nil {
		return fmt.Errorf("map gpio registers: %w", err)
	}
	b.mapped = regs
	return nil
}

// ErrBufferFull is returned when every buffering slot is in use.
var ErrBufferFull = errors.New("buffer: all slots in use")

// FailoverBuffer holds requests while a shard fails over.
type FailoverBuffer struct {
	slots chan struct{}
	mu    sync.Mutex
	done  chan struct{}
}

// failoverDone returns the channel closed when the current failover ends.
// ok: leaseleak
func (b *FailoverBuffer) failoverDone() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done
}

// WaitForFailoverEnd takes a buffer slot and blocks until the failover ends.
// The returned func gives the slot back once the request has been retried.
// From: vitessio/vitess#2599
// bug: leaseleak
func (b *FailoverBuffer) WaitForFailoverEnd(ctx context.Context) (func(), error) {
	select {
	case b.slots <- struct{}{}:
	default:
		return nil, ErrBufferFull
	}
	select {
	case <-b.failoverDone():
		return func() { <-b.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// WaitForFailoverEndNearMiss gives the slot back when the request is canceled.
// ok: leaseleak
func (b *FailoverBuffer) WaitForFailoverEndNearMiss(ctx context.Context) (func(), error) {
	select {
	case b.slots <- struct{}{}:
	default:
		return nil, ErrBufferFull
	}
	select {
	case <-b.failoverDone():
		return func() { <-b.slots }, nil
	case <-ctx.Done():
		<-b.slots
		return nil, ctx.Err()
	}
}

// ErrTooLarge is returned for files above the editor's size limit.
var ErrTooLarge = errors.New("file too large to open")

// TextBuffer is an in-memory copy of a file.
type TextBuffer struct {
	Path string
	Data []byte
}

// readAllCtx reads r in chunks, stopping early if ctx is done.
// ok: leaseleak
func readAllCtx(ctx context.Context, r io.Reader) ([]byte, error) {
	var out []byte
	buf := make([]byte, 32*1024)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// LoadBuffer opens path and reads it into a buffer.
// From: micro-editor/micro#1958
// bug: leaseleak
func LoadBuffer(ctx context.Context, path string, limit int64) (*TextBuffer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, ErrTooLarge
	}
	data, err := readAllCtx(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &TextBuffer{Path: path, Data: data}, nil
}

// LoadBufferNearMiss closes the file as soon as it is open.
// ok: leaseleak
func LoadBufferNearMiss(ctx context.Context, path string, limit int64) (*TextBuffer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if info.Size() > limit {
		return nil, ErrTooLarge
	}
	data, err := readAllCtx(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &TextBuffer{Path: path, Data: data}, nil
}

// Device is a raw serial device handle.
type Device interface {
	SetAttr(opt string) error
	Drain(ctx context.Context) error
	Close() error
}

// DeviceOpener opens serial device nodes.
type DeviceOpener interface {
	OpenDevice(ctx context.Context, name string) (Device, error)
}

// Port is an opened, configured serial port. Callers must Close it.
type Port struct {
	name string
	dev  Device
}

// Driver hands out serial ports.
type Driver struct {
	opener DeviceOpener
}

// OpenPort opens the named port without configuring it.
// ok: leaseleak
func (d *Driver) OpenPort(ctx context.Context, name string) (*Port, error) {
	dev, err := d.opener.OpenDevice(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return &Port{name: name, dev: dev}, nil
}

// Configure applies line options to the port.
// ok: leaseleak
func (p *Port) Configure(opts ...string) error {
	for _, o := range opts {
		if err := p.dev.SetAttr(o); err != nil {
			return fmt.Errorf("%s: set %s: %w", p.name, o, err)
		}
	}
	return nil
}

// Close releases the device handle.
// ok: leaseleak
func (p *Port) Close() error {
	return p.dev.Close()
}

// Connect opens, configures and drains a port for use.
// From: pkg/term#68
// bug: leaseleak
func (d *Driver) Connect(ctx context.Context, name string, opts ...string) (*Port, error) {
	p, err := d.OpenPort(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := p.Configure(opts...); err != nil {
		return nil, fmt.Errorf("configure: %w", err)
	}
	if err := p.dev.Drain(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("drain %s: %w", name, err)
	}
	return p, nil
}

// ConnectNearMiss closes the port on every failure after it was opened.
// ok: leaseleak
func (d *Driver) ConnectNearMiss(ctx context.Context, name string, opts ...string) (*Port, error) {
	p, err := d.OpenPort(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := p.Configure(opts...); err != nil {
		p.Close()
		return nil, fmt.Errorf("configure: %w", err)
	}
	if err := p.dev.Drain(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("drain %s: %w", name, err)
	}
	return p, nil
}
