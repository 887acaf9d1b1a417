// Package lease is a stub of the runtime's lease package.
package lease

import "context"

type Lease struct{ release func(context.Context) error }

func Owned(release func(ctx context.Context) error) *Lease { return &Lease{release: release} }
func (l *Lease) Release(ctx context.Context) error         { return nil }
func (l *Lease) Transfer() *Lease                          { return &Lease{} }
func (l *Lease) Owns() bool                                { return true }
