module eval

go 1.26

require (
	github.com/cenkalti/backoff/v4 v4.0.0
	golang.org/x/sync v0.0.0
)

replace golang.org/x/sync => ../golang.org/x/sync

replace github.com/cenkalti/backoff/v4 => ../github.com/cenkalti/backoff/v4
