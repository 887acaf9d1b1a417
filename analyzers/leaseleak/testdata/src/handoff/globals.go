package handoff

import (
	"bufio"
	"fmt"
	"log"
	"os"
)

type logOptions struct{ logger *log.Logger }

var logOpts logOptions

// The logger kept in a package variable holds the file for the life of
// the program.
func initDebugLog(name string) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "open %s: %v\n", name, err)
		os.Exit(2)
	}
	logOpts.logger = log.New(f, "", log.LstdFlags)
}

var traceLog *log.Logger

func initTraceLog(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	traceLog = log.New(f, "trace ", 0)
	return nil
}

// Near-miss: the wrapper lives in a local variable and dies with the
// function, so nothing keeps the file.
func writeHeader(name string) error {
	f, err := os.Create(name) // want `the file f from os.Create is not closed`
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if _, err := w.WriteString("header\n"); err != nil {
		return err
	}
	return w.Flush()
}
