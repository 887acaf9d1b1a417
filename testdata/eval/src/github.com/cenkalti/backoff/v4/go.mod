module github.com/cenkalti/backoff/v4

go 1.26
