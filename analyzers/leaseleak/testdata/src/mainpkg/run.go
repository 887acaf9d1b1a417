package main

import (
	"log"
	"os"
)

func init() {
	if len(os.Args) > 5 {
		_ = helper()
	}
}

// start runs serve as the last thing main's callee does.
func start() {
	if err := serve(); err != nil {
		log.Fatal(err)
	}
}

func other() {
	_ = load()
	_ = helper()
}
