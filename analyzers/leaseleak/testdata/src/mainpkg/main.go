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
}

func helper() error {
	f, err := os.Open("y") // want `the file f from os.Open is not closed`
	if err != nil {
		return err
	}
	fmt.Println(f.Name())
	return nil
}
