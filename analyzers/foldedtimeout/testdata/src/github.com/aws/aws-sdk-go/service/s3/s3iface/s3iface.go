// Package s3iface is a stub of aws-sdk-go v1's S3 client interface.
package s3iface

import "context"

type S3API interface {
	GetObjectWithContext(ctx context.Context, key string) (*string, error)
}
