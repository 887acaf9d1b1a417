package main

import (
	"fmt"
	"os"
)

// Returning from main ends the process: nothing leaks.
func main() {
	f, err := os.Open("x")
	if err != nil {
		return
	}
	fmt.Println(f.Name())
	other()
	start()
}

func helper() error {
	f, err := os.Open("y") // want `the file f from os.Open is not closed`
	if err != nil {
		return err
	}
	fmt.Println(f.Name())
	return nil
}

// serve is main's whole body (see run.go): its return ends the process.
func serve() error {
	f, err := os.Open("z")
	if err != nil {
		return err
	}
	if f.Name() == "" {
		return nil
	}
	return nil
}

// load is called by serve and by helper: its return is not the end.
func load() error {
	f, err := os.Open("w") // want `the file f from os.Open is not closed`
	if err != nil {
		return err
	}
	fmt.Println(f.Name())
	return nil
}
