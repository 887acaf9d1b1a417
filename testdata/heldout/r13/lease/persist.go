package lease

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
)

// ContainerState is the persisted state of one container.
type ContainerState struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// StateFS persists sandbox state under a root directory.
type StateFS struct {
	root string
}

// containerFiles yields the state file path of each container.
// ok: leaseleak
func (fs *StateFS) containerFiles(ids []string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, id := range ids {
			if !yield(id, filepath.Join(fs.root, id, "state.json")) {
				return
			}
		}
	}
}

// FromDisk loads every container's state. If decoding fails it returns
// before cf.Close, leaking the file descriptor.
// From: kata-containers/runtime#2233
// bug: leaseleak
func (fs *StateFS) FromDisk(ctx context.Context, ids []string) (map[string]ContainerState, error) {
	out := make(map[string]ContainerState, len(ids))
	for id, path := range fs.containerFiles(ids) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cf, err := os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", id, err)
		}
		var st ContainerState
		if err := json.NewDecoder(cf).Decode(&st); err != nil {
			return nil, fmt.Errorf("decode %s: %w", id, err)
		}
		if err := cf.Close(); err != nil {
			return nil, fmt.Errorf("close %s: %w", id, err)
		}
		out[id] = st
	}
	return out, nil
}

// FromDiskNearMiss closes the file on the decode error path too.
// ok: leaseleak
func (fs *StateFS) FromDiskNearMiss(ctx context.Context, ids []string) (map[string]ContainerState, error) {
	out := make(map[string]ContainerState, len(ids))
	for id, path := range fs.containerFiles(ids) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cf, err := os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", id, err)
		}
		var st ContainerState
		if err := json.NewDecoder(cf).Decode(&st); err != nil {
			_ = cf.Close()
			return nil, fmt.Errorf("decode %s: %w", id, err)
		}
		if err := cf.Close(); err != nil {
			return nil, fmt.Errorf("close %s: %w", id, err)
		}
		out[id] = st
	}
	return out, nil
}
