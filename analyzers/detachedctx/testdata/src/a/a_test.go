package a

import (
	"context"
	"testing"
)

func helper(ctx context.Context) error { return fetch(context.Background(), "t") }

func TestX(t *testing.T) { _ = helper(context.Background()) }
