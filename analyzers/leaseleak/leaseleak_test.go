package leaseleak_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/leaseleak"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

func TestLeaseLeak(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), leaseleak.Analyzer, "cancels", "bodies", "sqls", "files", "locks", "spans", "timersold", "timersnew", "handoff", "mainpkg", "afterdone", "inferred", "libdb", "deferloop", "releasectx")
}

// TestFacts checks the ownership facts of package lib and their use in
// package app.
func TestFacts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), ownership.Analyzer, "lib")
	analysistest.Run(t, analysistest.TestData(), leaseleak.Analyzer, "app")
}

// TestConfig checks user leases named in the configuration.
func TestConfig(t *testing.T) {
	a := leaseleak.New(leaseleak.Config{Leases: []leaseleak.Lease{
		{Acquire: "(*example.com/pool.Pool).Get", Release: "Put"},
		{Acquire: "example.com/pool.Borrow", Release: "Put"},
	}})
	analysistest.Run(t, analysistest.TestData(), a, "userlease")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), leaseleak.Analyzer, "fixes")
}

// TestTests checks that _test.go files are skipped unless the tests
// setting is on.
func TestTests(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), leaseleak.Analyzer, "testfilesoff")
	analysistest.Run(t, analysistest.TestData(), leaseleak.New(leaseleak.Config{Tests: true}), "testfiles")
}
