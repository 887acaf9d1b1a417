// Package status is a stub of google.golang.org/grpc/status.
package status

import "google.golang.org/grpc/codes"

func Code(err error) codes.Code { return codes.OK }
