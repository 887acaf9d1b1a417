// Package e2e is the golangci-lint end-to-end fixture.
package e2e

//cancelcheck:ignore swallowcancell a typo in the check name
func Misspelt() {}

// Legacy is excluded with golangci-lint's own directive.
//
//nolint:cancelcheck // legacy code, cleaned up later
func Legacy() {
	//cancelcheck:ignore swallowcancell silenced by the nolint above
}
