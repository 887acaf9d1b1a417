// Package scope is a stub of the runtime's scope package for tests.
package scope

import "context"

type Scope struct{}

func New(ctx context.Context) (*Scope, context.Context)            { return &Scope{}, ctx }
func (s *Scope) Go(name string, f func(ctx context.Context) error) {}
func (s *Scope) Wait() error                                       { return nil }
