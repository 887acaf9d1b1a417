module example.com/go119

go 1.19
