package knowledge

import "strings"

// identityFree maps "pkg.Func" and "pkg.Type.Method" to true for APIs
// whose errors never match context.Canceled or context.DeadlineExceeded
// under errors.Is, though their bodies do not show it to a per-function
// analysis: a cancellation reaches the caller converted (a gRPC status
// with codes.Canceled, an aws-sdk-go v1 awserr.Error "RequestCanceled"),
// with no Unwrap to the context's error. Formatting such an error with %v
// instead of %w loses no identity errors.Is could see.
var identityFree = map[string]bool{
	// "All errors returned by Invoke are compatible with the status
	// package" (grpc-go ClientConnInterface); the streams' methods return
	// status errors or io.EOF.
	"google.golang.org/grpc.ClientConnInterface.Invoke":    true,
	"google.golang.org/grpc.ClientConnInterface.NewStream": true,
	"google.golang.org/grpc.ClientConn.Invoke":             true,
	"google.golang.org/grpc.ClientConn.NewStream":          true,
	"google.golang.org/grpc.Invoke":                        true,
	"google.golang.org/grpc.ClientStream.RecvMsg":          true,
	"google.golang.org/grpc.ClientStream.SendMsg":          true,
	"google.golang.org/grpc.ClientStream.CloseSend":        true,
	"google.golang.org/grpc.ClientStream.Header":           true,
	"google.golang.org/grpc.ServerStream.RecvMsg":          true,
	"google.golang.org/grpc.ServerStream.SendMsg":          true,
	// aws-sdk-go v1 reports a canceled request as awserr.New(
	// request.CanceledErrorCode, ...), whose type has OrigErr but no
	// Unwrap.
	"github.com/aws/aws-sdk-go/aws/request.Request.Send": true,
}

// identityFreePrefixes are import path prefixes whose every function and
// method (their service interfaces too: s3iface.S3API) returns such
// errors: aws-sdk-go v1 wraps every failure, cancellation included, in an
// awserr.Error, and nothing under aws/ has an Unwrap method (v1.55.8).
// aws-sdk-go-v2 is another path and wraps with Unwrap.
var identityFreePrefixes = []string{"github.com/aws/aws-sdk-go/service/"}

// IdentityFree reports whether the errors of the function or method named
// by pkg, typ ("" for a function) and name never match a context's error
// under errors.Is.
func IdentityFree(pkg, typ, name string) bool {
	for _, p := range identityFreePrefixes {
		if strings.HasPrefix(pkg, p) {
			return true
		}
	}
	return identityFree[key(pkg, typ, name)]
}
