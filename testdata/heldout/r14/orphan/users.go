package orphan

import (
	"context"
	"fmt"
	"sync"
)

// User is an account summary.
type User struct {
	ID          string
	Name        string
	PolicyCount int
}

// PolicyStore counts a user's policies.
type PolicyStore interface {
	CountPolicies(ctx context.Context, userID string) (int, error)
}

// UserService lists users with their policy counts.
type UserService struct {
	policies PolicyStore
}

// List fills in the policy count of every user concurrently and returns the
// first error any lookup reports.
//
// From: marmotedu/iam#69
// bug: orphansend
func (s *UserService) List(ctx context.Context, users []User) ([]User, error) {
	var wg sync.WaitGroup
	errChan := make(chan error, 1)
	finished := make(chan struct{})
	out := make([]User, len(users))
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.policies.CountPolicies(ctx, u.ID)
			if err != nil {
				errChan <- fmt.Errorf("user %s: %w", u.ID, err)
				return
			}
			u.PolicyCount = n
			out[i] = u
		}()
	}
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		return out, nil
	case err := <-errChan:
		return nil, err
	}
}

// ListNearMiss gives every lookup a slot for its error.
//
// ok: orphansend
func (s *UserService) ListNearMiss(ctx context.Context, users []User) ([]User, error) {
	var wg sync.WaitGroup
	errChan := make(chan error, len(users))
	finished := make(chan struct{})
	out := make([]User, len(users))
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.policies.CountPolicies(ctx, u.ID)
			if err != nil {
				errChan <- fmt.Errorf("user %s: %w", u.ID, err)
				return
			}
			u.PolicyCount = n
			out[i] = u
		}()
	}
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		select {
		case err := <-errChan:
			return nil, err
		default:
		}
		return out, nil
	case err := <-errChan:
		return nil, err
	}
}
