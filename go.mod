module github.com/cancelcheck/cancelcheck

go 1.26.0

require (
	github.com/fatih/color v1.19.0
	github.com/golangci/plugin-module-register v0.1.2
	github.com/mattn/go-isatty v0.0.20
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/tools v0.52.0
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)

tool honnef.co/go/tools/cmd/staticcheck
